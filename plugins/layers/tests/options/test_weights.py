"""Weight regularizers and constraints of this pack's layers (``options/weights.py``): how an
option is read, the rule that every layer with weights takes them, and config files."""

import inspect

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers.options.regularizers import L1, L2
from tensorweave_layers.options.weights import WeightOptions, resolve_factory


def test_a_name_or_a_class_is_the_factory_with_its_defaults_a_function_is_kept():
    owner = {"owner": "Linear 'x'", "option": "w_regularizer"}
    assert resolve_factory("regularizers", "l2", **owner) == L2()
    assert resolve_factory("regularizers", "l2.v1", **owner) == L2(0.01)
    assert resolve_factory("regularizers", L1, **owner) == L1()
    assert resolve_factory("regularizers", L2(0.5), **owner) == L2(0.5)

    def custom(w):
        return tf.reduce_sum(w)

    assert resolve_factory("regularizers", custom, **owner) is custom
    assert resolve_factory("regularizers", None, **owner) is None


def test_unknown_or_wrong_options_name_the_layer_and_the_option():
    with pytest.raises(
        tw.UnknownComponentError, match=r"(?s)Conv2D: w_regularizer='l3'.*tensorweave-layers"
    ):
        tw.layers["Conv2D.v1"](tw.Input(shape=(4, 4, 1)), 2, w_regularizer="l3", padding="same")
    with pytest.raises(TypeError, match="Linear: b_constraint must be a registered constraints"):
        tw.layers["Linear.v1"](tw.Input(n_units=2), 2, b_constraint=3)
    with pytest.raises(tw.ArgumentError, match="l2 must be a number >= 0"):
        tw.regularizers["l2.v1"](l2=-1.0)


def test_the_kinds_refuse_a_penalty_registered_instead_of_a_factory():
    with tw.regularizers.scoped():
        with pytest.raises(tw.InvalidComponentError, match="requires 'weight'"):
            tw.regularizers.register("mine.v1", lambda weight: tf.reduce_sum(weight))

        @tw.regularizers.register("scaled_l2.v1")
        def scaled_l2(factor: float = 2.0):
            return lambda w: factor * tf.reduce_sum(w**2)

        layer = tw.layers["Linear.v1"](tw.Input(n_units=1), 1, w_regularizer="scaled_l2")
        layer.weights.assign([[3.0]])
        assert float(tw.regularization_loss(layer)) == 18.0


def test_options_reach_the_variables():
    options = WeightOptions.resolve("demo", w_regularizer="l1", b_constraint="non_neg")
    state = tw.LayerState("demo")
    w = options.weight(state, "w", tf.ones((2,)))
    b = options.bias(state, "b", tf.ones((2,)))
    assert [v is w for v, _ in state.regularizers] == [True]
    assert w.constraint is None and b.constraint == tw.constraints["non_neg.v1"]()


#: layers with weights but no w_init (their scales start at one, their factors as given)
WEIGHTS_WITHOUT_INIT = {
    "BatchNorm", "LayerNorm", "GroupNorm", "InstanceNorm", "RMSNorm", "Add", "Param",
}  # fmt: skip
PACK_LAYERS = sorted(i.name for i in tw.layers.infos() if i.distribution == "tensorweave-layers")


def _params(cls):
    return {
        p
        for klass in cls.__mro__
        if "__init__" in vars(klass)
        for p in inspect.signature(klass.__init__).parameters
    }


@pytest.mark.parametrize("name", PACK_LAYERS)
def test_every_layer_with_weights_takes_their_regularizers_and_constraints(name):
    cls = tw.layers[f"tensorweave-layers:{name}"]
    if not inspect.isclass(cls):
        pytest.skip("not a class")
    params = _params(cls)
    if "w_init" in params or cls.__name__ in WEIGHTS_WITHOUT_INIT:
        assert {"w_regularizer", "w_constraint"} <= params, name
    if "b_init" in params:
        assert {"b_regularizer", "b_constraint"} <= params, name


def test_a_config_block_builds_the_regularizer():
    graph = tw.config.resolve_graph(
        {
            "nodes": {
                "x": {"input": [3]},
                "h": {
                    "@layers": "FC.v1",
                    "inputs": ["x"],
                    "n_units": 2,
                    "w_init": "ones",
                    "w_regularizer": {"@regularizers": "l1_l2.v1", "l1": 0.5, "l2": 0.0},
                    "b_constraint": "non_neg",
                },
            },
            "outputs": "h",
        }
    )
    h = graph["h"]
    assert float(tw.regularization_loss(h)) == pytest.approx(0.5 * 6)
    bias = h.linear.bias
    bias.assign([-1.0, 1.0])
    np.testing.assert_array_equal(bias.constraint(bias).numpy(), [0.0, 1.0])
