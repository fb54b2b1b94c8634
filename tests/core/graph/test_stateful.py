"""Stateful: only named attributes are TensorFlow state; the rest is plain Python."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import tensorweave as tw


class Scaler(tw.Stateful):
    tracked = ("scale",)

    def __init__(self) -> None:
        super().__init__(name="scaler")
        self.scale = tf.Variable(2.0)
        self.history = [tf.Variable(0.0)]
        self.options = {"mode": "fast"}


def test_only_tracked_attributes_are_variables_and_checkpointed(tmp_path):
    s = Scaler()
    assert [v.numpy() for v in s.variables] == [2.0]
    assert type(s.history) is list and type(s.options) is dict
    path = tf.train.Checkpoint(s=s).write(str(tmp_path / "ck"))
    names = [name for name, _ in tf.train.list_variables(path)]
    assert any("scale" in n for n in names) and not any("history" in n for n in names)


class Shift(tw.Layer):
    """A pack-style layer: options are plain attributes, set before or after super()."""

    def __init__(self, x, *, by=1.0, name=None, share_state_with=None):
        self.by = by
        self.upstream = [x]  # a plain list of layers: not state, not wrapped
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)
        self.label = f"shift by {by}"

    def init_state(self):
        self.state.offset = tf.Variable(tf.fill([self.n_units], self.by))

    def compute(self, x):
        return x + self.state.offset


def test_a_layer_keeps_plain_attributes_and_only_its_state(tmp_path):
    x = tw.Input(n_units=2, name="x")
    h = Shift(x, by=0.5)
    y = Shift(h, by=2.0)
    assert type(y.upstream) is list and y.label == "shift by 2.0"
    assert len(y.variables) == 1  # its own offset, not h's
    value = np.zeros((1, 2), "float32")
    np.testing.assert_allclose(y(value).numpy(), [[2.5, 2.5]])
    graph = y.graph
    checkpoint = tf.train.Checkpoint(graph=graph)
    path = checkpoint.write(str(tmp_path / "ck"))
    for v in graph.variables:
        v.assign(tf.zeros_like(v))
    checkpoint.read(path).assert_consumed()
    np.testing.assert_allclose(y(value).numpy(), [[2.5, 2.5]])


def test_a_saved_model_sees_every_variable(tmp_path):
    x = tw.Input(n_units=2, name="x")
    y = Shift(Shift(x, by=1.0), by=3.0)
    module = tf.Module()
    module.graph = y.graph
    module.f = tf.function(lambda t: y.graph.run(t), input_signature=[x.spec])
    tf.saved_model.save(module, str(tmp_path / "sm"))
    restored = tf.saved_model.load(str(tmp_path / "sm"))
    np.testing.assert_allclose(restored.f(np.zeros((1, 2), "float32")).numpy(), [[4.0, 4.0]])
    saved = tf.train.list_variables(str(tmp_path / "sm" / "variables" / "variables"))
    assert len([name for name, _ in saved if "offset" in name]) == 2
