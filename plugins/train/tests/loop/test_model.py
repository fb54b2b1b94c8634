"""Model: its graphs (training and inference), its default train step (sparse gradients
stay sparse), the mistakes its constructor names."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import Dense, Embed, mse, regression_model

import tensorweave as tw
import tensorweave_train as twt


class _Spy(twt.SGD):
    seen: list = []

    def apply_gradients(self, grads_and_vars):
        pairs = list(grads_and_vars)
        _Spy.seen.append([type(g).__name__ for g, _ in pairs])
        return super().apply_gradients(pairs)


def test_sparse_gradients_stay_sparse_and_untouched_rows_stay():
    tf.random.set_seed(0)
    ids = tw.Input(shape=(3,), dtype=tf.int32, name="ids")
    t = tw.Input(n_units=2, name="t")
    emb = Embed(ids, vocab=50, dim=2)
    loss = tw.Lambda(mse, emb, t)
    model = twt.Model(inputs=ids, outputs=emb, targets=t, loss=loss, optimizer=_Spy(0.5))
    before = emb.state.table.numpy().copy()
    x = np.array([[1, 2, 3], [3, 4, 4]], "int32")
    model.train({"ids": x, "t": np.ones((2, 2), "float32")}, epochs=1, batch_size=2)
    assert _Spy.seen[-1] == ["IndexedSlices"]
    after = emb.state.table.numpy()
    untouched = [i for i in range(50) if i not in (1, 2, 3, 4)]
    np.testing.assert_array_equal(before[untouched], after[untouched])
    assert not np.allclose(before[[1, 2, 3, 4]], after[[1, 2, 3, 4]])


def test_multiple_outputs_and_training_graph_differs_from_inference():
    tf.random.set_seed(0)
    x = tw.Input(n_units=3, name="x")
    t = tw.Input(n_units=2, name="t")
    d = Dense(x, 2)
    noisy = tw.Lambda(lambda a: a * 1.0, d.reuse_with(x))  # a "training" copy sharing state
    loss = tw.Lambda(mse, noisy, t)
    model = twt.Model(inputs=x, outputs=[d, d * 2.0], targets=t, loss=loss)
    a, b = model.predict({"x": np.ones((5, 3), "float32")}, batch_size=2)
    np.testing.assert_allclose(2 * a, b, rtol=1e-6)
    assert len(model.trainable_variables) == 2


def test_errors_name_the_problem():
    x = tw.Input(n_units=2, name="x")
    t = tw.Input(n_units=2, name="t")
    other = tw.Input(n_units=2, name="other")
    with pytest.raises(tw.ShapeError, match="scalar"):
        twt.Model(inputs=x, outputs=x, loss=x)
    loss = tw.Lambda(mse, x, other)
    with pytest.raises(tw.GraphError, match="other"):
        twt.Model(inputs=x, outputs=x, targets=t, loss=loss)
    model = twt.Model(inputs=x, outputs=x)
    with pytest.raises(tw.GraphError, match="loss"):
        model.train({"x": np.ones((2, 2))}, epochs=1)
    model2 = regression_model()
    with pytest.raises(KeyError, match="needs"):
        model2.train({"x": np.ones((2, 4), "float32")}, epochs=1)
