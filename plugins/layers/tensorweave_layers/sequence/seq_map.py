"""``SeqMap``: apply a layer to every step of a sequence, with the same weights at each step.

The inner layer (a registered name such as ``"Linear.v1"`` or ``"Linear"``, the latest
version, resolved by ``tw.resolve``; or any factory
``fn(input_layer) -> layer``) is built once on an ``Input`` of shape
``(None, *step_shape)``; the sequence ``[batch, time, *step_shape]`` is reshaped to
``[batch * time, *step_shape]``, run through the inner graph in one call (no loop over
steps) and reshaped back. ``reuse_with`` shares the inner layer, hence its weights.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 3), name="seq")
>>> norm = SeqMap(x, "LayerNorm.v1")
>>> norm.shape
(None, None, 3)
>>> out = norm.compute(tf.constant([[[1.0, 2.0, 3.0], [0.0, 0.0, 6.0]]]))
>>> np.round(out.numpy().astype(float), 3).tolist()
[[[-1.224, 0.0, 1.224], [-0.707, -0.707, 1.414]]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe

__all__ = ["SeqMap"]


def _build_inner(
    x: tw.Layer, layer: str | Callable[..., tw.Layer], kwargs: dict[str, Any], owner: str
) -> tw.Module:
    # a registered name ("Linear" is the latest version) or a factory, like RNN's cell=
    factory: Callable[..., tw.Layer] = tw.resolve("layers", layer, owner=owner, option="layer")
    with tw.name_scope("seq_map"):
        step = tw.Input(batch_shape=(None, *x.shape[2:]), dtype=x.dtype, name=None)
        out = factory(step, **kwargs)
        if not isinstance(out, tw.Layer):
            raise TypeError(
                f"{owner}: the step factory returned a {type(out).__name__}, not a tw.Layer."
            )
        if len(out.shape) < 1 or out.sparse:
            raise tw.ShapeError(
                f"{owner}: the step layer must output a dense [batch, ...] tensor, got "
                f"{describe(out)}."
            )
        return tw.Module(step, out)


class SeqMap(tw.Layer):
    """Apply ``layer`` to each step of ``x`` ``[batch, time, ...]``.

    Args:
        x: the sequence, dense, rank >= 3.
        layer: a registered layer name, a function ``input_layer -> layer`` (it may build
            several layers; they all become the shared step), or a ``tw.Module`` whose
            input is one step ``(None, *step_shape)``.
        **layer_kwargs: keyword arguments for the layer (with a name or a function).
    """

    # under mixed precision the step (a layer or a module) decides its own dtype
    compute_precision = "inputs"

    keeps_padding_mask = True  # steps stay steps: a padding mask passes on

    def __init__(
        self,
        x: tw.Layer,
        layer: str | Callable[..., tw.Layer] | tw.Module,
        *,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **layer_kwargs: Any,
    ) -> None:
        owner = name_owner("SeqMap", name)
        if x.sparse or len(x.shape) < 3:
            raise tw.ShapeError(
                f"{owner} expects a dense sequence [batch, time, features...] of rank >= 3, "
                f"got {describe(x)}. Fix: apply the layer "
                "directly to [batch, features] inputs."
            )
        if isinstance(layer, tw.Module):
            step = layer
        elif share_state_with is not None:
            step = share_state_with.step
        else:
            step = _build_inner(x, layer, layer_kwargs, owner)
        want = tuple(step.inner_graph.inputs[0].shape[1:])
        if len(step.inner_graph.inputs) != 1 or want != tuple(x.shape[2:]):
            raise tw.ShapeError(
                f"{owner}: the step layer takes steps of shape {want}, but {describe(x)} has "
                f"steps of shape {tuple(x.shape[2:])}. Fix: map it over sequences with that "
                "step shape."
            )
        self._tw_step = step
        super().__init__(
            x,
            shape=(x.shape[0], x.shape[1], *step.shape[1:]),
            dtype=step.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def init_state(self) -> None:
        """Keep the step module, so its variables train and checkpoint with this layer."""
        self.state.inner = self._tw_step

    @property
    def step(self) -> tw.Module:
        """The step layer, as a ``tw.Module`` built on a ``(None, *step_shape)`` input."""
        step: tw.Module = self._tw_step
        return step

    def compute(self, x: Any) -> tf.Tensor:
        """Fold time into the batch, run the step once, unfold."""
        shape = tf.shape(x)
        flat = tf.reshape(x, tf.concat([[-1], shape[2:]], axis=0))
        y = self.step.compute(flat)
        return tf.reshape(y, tf.concat([shape[:2], tf.shape(y)[1:]], axis=0))

    def reuse_with(  # type: ignore[override]  # one input, options for the step
        self, x: tw.Layer, *, name: str | None = None, **options: Any
    ) -> SeqMap:
        """The same step layer (shared weights) on another sequence.

        ``options`` (e.g. ``training=False``) go to the inner layers that accept them, like
        ``tw.Module.reuse_with``.
        """
        step = self.step
        if options:
            fresh = tw.Input(batch_shape=step.inner_graph.inputs[0].shape, dtype=x.dtype)
            step = step.reuse_with(fresh, **options)
        return SeqMap(x, step, name=name, share_state_with=self)
