"""One vocabulary across every pack (CONTRIBUTING.md, "One vocabulary").

Every component a first-party or contrib pack registers, of every kind, names the same
concept the same way: Keras's names where Keras has the concept (``rate``, ``dropout``,
``recurrent_dropout``, ``training``, ``activation``, ``num_classes``, ``from_logits``),
the pack conventions otherwise (``n_units``, ``w_init``, ``b_init``, ``add_bias``). Nothing
is released: an old spelling is renamed, not kept as an alias (CHANGELOG.md records it).
"""

from __future__ import annotations

import inspect
import tomllib
from pathlib import Path
from typing import Any

import pytest

import tensorweave as tw

#: the distributions this repository ships (every pack folder, first-party and contrib)
ROOT = Path(__file__).resolve().parents[2]
PACKS = {
    tomllib.loads(p.read_text())["project"]["name"]
    for p in sorted(
        [*ROOT.glob("plugins/*/pyproject.toml"), *ROOT.glob("contrib/*/pyproject.toml")]
    )
}

#: names other libraries (or older versions of these packs) use -> the one vocabulary
OUTLIERS = {
    # regularisation
    "probability": "rate (a dropping layer) or dropout (inside another layer)",
    "keep_prob": "rate",
    "dropout_rate": "rate",
    "regularized": "training",
    "is_training": "training",
    "input_dropout": "dropout",
    "state_dropout": "recurrent_dropout",
    "input_dropconnect": "dropconnect",
    "state_dropconnect": "recurrent_dropconnect",
    # functions applied to a value
    "fn": "activation",
    "act": "activation",
    "activation_fn": "activation",
    "gate_fn": "gate_activation",
    # classes, logits
    "n_classes": "num_classes",
    "nb_classes": "num_classes",
    # the pack conventions for weights and sizes
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
    # convolution and pooling geometry (Keras's names)
    "stride": "strides",
    "dilation": "dilation_rate",
    "dilations": "dilation_rate",
    # weight penalties and projections (the pack convention, w_ and b_ as for initializers)
    "kernel_regularizer": "w_regularizer",
    "bias_regularizer": "b_regularizer",
    "kernel_constraint": "w_constraint",
    "bias_constraint": "b_constraint",
}
#: components whose parameter is another concept under an outlier's name, and why
EXEMPT = {
    # the core's tw.Lambda: its positional ``fn`` is the layer's operation itself
    ("layers", "Lambda.v1", "fn"),
    # the callback is its function (Keras's LambdaCallback takes one per event instead)
    ("callbacks", "LambdaCallback.v1", "fn"),
    # a window's step along a sequence of samples, not a convolution's strides
    ("processors", "window.v1", "stride"),
    ("datasets", "stdlib_chars.v1", "stride"),
}
#: the initializer options a layer may take (``*_init``); cells add the recurrent ``u_init``
INITIALIZERS = {"w_init", "b_init", "u_init"}


def _components() -> list[tuple[str, str, str]]:
    found = []
    for kind in sorted(tw.kinds()):
        for info in tw.registry(kind).infos():
            if info.distribution in PACKS:
                found.append((kind, info.distribution, info.name))
    return sorted(found)


COMPONENTS = _components()


def _load(kind: str, dist: str, name: str) -> Any:
    import warnings

    with warnings.catch_warnings():  # a deprecated registered alias is checked as its target
        warnings.simplefilter("ignore", DeprecationWarning)
        return tw.registry(kind)[f"{dist}:{name}"]


def _params(obj: Any) -> dict[str, inspect.Parameter]:
    """The parameters of a function, or of a class's constructors along its bases (a cell
    passes ``**options`` to ``Cell.__init__``, whose names are the cell's too)."""
    targets = [obj]
    if inspect.isclass(obj):
        targets = [k.__init__ for k in obj.__mro__ if "__init__" in vars(k)]
    out: dict[str, inspect.Parameter] = {}
    for target in targets:
        try:
            params = inspect.signature(target).parameters
        except (TypeError, ValueError):
            continue
        for p in params.values():
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != "self":
                out.setdefault(p.name, p)
    return out


def test_the_survey_covers_every_pack():
    dists = {d for _, d, _ in COMPONENTS}
    assert {
        "tensorweave-layers",
        "tensorweave-losses",
        "tensorweave-rnn",
        "tensorweave-data",
    } <= dists
    assert {"tensorweave-train", "tensorweave-store", "tensorweave-template"} <= dists
    kinds = {k for k, _, _ in COMPONENTS}
    assert {"layers", "cells", "losses", "metrics", "processors", "callbacks"} <= kinds


@pytest.mark.parametrize("kind, dist, name", COMPONENTS)
def test_component_speaks_the_one_vocabulary(kind, dist, name):
    obj = _load(kind, dist, name)
    params = _params(obj)
    wrong = {p: OUTLIERS[p] for p in params if p in OUTLIERS and (kind, name, p) not in EXEMPT}
    assert not wrong, f"{kind} {dist}:{name}: rename {wrong} (and write it in CHANGELOG.md)"
    for flag in ("training", "add_bias", "from_logits"):
        if flag in params:
            annotation = str(params[flag].annotation)
            assert annotation.startswith("bool"), f"{name}: {flag} is a bool flag"
    if "from_logits" in params:
        assert params["from_logits"].default is False, name  # Keras's default


#: what a loss or metric calls the expected values and the model's output, labels first
LABELS = {"labels", "ids"}
PREDICTIONS = {"predictions", "logits", "scores", "probabilities"}
NOT_THE_VOCABULARY = {
    "targets": "labels",
    "target": "labels",
    "y_true": "labels",
    "truth": "labels",
    "y_pred": "predictions",
    "outputs": "predictions",
    "preds": "predictions",
}
SCORED = [c for c in COMPONENTS if c[0] in ("losses", "metrics")]


@pytest.mark.parametrize("kind, dist, name", SCORED)
def test_losses_and_metrics_take_labels_first_then_predictions(kind, dist, name):
    obj = _load(kind, dist, name)
    if inspect.isclass(obj):
        return  # a streaming metric: its constructor takes options, not values
    positional = [
        p.name
        for p in inspect.signature(obj).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ][:2]
    wrong = {p: NOT_THE_VOCABULARY[p] for p in positional if p in NOT_THE_VOCABULARY}
    assert not wrong, f"{kind} {dist}:{name}: rename {wrong} (the one vocabulary)"
    if any(p in PREDICTIONS for p in positional):
        assert positional[0] in LABELS, (
            f"{kind} {dist}:{name} takes {positional}: labels first, then predictions, as every "
            "tensorweave and Keras loss and metric"
        )


LAYERS = [(d, n) for k, d, n in COMPONENTS if k == "layers" and d == "tensorweave-layers"]


@pytest.mark.parametrize("dist, name", LAYERS)
def test_layer_weights_follow_the_pack_convention(dist, name):
    params = _params(_load("layers", dist, name))
    inits = {p for p in params if p.endswith("_init")}
    assert inits <= INITIALIZERS, f"{name}: initializer options {sorted(inits - INITIALIZERS)}"
    # the bias switch and the bias initializer come together
    assert ("add_bias" in params) == ("b_init" in params), f"{name}: add_bias without b_init"
    if "add_bias" in params:
        assert params["add_bias"].default is True, f"{name}: add_bias should default to True"
        assert "w_init" in params, f"{name}: a layer with a bias has weights (w_init)"
    assert {"name", "share_state_with"} <= set(params), f"{name}: the layer contract"


def test_dropping_layers_take_rate_and_layers_with_inner_dropout_take_dropout():
    for name in ("Dropout.v1", "DropConnect.v1", "DropLookup.v1"):
        params = _params(tw.layers[name])
        assert "rate" in params and "training" in params, name
    assert {"dropout", "training"} <= set(_params(tw.layers["MHAttention.v1"]))
    for cell in ("LSTMCell.v1", "GRUCell.v1", "RNNCell.v1"):
        params = _params(tw.cells[cell])
        assert {"dropout", "recurrent_dropout", "output_dropout", "training"} <= set(params)
        assert {"dropconnect", "recurrent_dropconnect"} <= set(params)


def test_the_data_pack_processor_takes_num_classes():
    one_hot = tw.processors["one_hot.v1"]
    assert one_hot([1, 0], num_classes=3).tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    with pytest.raises(TypeError, match="n_classes"):
        one_hot([1, 0], n_classes=3)  # the old spelling is gone (never released)
    from tensorweave_data.pipeline import Pipeline

    pipe = Pipeline([{"@processors": "one_hot.v1", "num_classes": 3}], workers=0)
    assert pipe.to_config() == [{"@processors": "one_hot.v1", "num_classes": 3}]


def test_a_bare_name_resolves_the_same_way_everywhere():
    """``"Linear"`` means the latest ``Linear.vN`` wherever a component is named, through
    ``tw.resolve`` (the one rule), and an unknown name fails the same way."""
    seq = tw.Input(batch_shape=(None, None, 3))
    assert tw.layers["SeqMap.v1"](seq, "Linear", n_units=2).shape == (None, None, 2)
    rnn = tw.layers["RNN.v1"](seq, cell="LSTMCell", n_units=2)
    assert type(rnn.cell) is tw.cells["LSTMCell.v1"]
    fc = tw.layers["FC.v1"](tw.Input(n_units=3), n_units=2, activation="relu", w_init="ones")
    assert fc.shape == (None, 2)
    from tensorweave_data.pipeline import Pipeline

    pipe = Pipeline([{"@processors": "normalize", "std": 2.0}], workers=0)
    assert pipe([4.0]).tolist() == [2.0]
    assert tw.resolve("losses", "mse") is tw.losses["mse.v1"]
    messages = []
    for build in (
        lambda: tw.layers["SeqMap.v1"](seq, "Linaer"),
        lambda: tw.layers["RNN.v1"](seq, cell="LSTMCel", n_units=2),
        lambda: tw.layers["FC.v1"](tw.Input(n_units=3), n_units=2, activation="relo"),
    ):
        with pytest.raises(tw.UnknownComponentError) as err:
            build()
        messages.append(str(err.value))
    assert all("Close matches:" in m for m in messages), messages
    with pytest.raises(tw.config.ConfigError, match="close matches: normalize"):  # a config block
        Pipeline([{"@processors": "normalise"}])


#: reuse-only switches (not constructor options): which mask a reuse shares
REUSE_ONLY = {"shared_mask", "locked", "share_mask"}


@pytest.mark.parametrize("kind, dist, name", [c for c in COMPONENTS if c[0] in ("layers", "cells")])
def test_reuse_with_takes_per_use_options_by_their_constructor_names(kind, dist, name):
    cls = _load(kind, dist, name)
    if not inspect.isclass(cls):
        pytest.skip("a factory")
    ctor = _params(cls)
    reuse = inspect.signature(cls.reuse_with).parameters
    options = {
        p.name
        for p in reuse.values()
        if p.kind is p.KEYWORD_ONLY and p.name not in ("name", "share_state_with")
    }
    assert options - REUSE_ONLY <= set(ctor), f"{name}: reuse options {options - set(ctor)}"
    takes_any = any(p.kind is p.VAR_KEYWORD for p in reuse.values())
    if "training" in ctor:
        assert "training" in options or takes_any, f"{name}: reuse_with cannot set training"


#: pack -> its import package; each ``__init__`` is the pack's one door (``__all__``)
DOORS = {
    "tensorweave-layers": "tensorweave_layers",
    "tensorweave-losses": "tensorweave_losses",
    "tensorweave-rnn": "tensorweave_rnn",
    "tensorweave-data": "tensorweave_data",
    "tensorweave-train": "tensorweave_train",
    "tensorweave-store": "tensorweave_store",
    "tensorweave-keras": "tensorweave_keras",
    "tensorweave-template": "tensorweave_template",
    "tensorweave-conflict-demo": "tensorweave_conflict_demo",
}
#: the packs whose every registered component is also exported by name from the door
WHOLE_DOORS = ("tensorweave-layers", "tensorweave-losses", "tensorweave-rnn", "tensorweave-data")


@pytest.mark.parametrize("dist", sorted(DOORS))
def test_each_pack_exports_its_public_names_with_all_and_ships_py_typed(dist):
    import importlib.util
    from importlib.metadata import PackageNotFoundError, files

    from tensorweave.testing import check_lazy_package

    package = DOORS[dist]
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{dist} is not installed here")
    check_lazy_package(package)  # every __all__ name resolves (lazily)
    module = importlib.import_module(package)
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.origin is not None
    from pathlib import Path

    assert (Path(spec.origin).parent / "py.typed").is_file(), f"{dist} ships no py.typed"
    try:
        listed = [str(f) for f in files(dist) or []]
    except PackageNotFoundError:
        listed = []
    if listed and not any(f.endswith(".pth") or "__editable__" in f for f in listed):
        assert f"{package}/py.typed" in listed, f"{dist}: py.typed is not in the package data"
    if dist in WHOLE_DOORS:
        values = [getattr(module, n) for n in module.__all__]
        exported = {id(v) for v in values}  # a name, or a name in an exported submodule
        exported |= {id(a) for v in values if inspect.ismodule(v) for a in vars(v).values()}
        missing = [
            f"{kind}:{name}"
            for kind, d, name in COMPONENTS
            if d == dist
            and (kind, name) != ("layers", "Lambda.v1")  # the core's tw.Lambda
            and id(_load(kind, d, name)) not in exported
        ]
        assert not missing, f"{package}.__all__ lacks the registered {missing}"
