"""Counterpart tables: the packs' Keras/TensorLayer names, read only when a lookup fails."""

from __future__ import annotations

import warnings

import pytest

import tensorweave as tw
from tensorweave import config
from tensorweave.registries import counterparts_of, known_as
from tests.fakes import LAYER_SOURCE, counted

TABLE_SOURCE = """
import tensorweave as tw

COUNTERPARTS = (
    tw.Counterpart("Thing.v1", keras="keras.layers.Blob", also=("tensorlayer.layers.BlobLayer",)),
    tw.Counterpart("Thing.v1", keras="keras.layers.Wobble", usage='cell="WobbleCell.v1"'),
)
"""


@pytest.fixture
def pack(fake_dists):
    return fake_dists.add(
        "known-names",
        entry_points={
            "layers": {"Thing.v1": "layer:Thing"},
            "counterparts": {"known_names": "table:COUNTERPARTS"},
        },
        modules={"layer": LAYER_SOURCE, "table": counted(TABLE_SOURCE)},
    )


def test_an_unknown_keras_name_says_what_does_its_job(pack):
    with pytest.raises(tw.UnknownComponentError) as caught:
        tw.layers["Blob.v1"]
    assert "Blob is keras.layers.Blob elsewhere; in tensorweave: Thing.v1" in str(caught.value)
    with pytest.raises(tw.UnknownComponentError, match=r'Thing\.v1 with cell="WobbleCell\.v1"'):
        tw.layers["Wobble.v1"]
    with pytest.raises(tw.UnknownComponentError, match=r"tensorlayer\.layers\.BlobLayer"):
        tw.resolve("layers", "BlobLayer", owner="Net", option="block")


def test_a_config_naming_a_keras_layer_is_told_the_equivalent(pack):
    errors = config.validate(
        {"m": {"nodes": {"x": {"input": [3]}, "h": {"@layers": "Blob.v1", "inputs": "x"}}}}
    )
    assert any("in tensorweave: Thing.v1" in message for _, message in errors)


def test_tables_are_read_only_when_a_lookup_fails(pack):
    from tests import fakes

    table = pack.module("table")
    assert tw.layers[f"{pack.name}:Thing.v1"] is not None
    assert "Thing.v1" in tw.layers and table not in fakes.IMPORTS
    with pytest.raises(tw.UnknownComponentError):
        tw.layers["Blob.v1"]
    assert table in fakes.IMPORTS


def test_rows_are_found_by_component_and_by_foreign_name(pack):
    assert [r.keras for r in counterparts_of("layers", f"{pack.name}:Thing.v1")] == [
        "keras.layers.Blob",
        "keras.layers.Wobble",
    ]
    assert [r.component for r in known_as("layers", "keras.layers.Blob")] == ["Thing.v1"]
    assert known_as("losses", "Blob") == []  # rows belong to a kind


def test_a_broken_table_is_recorded_and_lookups_still_explain(fake_dists):
    bad = fake_dists.add(
        "bad-table",
        entry_points={"counterparts": {"bad": "table:ROWS"}},
        modules={"table": "ROWS = ('not a row',)\n"},
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(tw.UnknownComponentError, match=r"no layers component 'Blob\.v1'"):
            tw.layers["Blob.v1"]
    assert any(bad.name in str(w.message) for w in caught)
    [failure] = [f for f in tw.plugins.failures() if f.distribution == bad.name]
    assert "expected tw.Counterpart rows" in str(failure)
