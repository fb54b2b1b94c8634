"""The Model derives its inference and evaluation graphs (training=False everywhere): Dropout,
BatchNorm, DropConnect, DropLookup, attention and recurrent-cell dropout are off in
predict, evaluate and export, so they are deterministic; training stays stochastic."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt


def _dense_model(seed=0):
    tw.reset_names()
    tf.random.set_seed(seed)
    x, t = tw.Input(n_units=6, name="x"), tw.Input(n_units=1, name="t")
    h = tw.layers["FC.v1"](x, n_units=16, activation="relu")
    h = tw.layers["BatchNorm.v1"](h)
    h = tw.layers["Dropout.v1"](h, rate=0.5)
    h = tw.layers["DropConnect.v1"](h, n_units=8, rate=0.5)
    y = tw.layers["Linear.v1"](h, n_units=1)
    loss = tw.losses["mse.v1"](t, y)
    mae = tw.Lambda(lambda a, b: tf.reduce_mean(tf.abs(a - b)), y, t, name="mae")
    return twt.Model(inputs=x, outputs=y, targets=t, loss=loss, metrics={"mae": mae})


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 6)).astype("float32")
    return {"x": x, "t": x[:, :1] * 2.0}


def test_predict_and_evaluate_are_deterministic_and_training_is_not():
    model = _dense_model()
    data = _data()
    model.train(data, epochs=2, batch_size=8)
    a, b = model.predict({"x": data["x"]}), model.predict({"x": data["x"]}, batch_size=7)
    np.testing.assert_array_equal(a, b)
    assert model.evaluate(data, batch_size=8) == model.evaluate(data, batch_size=8)
    # predictions are those of the hand-made inference graph (every layer training=False)
    x = model.inputs[0]
    h = model.inference_graph.nodes
    assert not any(getattr(n, "training", False) for n in h)
    by_hand = tw.with_options(model.outputs[0], training=False)
    np.testing.assert_allclose(by_hand(data["x"]).numpy(), a, rtol=1e-6)
    # the training graph (the loss) still drops: two runs of it differ
    feed = {x: data["x"], model.targets[0]: data["t"]}
    loss_graph = tw.Graph.build(None, model.loss)
    assert float(loss_graph.compute(feed=feed)) != float(loss_graph.compute(feed=feed))


def test_the_figures_are_those_of_the_inference_graph():
    model = _dense_model()
    data = _data()
    pred = model.predict({"x": data["x"]})
    got = model.evaluate(data, batch_size=9)
    np.testing.assert_allclose(got["loss"], np.mean((pred - data["t"]) ** 2), rtol=1e-5)
    np.testing.assert_allclose(got["mae"], np.mean(np.abs(pred - data["t"])), rtol=1e-5)


def test_an_explicit_inference_branch_is_kept():
    tw.reset_names()
    x, t = tw.Input(n_units=3, name="x"), tw.Input(n_units=1, name="t")
    drop = tw.layers["Dropout.v1"](x, rate=0.5)
    y_train = tw.layers["Linear.v1"](drop, n_units=1)
    y_infer = y_train.reuse_with(drop.reuse_with(x, training=False))
    loss = tw.losses["mse.v1"](t, y_train)
    model = twt.Model(inputs=x, outputs=y_infer, targets=t, loss=loss)
    assert model.inference_outputs[0] is y_infer
    off = twt.Model(inputs=x, outputs=y_train, targets=t, loss=loss, inference_options={})
    assert off.inference_outputs[0] is y_train  # inference_options={}: as given
    xs = np.ones((4, 3), "float32")
    np.testing.assert_array_equal(model.predict({"x": xs}), model.predict({"x": xs}))


def test_sequence_layers_attention_lookup_and_cell_dropout_switch_off():
    tw.reset_names()
    tf.random.set_seed(1)
    ids = tw.Input(batch_shape=(None, None), dtype="int32", name="ids")
    emb = tw.layers["Lookup.v1"](ids, vocab_size=11, n_units=8)
    emb = tw.layers["DropLookup.v1"](emb, ids, rate=0.5)
    att = tw.layers["MHAttention.v1"](emb, n_units=8, n_heads=2, dropout=0.5)
    att = tw.layers["SeqMap.v1"](att, "Dropout.v1", rate=0.5)  # a composite layer
    rnn = tw.layers["RNN.v1"](
        att, cell="LSTMCell.v1", n_units=6, dropout=0.5, recurrent_dropout=0.5,
        output_dropout=0.5, dropconnect=0.5, return_sequences=True
    )  # fmt: skip
    model = twt.Model(inputs=ids, outputs=rnn)
    xs = {"ids": np.random.default_rng(0).integers(0, 11, size=(5, 7)).astype("int32")}
    np.testing.assert_array_equal(model.predict(xs), model.predict(xs))
    stochastic = tw.compile(rnn)
    assert not np.array_equal(stochastic(xs["ids"]).numpy(), stochastic(xs["ids"]).numpy())
    switched = [n for n in model.inference_graph.nodes if tw.takes_option(n, "training")]
    assert len(switched) == 4  # DropLookup, MHAttention, SeqMap, RNN: rebuilt, sharing state
    assert all(n not in rnn.graph for n in switched)


def test_export_serves_the_inference_graph(tmp_path):
    model = _dense_model()
    data = _data()
    path = model.export(str(tmp_path / "saved"))
    loaded = tf.saved_model.load(str(path / "model"))
    a = loaded.serve(tf.constant(data["x"])).numpy()
    b = loaded.serve(tf.constant(data["x"])).numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(a, model.predict({"x": data["x"]}), rtol=1e-6)
