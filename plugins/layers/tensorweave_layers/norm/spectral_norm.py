"""``SpectralNorm``: a layer whose kernel is kept at spectral norm 1 (Miyato et al., 2018),
the Lipschitz constraint of GAN discriminators, as Keras's ``SpectralNormalization``.

It wraps a layer with a kernel (``Conv*``, ``Linear``, ``Lookup``…: the first of
``kernel``, ``weights``, ``embeddings`` on its state), built on this node's input from a
registered name with options, or an existing layer whose weights it then shares. Each
training run estimates the kernel's largest singular value ``sigma`` with
``power_iterations`` steps of power iteration from the vector ``u`` (non-trainable, kept in
this layer's state, so checkpoints resume it), stores ``kernel / sigma`` and ``u`` back, then
runs the layer; gradients reach the normalized kernel. With ``training=False`` (what
``tw.with_options`` and ``Model`` give inference) nothing is updated.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=3, name="x", value=np.ones((2, 3), "float32"))
>>> sn = SpectralNorm(x, "Linear.v1", n_units=4, power_iterations=20)
>>> _ = sn()
>>> largest = float(np.linalg.svd(sn.layer.weights.numpy(), compute_uv=False)[0])
>>> abs(largest - 1.0) < 0.05   # power iteration: close to 1, closer with more iterations
True
>>> sn.reuse_with(x, training=False).layer.weights is sn.layer.weights
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner

__all__ = ["SpectralNorm"]

#: where a wrapped layer keeps the kernel to normalize, in order of preference
KERNEL_NAMES = ("kernel", "weights", "embeddings")


def _unit(v: tf.Tensor) -> tf.Tensor:
    """``v / max(||v||, 1e-7)`` over all entries (Keras's ``normalize(axis=None)``)."""
    return v * tf.math.rsqrt(tf.maximum(tf.reduce_sum(tf.square(v)), 1e-14))


class SpectralNorm(tw.Layer):
    """``layer`` applied to ``x`` with its kernel divided by its spectral norm.

    Args:
        x: the input of the wrapped layer.
        layer: a registered layer name (built on ``x`` with ``**layer_kwargs``), a factory
            ``fn(x, **layer_kwargs) -> layer``, or a built one-input layer whose weights
            are shared (and normalized).
        power_iterations: power-iteration steps per training run.
        training: estimate and normalize (``True``), or run the layer as it is.
        name, share_state_with: see ``tw.Layer``.
        **layer_kwargs: options of the layer to build (``n_units=4``…).
    """

    # the power iteration (and the assignment of the kernel) in float32 under mixed precision
    compute_precision = "float32"

    def __init__(
        self,
        x: tw.Layer,
        layer: str | Callable[..., tw.Layer] | tw.Layer,
        *,
        power_iterations: int = 1,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
        **layer_kwargs: Any,
    ) -> None:
        owner = name_owner("SpectralNorm", name)
        self.power_iterations = tw.positive_int(power_iterations, "power_iterations", owner)
        self.training = bool(training)
        if share_state_with is not None:
            inner = share_state_with.state.layer.reuse_with(x)
        elif isinstance(layer, tw.Layer):
            if len(layer.inputs) != 1:
                raise tw.ShapeError(
                    f"{owner}: wraps one-input layers, {layer.name!r} has {len(layer.inputs)} "
                    "inputs. Fix: wrap the layer that holds the kernel."
                )
            inner = layer.reuse_with(x)
        else:
            factory = tw.resolve("layers", layer, owner=owner, option="layer")
            inner = factory(x, **layer_kwargs)
            if not isinstance(inner, tw.Layer) or inner.inputs != (x,):
                raise TypeError(
                    f"{owner}: layer={layer!r} must build one layer on this node's input, got "
                    f"{inner!r}. Fix: name a layer with a kernel (Conv2D.v1, Linear.v1…)."
                )
        found = [n for n in KERNEL_NAMES if isinstance(getattr(inner.state, n, None), tf.Variable)]
        if not found:
            raise tw.ArgumentError(
                f"{owner}: {type(inner).__name__} {inner.name!r} has no kernel to normalize "
                f"(none of {KERNEL_NAMES} on its state). Fix: wrap a Conv*, Linear or Lookup."
            )
        self.kernel_name = found[0]
        self._inner = inner
        super().__init__(
            x, shape=inner.shape, dtype=inner.dtype, name=name, share_state_with=share_state_with
        )

    @property
    def layer(self) -> tw.Layer:
        """The wrapped layer (on this node's input)."""
        return self._inner

    @property
    def kernel(self) -> tf.Variable:
        """The wrapped layer's kernel, the variable this layer normalizes."""
        kernel: tf.Variable = getattr(self._inner.state, self.kernel_name)
        return kernel

    def init_state(self) -> None:
        """Keep the wrapped layer, and ``u`` ``[1, kernel.shape[-1]]`` (non-trainable)."""
        self.state.layer = self._inner
        n_out = int(self.kernel.shape[-1])
        u = tf.random.truncated_normal([1, n_out], stddev=0.02, dtype=self.kernel.dtype)
        self.state.u = tf.Variable(u, trainable=False, name="u")

    def normalize(self) -> None:
        """One update: power-iterate ``u``, store ``kernel / sigma`` and ``u`` (a kernel of
        zeros is left alone)."""
        kernel = self.kernel
        w = tf.reshape(kernel, [-1, int(kernel.shape[-1])])
        u = tf.convert_to_tensor(self.state.u)
        v = u
        for _ in range(self.power_iterations):
            v = _unit(tf.matmul(u, w, transpose_b=True))
            u = _unit(tf.matmul(v, w))
        u, v = tf.stop_gradient(u), tf.stop_gradient(v)
        sigma = tf.matmul(tf.matmul(v, w), u, transpose_b=True)[0, 0]
        nonzero = tf.reduce_any(tf.not_equal(kernel, 0))
        self.state.u.assign(tf.where(nonzero, u, self.state.u))
        kernel.assign(tf.where(nonzero, kernel / sigma, kernel))

    def compute(self, x: Any) -> tf.Tensor:
        """Normalize (when training), then run the wrapped layer."""
        if self.training:
            self.normalize()
        return self._inner.compute(x)

    def reuse_with(  # type: ignore[override]  # one input, the per-use training switch
        self, x: tw.Layer, *, training: bool | None = None, name: str | None = None
    ) -> SpectralNorm:
        """The same wrapped layer, kernel and ``u`` on ``x``; ``training=False`` for
        inference (nothing is updated)."""
        return SpectralNorm(
            x,
            self._inner,
            power_iterations=self.power_iterations,
            training=self.training if training is None else training,
            name=name,
            share_state_with=self,
        )
