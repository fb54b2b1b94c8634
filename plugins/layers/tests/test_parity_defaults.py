"""Keras's defaults where we use Keras's names (#34): a component with a Keras counterpart,
built with no options (only those Keras requires), computes what the Keras layer built with
no options computes (same weights in, same outputs and gradients out); every default that
differs is a deliberate difference listed in the counterparts table, which is the table of
docs/catalogue.md and what ``tensorweave describe`` shows."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import keras
import numpy as np
import pytest

import tensorweave as tw
from tensorweave.registries.counterparts import counterparts, differences_table
from tensorweave_layers.counterparts import PREPROCESSING

ROOT = Path(__file__).resolve().parents[3]
K = keras.layers
#: our option -> the Keras options it is (a component's own names, Keras's spelling)
NAMES = {
    "n_units": ("units", "filters"),
    "w_init": ("kernel_initializer", "embeddings_initializer", "depthwise_initializer"),
    "b_init": ("bias_initializer",),
    "u_init": ("recurrent_initializer",),
    "add_bias": ("use_bias",),
    "w_regularizer": ("kernel_regularizer",),
    "b_regularizer": ("bias_regularizer",),
    "w_constraint": ("kernel_constraint",),
    "b_constraint": ("bias_constraint",),
    "n_heads": ("num_heads",),
}
IGNORED = {"name", "share_state_with", "training", "dtype"}


def _plain(value: object) -> object:
    if isinstance(value, str):
        value = value.rpartition(":")[2].removesuffix(".v1").lower()
    return tuple(value) if isinstance(value, list) else value


def _same(ours: object, theirs: object) -> bool:
    if isinstance(theirs, tuple) and isinstance(ours, int):  # 1 == ((1, 1), (1, 1))
        flat = np.asarray(theirs).ravel()
        return bool(flat.size) and all(v == ours for v in flat)
    return _plain(ours) == _plain(theirs)


def _rows():
    for dist, row in counterparts():
        if dist != "tensorweave-layers" or not row.component:  # the rnn pack checks its own
            continue
        for name in row.known_names:
            if name.startswith("keras.layers.") and hasattr(K, name.rpartition(".")[2]):
                yield row, getattr(K, name.rpartition(".")[2])


def _undeclared(row, keras_class) -> list[str]:
    ours = tw.registry(row.kind)[row.component]
    target = ours.__init__ if inspect.isclass(ours) else ours
    theirs = inspect.signature(keras_class.__init__).parameters
    declared = {name.strip() for diff in row.differs for name in diff.option.split(",")}
    found = []
    for option, param in inspect.signature(target).parameters.items():
        if param.default is inspect.Parameter.empty or option in IGNORED | declared:
            continue
        default = getattr(ours, f"default_{option}", param.default)  # None: the class's
        keras_name = next((n for n in (option, *NAMES.get(option, ())) if n in theirs), None)
        if keras_name is None or theirs[keras_name].default is inspect.Parameter.empty:
            continue  # no Keras option, or one Keras requires: a Keras program passes it
        if not _same(default, theirs[keras_name].default):
            found.append(f"{option}={default!r} (Keras {theirs[keras_name].default!r})")
    return found


ROWS = list(_rows())


@pytest.mark.parametrize(
    ("row", "keras_class"), ROWS, ids=[f"{r.component}-{k.__name__}" for r, k in ROWS]
)
def test_every_default_is_keras_s_or_a_declared_difference(row, keras_class):
    undeclared = _undeclared(row, keras_class)
    assert not undeclared, (
        f"{row.component} differs from keras.layers.{keras_class.__name__} in {undeclared}. "
        "Fix: take Keras's default, or list it in the row's differs= with the reason."
    )


# (ours, the options both need, Keras's class, Keras's spelling of them, input shape)
CASES = [
    ("FC.v1", {"n_units": 3}, K.Dense, {"units": 3}, (2, 4)),
    ("Conv1D.v1", {"n_units": 3, "kernel_size": 3}, K.Conv1D, {"filters": 3, "kernel_size": 3},
     (2, 7, 2)),
    ("Conv2D.v1", {"n_units": 3, "kernel_size": 3}, K.Conv2D, {"filters": 3, "kernel_size": 3},
     (2, 6, 5, 2)),
    ("Conv3D.v1", {"n_units": 2, "kernel_size": 2}, K.Conv3D, {"filters": 2, "kernel_size": 2},
     (2, 3, 4, 4, 2)),
    ("Conv1DTranspose.v1", {"n_units": 3, "kernel_size": 3}, K.Conv1DTranspose,
     {"filters": 3, "kernel_size": 3}, (2, 5, 2)),
    ("Conv2DTranspose.v1", {"n_units": 3, "kernel_size": 3}, K.Conv2DTranspose,
     {"filters": 3, "kernel_size": 3}, (2, 4, 3, 2)),
    ("Conv3DTranspose.v1", {"n_units": 2, "kernel_size": 2}, K.Conv3DTranspose,
     {"filters": 2, "kernel_size": 2}, (2, 2, 3, 3, 2)),
    ("DepthwiseConv2D.v1", {"kernel_size": 3}, K.DepthwiseConv2D, {"kernel_size": 3},
     (2, 5, 5, 3)),
    ("SeparableConv1D.v1", {"n_units": 4, "kernel_size": 3}, K.SeparableConv1D,
     {"filters": 4, "kernel_size": 3}, (2, 6, 3)),
    ("SeparableConv2D.v1", {"n_units": 4, "kernel_size": 3}, K.SeparableConv2D,
     {"filters": 4, "kernel_size": 3}, (2, 5, 5, 3)),
    ("LayerNorm.v1", {}, K.LayerNormalization, {}, (2, 3, 4)),
    ("Cropping1D.v1", {}, K.Cropping1D, {}, (2, 5, 2)),
    ("Cropping2D.v1", {}, K.Cropping2D, {}, (2, 5, 4, 2)),
    ("Cropping3D.v1", {}, K.Cropping3D, {}, (2, 4, 4, 4, 1)),
    ("ZeroPadding2D.v1", {}, K.ZeroPadding2D, {}, (2, 3, 3, 2)),
    ("MaxPool2D.v1", {}, K.MaxPooling2D, {}, (2, 4, 4, 2)),
]  # fmt: skip


def _paired(ours: tw.Layer, ref: keras.layers.Layer) -> tuple[list, list]:
    """Our variables and Keras's, paired in Keras's order by shape."""
    mine = list(ours.trainable_variables)
    pairs = []
    for theirs in ref.trainable_weights:
        fits = [v for v in mine if tuple(v.shape) == tuple(theirs.shape)]
        named = [v for v in fits if v.name.rpartition("/")[2].split(":")[0] == theirs.name]
        match = (named or fits)[0]
        mine = [v for v in mine if v is not match]
        pairs.append((match, theirs))
    assert not mine, f"weights of ours with no Keras counterpart: {[v.name for v in mine]}"
    return [m for m, _ in pairs], [t for _, t in pairs]


@pytest.mark.parametrize(
    ("name", "options", "keras_class", "keras_options", "shape"),
    CASES,
    ids=[f"{c[0]}-{c[2].__name__}" for c in CASES],
)
def test_no_options_computes_what_keras_computes_with_no_options(
    parity, randn, name, options, keras_class, keras_options, shape
):
    ours = tw.layers[name](tw.Input(shape=shape[1:]), **options)
    ref = keras_class(**keras_options)
    ref.build((None, *shape[1:]))
    for weight in ref.trainable_weights:  # not Keras's zeros/ones: every weight counts
        weight.assign(np.random.default_rng(3).standard_normal(weight.shape) * 0.5)
    weights, reference_weights = _paired(ours, ref)
    parity(ours, ref, [randn(*shape)], weights=weights, reference_weights=reference_weights)


def test_fc_is_linear_by_default_as_dense():
    x = tw.Input(n_units=2, value=[[1.0, -3.0]])
    fc = tw.layers["FC.v1"](x, 2, w_init="ones")
    assert fc().numpy().tolist() == [[-2.0, -2.0]]  # not ReLU'd to zeros


def test_the_encoder_block_can_be_the_keras_io_block():
    """keras.io's text-classification block: ``MultiHeadAttention(2, key_dim=32)`` on a
    width of 32, a feed-forward of 32 and two layer norms."""
    x = tw.Input(batch_shape=(None, 10, 32))
    block = tw.layers["TransformerEncoderBlock.v1"](x, n_heads=2, intermediate_dim=32, head_dim=32)
    inputs = keras.Input((10, 32))
    attention = K.MultiHeadAttention(num_heads=2, key_dim=32)(inputs, inputs)
    h = K.LayerNormalization()(inputs + attention)
    ffn = K.Dense(32)(K.Dense(32, activation="relu")(h))
    keras_block = keras.Model(inputs, K.LayerNormalization()(h + ffn))
    ours = sum(int(np.prod(v.shape)) for v in block.trainable_variables)
    assert ours == keras_block.count_params() == 10_656
    default = tw.layers["TransformerEncoderBlock.v1"](x, n_heads=2, intermediate_dim=32)
    assert sum(int(np.prod(v.shape)) for v in default.trainable_variables) == 6_464


def test_the_doc_table_is_the_counterparts_data():
    doc = (ROOT / "docs" / "catalogue.md").read_text(encoding="utf-8")
    heading = "## Deliberate differences from Keras"
    assert doc.count(heading) == 1
    first_party = {
        p.parent.name for p in (ROOT / "plugins").glob("*/pyproject.toml")
    }  # the packs docs/catalogue.md is made of
    rows = [row for dist, row in counterparts() if dist.removeprefix("tensorweave-") in first_party]
    assert differences_table(rows) in doc.split(heading, 1)[1]
    assert "| `l1_l2.v1` | `l1, l2` |" in doc


def _describe(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "tensorweave", "describe", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_describe_shows_a_component_s_deliberate_differences():
    done = _describe("l1_l2.v1", "--kind", "regularizers")
    assert done.returncode == 0, done.stderr
    assert "Deliberate differences from Keras" in done.stdout
    assert "l1, l2: 0.01, 0.01 here, 0.0, 0.0 in Keras" in done.stdout
    done = _describe("LayerNorm.v1")
    assert "keras.layers.LayerNormalization" in done.stdout and "same defaults" in done.stdout


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("ReLU", 'Activation.v1 with activation="relu"'),
        ("LeakyReLU", 'Activation.v1 with activation="leaky_relu"'),
        ("Normalization", "Normalization.v1"),
        ("TextVectorization", "TextVectorization.v1"),
        ("MixUp", "not available yet: see issue #36 (preprocessing layers)"),
        ("StringLookup", "StringLookup.v1"),
        ("Dense", "FC.v1"),
    ],
)
def test_describe_a_keras_name_points_at_the_answer(asked, answer):
    done = _describe(asked)
    assert answer in done.stdout + done.stderr


def _answer(name: str) -> str:
    from tensorweave.registries.counterparts import suggestion

    for kind, reg in tw.kinds().items():
        if name in reg or reg.latest(name) is not None:
            return f"{kind}:{reg.latest(name) or name}"
        if line := suggestion(kind, name, reg.__contains__):
            return line
    return ""


def test_every_keras_layer_name_gets_an_answer():
    names = [n for n in dir(K) if n[:1].isupper()]
    unanswered = [n for n in names if not _answer(n)]
    assert unanswered == [], f"describe gives no answer for keras.layers.{unanswered}"
    assert all(n in names for n in PREPROCESSING)


def test_a_preprocessing_name_not_built_yet_points_at_its_issue():
    for name in ("MixUp", "RandomShear", "AugMix"):
        assert "issue #36" in _answer(name)


def test_a_built_preprocessing_name_points_at_its_component():
    for name in ("Normalization", "Rescaling", "Discretization", "StringLookup",
                 "IntegerLookup", "CategoryEncoding", "Hashing", "RandomFlip", "RandomContrast",
                 "RandomBrightness", "Resizing", "CenterCrop", "RandomRotation", "RandomZoom",
                 "RandomTranslation", "RandomCrop", "TextVectorization"):  # fmt: skip
        assert _answer(name) == f"layers:{name}.v1"
        assert name not in PREPROCESSING
