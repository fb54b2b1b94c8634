"""The first-party packs' counterpart tables: each row names a registered component, each
``keras=`` counterpart is compared in that pack's tests, and the names people know from
Keras and TensorLayer lead to the component that does their job."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import tensorweave as tw
from tensorweave.registries.counterparts import counterparts

ROOT = Path(__file__).resolve().parents[2]
PACKS = {
    tomllib.loads(p.read_text())["project"]["name"]: p.parent
    for p in sorted((ROOT / "plugins").glob("*/pyproject.toml"))
}
FIRST_PARTY_ROWS = [(dist, row) for dist, row in counterparts() if dist in PACKS]


def _registered(kind: str, name: str) -> bool:
    return kind in tw.kinds() and name in tw.registry(kind)


def test_every_first_party_pack_with_keras_counterparts_declares_a_table():
    declaring = {dist for dist, _ in FIRST_PARTY_ROWS}
    assert {
        "tensorweave-layers",
        "tensorweave-losses",
        "tensorweave-rnn",
        "tensorweave-train",
    } <= declaring


def test_every_row_names_a_registered_component():
    unknown = [
        f"{dist}: {row.kind} {row.component}"
        for dist, row in FIRST_PARTY_ROWS
        if row.component and not _registered(row.kind, row.component)
    ]
    assert unknown == []


def test_every_keras_counterpart_is_compared_in_the_packs_tests():
    untested = []
    for dist, row in FIRST_PARTY_ROWS:
        if not row.keras or not _registered(row.kind, row.component):
            continue
        name = row.keras.rpartition(".")[2]
        tests = PACKS[dist] / "tests"
        if not any(
            "keras" in text and re.search(rf"\b{name}\b", text)
            for text in (p.read_text() for p in tests.rglob("test_*.py"))
        ):
            untested.append(f"{row.component}: {row.keras} (no test of {dist} uses it)")
    assert untested == []


@pytest.mark.parametrize(
    ("kind", "asked", "answer"),
    [
        ("layers", "Dense.v1", "in tensorweave: FC.v1 or Linear.v1"),
        ("layers", "Embedding.v1", "in tensorweave: Lookup.v1"),
        ("layers", "LSTM.v1", 'in tensorweave: RNN.v1 with cell="LSTMCell.v1"'),
        ("layers", "BatchNormalization", "in tensorweave: BatchNorm.v1"),
        ("losses", "categorical_crossentropy", "in tensorweave: categorical_cross_entropy.v1"),
        ("callbacks", "TerminateOnNaN", "in tensorweave: StopOnNaN.v1"),
    ],
)
def test_names_people_know_lead_to_the_component(kind, asked, answer):
    with pytest.raises(tw.UnknownComponentError) as caught:
        tw.registry(kind)[asked]
    assert answer in str(caught.value)


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("DeConv2d", "Conv2DTranspose.v1"),
        ("SubpixelConv2d", "DepthToSpace.v1"),
    ],
)
def test_tensorlayer_names_lead_to_the_component_once_it_is_installed(asked, answer):
    if not _registered("layers", answer):
        pytest.skip(f"{answer} is not registered in this environment")
    with pytest.raises(tw.UnknownComponentError, match=re.escape(f"in tensorweave: {answer}")):
        tw.layers[asked]
