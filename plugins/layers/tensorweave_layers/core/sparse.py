"""``ToSparse`` and ``ToDense``: switch a layer between dense and ``tf.SparseTensor``.

``ToSparse`` keeps the non-zero entries; ``ToDense`` fills the missing ones with
``default_value``. Each passes through an input that is already in the target form.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=3, name="x", value=[[0.0, 2.0, 0.0]])
>>> s = ToSparse(x)
>>> s.sparse, s().indices.numpy().tolist(), ToDense(s)().numpy().tolist()
(True, [[0, 1]], [[0.0, 2.0, 0.0]])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["ToSparse", "ToDense"]


class ToSparse(tw.Layer):
    """Dense to ``tf.SparseTensor`` (non-zero entries only).

    Args:
        x: the input layer (sparse input passes through).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self, x: tw.Layer, *, name: str | None = None, share_state_with: ToSparse | None = None
    ) -> None:
        super().__init__(
            x,
            shape=x.shape,
            dtype=x.dtype,
            sparse=True,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.SparseTensor:
        """``tf.sparse.from_dense(x)``."""
        if isinstance(x, tf.SparseTensor):
            return x
        return tf.sparse.from_dense(x)


class ToDense(tw.Layer):
    """``tf.SparseTensor`` to dense.

    Args:
        x: the input layer (dense input passes through).
        default_value: the value of entries the sparse tensor does not hold.
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x: tw.Layer,
        *,
        default_value: float | int = 0,
        name: str | None = None,
        share_state_with: ToDense | None = None,
    ) -> None:
        self._default = default_value
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def compute(self, x: Any) -> tf.Tensor:
        """``tf.sparse.to_dense(x)``, with this layer's static shape."""
        if not isinstance(x, tf.SparseTensor):
            return x
        dense = tf.sparse.to_dense(x, default_value=tf.cast(self._default, x.dtype))
        return tf.ensure_shape(dense, self.shape)
