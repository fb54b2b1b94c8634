"""``RotaryEmbedding``: rotary position embeddings (RoPE, Su et al. 2021; keras_hub's
``RotaryEmbedding``).

Each step ``t`` of ``x`` ``[batch, time, ..., width]`` is rotated: unit ``i`` and unit
``i + width/2`` form a pair turned by the angle ``t / max_wavelength ** (2 i / width)``
(``t / scaling_factor`` with position interpolation). Applied to the queries and keys of
attention (the axes between time and width are heads), their dot product then depends on
the distance between two steps only, not on where they are. Shape-preserving, no
weights; the input's padding mask passes on.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 2), value=np.ones((1, 2, 2), "float32"))
>>> np.round(RotaryEmbedding(x)().numpy().astype(float), 3).tolist()  # step 1 turns by 1 rad
[[[1.0, 1.0], [-0.301, 1.382]]]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner
from tensorweave_layers.embedding.angles import angles, check_positions_input

__all__ = ["RotaryEmbedding", "rotate"]


def rotate(x: Any, *, max_wavelength: float = 10_000.0, scaling_factor: float = 1.0) -> tf.Tensor:
    """``x`` ``[batch, time, ..., width]`` with each step's unit pairs ``(i, i + width/2)``
    rotated by its angle (the maths of ``RotaryEmbedding``, on tensors)."""
    x = tf.convert_to_tensor(x)
    dims = tf.shape(x)
    half = dims[-1] // 2
    turn = angles(
        dims[1],
        half,
        dims[-1],
        max_wavelength=max_wavelength,
        scaling_factor=scaling_factor,
        dtype=x.dtype,
    )
    turn = tf.concat([turn, turn], axis=-1)  # [time, width]
    turn = tf.reshape(turn, tf.concat([[dims[1]], tf.ones([x.shape.rank - 3], tf.int32), [-1]], 0))
    first, second = x[..., :half], x[..., half:]
    half_turned = tf.concat([-second, first], axis=-1)
    return x * tf.cos(turn) + half_turned * tf.sin(turn)


class RotaryEmbedding(tw.Layer):
    """``x`` with its steps rotated by their positions (see the module docstring).

    Args:
        x: a dense float sequence ``[batch, time, ..., width]``, ``width`` even.
        max_wavelength: the longest wavelength (10,000 as in the paper).
        scaling_factor: positions are divided by it (position interpolation; keras_hub's
            name).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    keeps_padding_mask = True  # the same steps, rotated

    def __init__(
        self,
        x: tw.Layer,
        *,
        max_wavelength: float = 10_000.0,
        scaling_factor: float = 1.0,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        who = owner("RotaryEmbedding", name)
        check_positions_input(x, who, even=True)
        if float(max_wavelength) <= 1.0 or float(scaling_factor) <= 0.0:
            raise tw.ArgumentError(
                f"{who}: max_wavelength must be > 1 and scaling_factor > 0, got "
                f"{max_wavelength!r} and {scaling_factor!r}."
            )
        self.max_wavelength = float(max_wavelength)
        self.scaling_factor = float(scaling_factor)
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def compute(self, x: Any) -> tf.Tensor:
        """Rotate every step of ``x``."""
        return rotate(x, max_wavelength=self.max_wavelength, scaling_factor=self.scaling_factor)
