"""``ConvLSTM2D``: a convolutional LSTM over a sequence of images (Keras's ``ConvLSTM2D``).

``seq`` ``[batch, time, H, W, C]`` -> ``[batch, time, h, w, n_units]`` (or the last real
step's ``[batch, h, w, n_units]`` with ``return_sequences=False``). Each step's gates are
convolutions (``ConvLSTM2DCell``): ``kernel_size``, ``strides``, ``padding`` and
``dilation_rate`` act on the input, the recurrent convolution is ``same``-padded. The layer is
the pack's ``RNN`` run on the images flattened to vectors, so it has the ``RNN``'s
machinery: ``mask=``/``lengths=`` (default: the sequence's ``padding_mask``), ``reverse``
(outputs stay aligned with the input steps, unlike Keras's ``go_backwards``), the cell's
dropout options while ``training``, one convolution for every step's input before the loop.
The image size must be known (``H, W, C`` fixed), as the states are flattened maps.
Weights (``kernel``, ``recurrent_kernel``, ``bias``) have Keras's layout and gate order.

>>> import numpy as np, tensorweave as tw
>>> frames = tw.Input(batch_shape=(None, None, 6, 6, 1), name="frames")
>>> conv = ConvLSTM2D(frames, n_units=2, kernel_size=3, return_sequences=True)
>>> conv.shape, conv.cell.kernel.shape.as_list()
((None, None, 4, 4, 2), [3, 3, 1, 8])
>>> conv.compute(np.zeros((1, 5, 6, 6, 1), "float32")).shape.as_list()
[1, 5, 4, 4, 2]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_rnn.conv_lstm_cell import ConvLSTM2DCell
from tensorweave_rnn.rnn import RNN

__all__ = ["ConvLSTM2D"]

Initializer = str | Callable[..., Any] | None


class ConvLSTM2D(tw.Layer):
    """A convolutional LSTM unrolled over ``seq`` (see the module docstring).

    Args:
        seq: ``[batch, time, H, W, C]`` with ``H``, ``W``, ``C`` known.
        n_units: the feature maps of the states and output (Keras: ``filters``).
        kernel_size, strides, padding, dilation_rate: the input convolution (Keras's
            names).
        activation, recurrent_activation, add_bias, unit_forget_bias, w_init, u_init,
            b_init: as Keras's (see ``ConvLSTM2DCell``).
        lengths, mask: padding of the time axis (default: ``seq.padding_mask``).
        reverse, return_sequences, training: as ``RNN``'s.
        **cell_options: the cell's ``dropout``, ``recurrent_dropout``, ``output_dropout``…
    """

    compute_precision = "float32"  # a recurrence, as RNN

    def __init__(
        self,
        seq: tw.Layer,
        *,
        n_units: int,
        kernel_size: int | Sequence[int] = 3,
        strides: int | Sequence[int] = 1,
        padding: str = "valid",
        dilation_rate: int | Sequence[int] = 1,
        activation: str | Callable[..., Any] = "tensorweave-layers:tanh",
        recurrent_activation: str | Callable[..., Any] = "tensorweave-layers:sigmoid",
        add_bias: bool = True,
        unit_forget_bias: bool = True,
        w_init: Initializer = "tensorweave-layers:glorot_uniform",
        u_init: Initializer = "tensorweave-layers:orthogonal",
        b_init: Initializer = "tensorweave-layers:zeros",
        lengths: tw.Layer | None = None,
        mask: tw.Layer | None = None,
        reverse: bool = False,
        return_sequences: bool = False,
        training: bool | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **cell_options: Any,
    ) -> None:
        image = seq.shape[2:]
        if seq.sparse or len(seq.shape) != 5 or any(d is None for d in image):
            raise tw.ShapeError(
                f"ConvLSTM2D: the sequence {seq.name!r} has shape {seq.shape}; it needs "
                "[batch, time, height, width, channels] with the image size known.\n  Fix: "
                "build the input as tw.Input(batch_shape=(None, None, H, W, C))."
            )
        pixels = int(image[0]) * int(image[1]) * int(image[2])  # type: ignore[arg-type]
        if lengths is None and mask is None and seq.padding_mask is not None:
            mask = seq.padding_mask
        aux = [a for a in (lengths, mask) if a is not None]
        # the RNN runs on stand-ins for the flattened frames and their padding
        stand_ins = {
            "lengths": None if lengths is None else tw.Input(shape=(), dtype=lengths.dtype),
            "mask": None if mask is None else tw.Input(batch_shape=mask.shape, dtype=mask.dtype),
        }
        frames = tw.Input(batch_shape=(None, None, pixels), dtype=seq.dtype, name="frames")
        cell: Any = None
        if share_state_with is None:
            cell = ConvLSTM2DCell(
                tw.Input(n_units=pixels, dtype=seq.dtype, name="frame"),
                image=tuple(int(d) for d in image),  # type: ignore[arg-type]
                filters=n_units,
                kernel_size=kernel_size,
                strides=strides,
                padding=padding,
                dilation_rate=dilation_rate,
                activation=activation,
                recurrent_activation=recurrent_activation,
                add_bias=add_bias,
                unit_forget_bias=unit_forget_bias,
                w_init=w_init,
                u_init=u_init,
                b_init=b_init,
                **cell_options,
            )
        self._rnn = RNN(
            frames,
            cell=cell,
            reverse=reverse,
            return_sequences=return_sequences,
            training=training,
            share_state_with=None if share_state_with is None else share_state_with.state.rnn,
            **stand_ins,  # type: ignore[arg-type]
        )
        self._sequences = bool(return_sequences)
        self.map_shape: tuple[int, int, int] = self.cell.map_shape
        time = (None,) if return_sequences else ()
        super().__init__(
            seq,
            *aux,
            shape=(None, *time, *self.map_shape),
            dtype=seq.dtype,
            name=name,
            share_state_with=share_state_with,
        )
        if return_sequences and lengths is None:
            self.padding_mask = mask

    def init_state(self) -> None:
        """The ``RNN`` over flattened frames (its cell holds the weights)."""
        self.state.rnn = self._rnn

    @property
    def cell(self) -> ConvLSTM2DCell:
        """The cell (``kernel``, ``recurrent_kernel``, ``bias``)."""
        cell = self._rnn.cell
        assert isinstance(cell, ConvLSTM2DCell)
        return cell

    def compute(self, seq: tf.Tensor, *aux: tf.Tensor) -> tf.Tensor:
        """Flatten the frames, run the ``RNN``, unflatten the maps."""
        dims = tf.shape(seq)
        out = self._rnn.compute(tf.reshape(seq, tf.concat([dims[:2], [-1]], 0)), *aux)
        lead = dims[:2] if self._sequences else dims[:1]
        return tf.reshape(out, tf.concat([lead, self.map_shape], 0))

    def reuse_with(  # type: ignore[override]  # the sequence first, then lengths/mask
        self, seq: tw.Layer, *rest: tw.Layer, **options: Any
    ) -> ConvLSTM2D:
        """The same weights on other inputs (sequence, then lengths/mask if it had one);
        ``options`` are per use (``return_sequences``, ``reverse``, ``training``)."""
        _, kwargs = self._tw_init_args
        cfg = {k: v for k, v in kwargs.items() if k not in ("lengths", "mask", "name")}
        if rest:
            cfg["lengths" if kwargs.get("lengths") is not None else "mask"] = rest[0]
        cfg.update(options)
        cfg["share_state_with"] = self
        return ConvLSTM2D(seq, **cfg)
