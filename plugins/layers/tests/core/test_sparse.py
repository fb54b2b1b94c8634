"""ToSparse and ToDense: round trips against the dense value, pass-through."""

import numpy as np
import tensorflow as tf

import tensorweave as tw

V = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], "float32")


def test_round_trip():
    x = tw.Input(n_units=3)
    sparse = tw.layers["tensorweave-layers:ToSparse.v1"](x)
    dense = tw.layers["tensorweave-layers:ToDense.v1"](sparse)
    assert sparse.sparse and not dense.sparse and dense.shape == (None, 3)
    s = sparse(V)
    assert isinstance(s, tf.SparseTensor)
    assert s.indices.numpy().tolist() == [[0, 1], [1, 0], [1, 2]]
    np.testing.assert_array_equal(dense(V).numpy(), V)
    np.testing.assert_array_equal(tw.compile(dense)(V).numpy(), V)


def test_default_value_and_pass_through():
    s = tw.Input(n_units=3, sparse=True)
    filled = tw.layers["tensorweave-layers:ToDense.v1"](s, default_value=-1.0)
    out = filled(tf.sparse.from_dense(V)).numpy()
    np.testing.assert_array_equal(out, np.where(V == 0, -1.0, V))
    d = tw.Input(n_units=3)
    np.testing.assert_array_equal(tw.layers["tensorweave-layers:ToDense.v1"](d)(V).numpy(), V)
    again = tw.layers["tensorweave-layers:ToSparse.v1"](s)(tf.sparse.from_dense(V))
    np.testing.assert_array_equal(tf.sparse.to_dense(again).numpy(), V)
