"""Every first-party layer of the contract set loads by its registered name, is the right object, and builds by name."""

import pytest
import tensorflow as tf

import tensorweave as tw

BUILT_BY_NAME = [
    "Linear", "Activation", "FC", "Add", "Multiply", "Concat", "Merge", "Residual", "Gate",
    "CoupledGate", "Reshape", "Transpose", "OneHot", "ToSparse", "ToDense", "Lookup", "Param",
    "Constant", "Lambda",
]  # fmt: skip


@pytest.mark.parametrize("name", BUILT_BY_NAME)
def test_layer_registered_versioned(name):
    cls = tw.layers[f"tensorweave-layers:{name}.v1"]
    assert issubclass(cls, tw.Layer) and cls.__name__ == name
    assert tw.layers.get(f"tensorweave-layers:{name}") is cls
    assert tw.layers.info(f"{name}.v1").distribution in ("tensorweave-layers",)


def test_lambda_is_the_core_lambda():
    assert tw.layers["tensorweave-layers:Lambda.v1"] is tw.Lambda
    x = tw.Input(n_units=2)
    y = tw.layers["tensorweave-layers:Lambda.v1"](tf.math.square, x)
    assert y(tf.constant([[3.0, -1.0]])).numpy().tolist() == [[9.0, 1.0]]


def test_ops_and_overloading_work_with_pack_layers():
    x = tw.Input(n_units=3)
    h = tw.layers["tensorweave-layers:Linear.v1"](x, 2, w_init="ones", add_bias=False)
    y = tw.ops.erf(h * 0.0) + 1.0
    assert y(tf.ones([1, 3])).numpy().tolist() == [[1.0, 1.0]]


def test_own_defaults_win_when_another_pack_offers_the_same_name(monkeypatch):
    """While another distribution also offers "glorot_uniform.v1", the bare name is
    ambiguous (tw.resolve raises, naming it); this pack's defaults are qualified names,
    so its layers still build with this pack's initializers and activations."""
    real_get = tw.initializers.get

    def ambiguous(name, *args):
        if ":" not in name:
            raise tw.ComponentConflictError(f"{name!r} is offered by several distributions")
        return real_get(name, *args)

    monkeypatch.setattr(tw.initializers, "get", ambiguous)
    layer = tw.layers["tensorweave-layers:FC.v1"](tw.Input(n_units=3), 2, activation="relu")
    assert layer.shape == (None, 2)
    with pytest.raises(tw.ComponentConflictError, match="'ones'"):
        tw.layers["tensorweave-layers:Linear.v1"](tw.Input(n_units=3), 2, w_init="ones")
    layer = tw.layers["tensorweave-layers:Linear.v1"](
        tw.Input(n_units=3), 2, w_init="tensorweave-layers:ones"
    )
    assert layer.weights.numpy().tolist() == [[1.0, 1.0]] * 3
    with pytest.raises(tw.UnknownComponentError, match="w_init='other:ones'"):
        tw.layers["tensorweave-layers:Linear.v1"](tw.Input(n_units=3), 2, w_init="other:ones")
