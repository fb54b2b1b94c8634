"""``DropConnect``: a linear map ``x @ W + b`` whose *weights* are dropped at training time.

Each run draws one mask over ``W`` (entries kept with ``1 - probability`` and scaled by
``1 / (1 - probability)``), so the expected map equals the undropped one, which the
inference node ``dc.reuse_with(x, training=False)`` uses. The bias is never dropped.
Dense and sparse ``[batch, n_in]`` inputs are supported.

>>> x = tw.Input(n_units=3, name="x", value=np.eye(3, dtype="float32"))
>>> dc = DropConnect(x, n_units=2, probability=0.5, add_bias=False)
>>> rows = dc().numpy()                       # x = I, so the rows are the dropped W
>>> w = dc.weights.numpy()
>>> bool(np.all((rows == 0) | np.isclose(rows, 2 * w)))
True
>>> np.allclose(dc.reuse_with(x, training=False)().numpy(), w)
True
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw

from ._param_init import Initializer, initial_value
from ._shapes import owner as name_owner
from ._spatial import describe

__all__ = ["DropConnect"]


class DropConnect(tw.Layer):
    """A linear layer with DropConnect on its weights.

    Args:
        x: the input, ``[batch, n_in]``, dense or sparse, with a known ``n_in``.
        n_units: the output width.
        probability: the chance of dropping each weight, in ``[0, 1)``.
        training: drop weights (``True``) or use them all (``False``).
        add_bias: add a learned bias.
        w_init, b_init: initializers (registered name or ``(shape, dtype)`` function).
    """

    def __init__(
        self,
        x: tw.Layer,
        n_units: int,
        *,
        probability: float = 0.1,
        training: bool = True,
        add_bias: bool = True,
        w_init: Initializer = "tensorweave-layers:glorot_uniform",
        b_init: Initializer = "tensorweave-layers:zeros",
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("DropConnect", name)
        if len(x.shape) != 2 or x.shape[-1] is None:
            raise tw.ShapeError(
                f"{owner} expects an input [batch, n_in] with a known n_in, got {describe(x)}. "
                "Fix: flatten the input (e.g. SeqConcat.v1 or Reshape.v1), or wrap the layer "
                "in SeqMap.v1 for sequences."
            )
        p = float(probability)
        if not 0.0 <= p < 1.0:
            raise ValueError(f"{owner}: probability must be in [0, 1), got {probability!r}.")
        self.n_in = int(x.shape[-1])
        self.n_out = int(n_units)
        if share_state_with is not None:
            want = tuple(share_state_with.state.weights.shape.as_list())
            if want != (self.n_in, self.n_out):
                raise tw.ShapeError(
                    f"{owner}: cannot share weights {want} of {share_state_with.name!r} on "
                    f"input {describe(x)}. Fix: reuse it on inputs with {want[0]} features."
                )
        self.probability = p
        self.training = bool(training)
        self.add_bias = bool(add_bias)
        self._w_init = tw.resolve("initializers", w_init, owner=owner, option="w_init")
        self._b_init = tw.resolve("initializers", b_init, owner=owner, option="b_init")
        super().__init__(
            x,
            shape=(x.shape[0], self.n_out),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )
        if self.training and p > 0.0:
            self.state.generator()  # the weight masks' random state, checkpointed

    def init_state(self) -> None:
        """``weights`` ``[n_in, n_units]`` and optional ``bias``."""
        self.state.weights = tf.Variable(
            initial_value(self._w_init, (self.n_in, self.n_out), self.dtype), name="weights"
        )
        if self.add_bias:
            self.state.bias = tf.Variable(
                initial_value(self._b_init, (self.n_out,), self.dtype), name="bias"
            )

    def dropped_weights(self) -> tf.Tensor:
        """The weights with a fresh DropConnect mask applied (as used in training)."""
        w = self.state.weights
        if self.probability == 0.0:
            return tf.convert_to_tensor(w)
        keep = self.state.generator().uniform(tf.shape(w)) >= self.probability
        return w * tf.cast(keep, w.dtype) / tf.constant(1.0 - self.probability, w.dtype)

    def compute(self, x: Any) -> tf.Tensor:
        """``x @ W' + b`` with ``W'`` dropped in training, ``W`` otherwise."""
        w = self.dropped_weights() if self.training else self.state.weights
        if isinstance(x, tf.SparseTensor):
            y = tf.sparse.sparse_dense_matmul(x, w)
        else:
            y = tf.matmul(x, w)
        if self.add_bias and hasattr(self.state, "bias"):
            y = tf.nn.bias_add(y, self.state.bias)
        return y

    def reuse_with(  # type: ignore[override]  # explicit per-use options
        self,
        x: tw.Layer,
        *,
        training: bool | None = None,
        probability: float | None = None,
        name: str | None = None,
    ) -> DropConnect:
        """A node on ``x`` sharing ``W`` and ``b``; ``training=False`` for inference."""
        return DropConnect(
            x,
            self.n_out,
            probability=self.probability if probability is None else probability,
            training=self.training if training is None else training,
            add_bias=self.add_bias,
            w_init=self._w_init,
            b_init=self._b_init,
            name=name,
            share_state_with=self,
        )
