"""Variables carry their layer's name (``linear_1/weights``), so errors can name the layer."""

from __future__ import annotations

import tensorflow as tf

import tensorweave as tw


class Scale(tw.Layer):
    def __init__(self, x, *, name=None, share_state_with=None):
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def init_state(self):
        self.state.scale = tf.Variable(tf.ones(self.shape[-1:]), name="scale")

    def compute(self, x):
        return x * self.state.scale


def test_variables_are_named_after_their_layer_and_scope() -> None:
    tw.reset_names()
    x = tw.Input(n_units=3, name="x")
    a, b = Scale(x), Scale(x)
    with tw.name_scope("encoder"):
        c = Scale(x)
    assert [v.name for v in (*a.variables, *b.variables, *c.variables)] == [
        "scale/scale:0",
        "scale_1/scale:0",
        "encoder/scale/scale:0",
    ]
    shared = Scale(x, name="again", share_state_with=b)
    assert [v.name for v in shared.variables] == ["scale_1/scale:0"]  # the owner's name


def test_a_layer_made_inside_an_outer_tf_name_scope_keeps_its_own_name() -> None:
    x = tw.Input(n_units=2, name="x")
    with tf.name_scope("outer"):
        layer = Scale(x, name="mine")
    assert layer.variables[0].name == "mine/scale:0"
