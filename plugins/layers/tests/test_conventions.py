"""Every layer this pack registers names the same option the same way (README, "Argument
names"): ``n_units``, ``w_init``, ``b_init``, ``add_bias``, ``activation``, ``probability``,
``training``, ``name``, ``share_state_with``."""

import inspect

import pytest

import tensorweave as tw

DISTRIBUTION = "tensorweave-layers"

#: names other libraries use for the options above, never used by this pack
OUTLIERS = {
    "init": "w_init",
    "kernel_init": "w_init",
    "kernel_initializer": "w_init",
    "weight_init": "w_init",
    "bias_init": "b_init",
    "bias_initializer": "b_init",
    "bias": "add_bias",
    "use_bias": "add_bias",
    "units": "n_units",
    "filters": "n_units",
    "out_features": "n_units",
    "dropout": "probability",
    "rate": "probability",
    "keep_prob": "probability",
    "is_training": "training",
    "act": "activation",
}
#: the initializer options a layer may take (``*_init``)
INITIALIZERS = {"w_init", "b_init"}


def _own_layers() -> list[str]:
    return sorted(i.name for i in tw.layers.infos() if i.distribution == DISTRIBUTION)


def _params(name: str) -> dict[str, inspect.Parameter]:
    factory = tw.layers[f"{DISTRIBUTION}:{name}"]
    return dict(inspect.signature(factory).parameters)


def test_the_survey_covers_part_a_and_part_b():
    names = set(_own_layers())
    assert {"Linear.v1", "FC.v1", "Lookup.v1", "Conv1D.v1", "Conv2D.v1"} <= names
    assert {"DropConnect.v1", "MHAttention.v1", "BatchNorm.v1", "LayerNorm.v1"} <= names


@pytest.mark.parametrize("name", _own_layers())
def test_layer_uses_the_pack_argument_names(name):
    params = _params(name)
    wrong = {p: OUTLIERS[p] for p in params if p in OUTLIERS}
    assert not wrong, f"{name}: rename {wrong} (old name -> pack convention)"
    inits = {p for p in params if p.endswith("_init")}
    assert inits <= INITIALIZERS, f"{name}: initializer options {sorted(inits - INITIALIZERS)}"
    # the bias switch and the bias initializer come together
    assert ("add_bias" in params) == ("b_init" in params), f"{name}: add_bias without b_init"
    if "add_bias" in params:
        assert params["add_bias"].default is True, f"{name}: add_bias should default to True"
        assert "w_init" in params, f"{name}: a layer with a bias has weights (w_init)"
    for flag in ("training", "add_bias"):
        if flag in params:
            assert params[flag].annotation in (bool, "bool"), f"{name}: {flag} is a bool flag"
    assert {"name", "share_state_with"} <= set(params), f"{name}: the layer contract"


def test_stochastic_layers_name_their_rate_probability():
    for name in ("Dropout.v1", "DropConnect.v1", "DropLookup.v1", "MHAttention.v1"):
        params = _params(name)
        assert "probability" in params and "training" in params, name
