"""``SinusoidalPositionEmbedding``: the Transformer's fixed position encodings (Vaswani et
al. 2017; keras_hub's ``SinusoidalPositionEncoding``).

For a sequence ``[batch, time, width]`` it returns, for every step ``t`` and unit ``i``,
``sin(t / max_wavelength ** (2 (i // 2) / width))`` at even ``i`` and the cosine at odd
``i``, broadcast to the input's shape: add it to token embeddings
(``x + SinusoidalPositionEmbedding(x)``). No weights; any length; the input's padding mask
passes on.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 4), value=np.zeros((1, 2, 4), "float32"))
>>> np.round(SinusoidalPositionEmbedding(x)().numpy().astype(float), 3).tolist()
[[[0.0, 1.0, 0.0, 1.0], [0.841, 0.54, 0.01, 1.0]]]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner
from tensorweave_layers.embedding.angles import angles, check_positions_input

__all__ = ["SinusoidalPositionEmbedding"]


class SinusoidalPositionEmbedding(tw.Layer):
    """Fixed sine/cosine position encodings shaped like ``x``.

    Args:
        x: a dense float sequence ``[batch, time, width]``.
        max_wavelength: the longest wavelength (keras_hub's name; 10,000 as in the paper).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    keeps_padding_mask = True  # one encoding per step of x

    def __init__(
        self,
        x: tw.Layer,
        *,
        max_wavelength: float = 10_000.0,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        who = owner("SinusoidalPositionEmbedding", name)
        check_positions_input(x, who)
        if float(max_wavelength) <= 1.0:
            raise tw.ArgumentError(f"{who}: max_wavelength must be > 1, got {max_wavelength!r}.")
        self.max_wavelength = float(max_wavelength)
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def compute(self, x: Any) -> tf.Tensor:
        """The encodings of every step, broadcast to ``x``'s shape."""
        dims = tf.shape(x)
        width = dims[-1]
        pairs = angles(
            dims[-2], (width + 1) // 2, width, max_wavelength=self.max_wavelength, dtype=x.dtype
        )
        both = tf.stack([tf.sin(pairs), tf.cos(pairs)], axis=-1)  # sin at 2i, cos at 2i + 1
        encodings = tf.reshape(both, [dims[-2], -1])[:, :width]
        return tf.broadcast_to(encodings, dims)
