"""Processors: numeric oracles, field handling and registration."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw

NAMES = [
    "normalize.v1",
    "one_hot.v1",
    "cast.v1",
    "reshape.v1",
    "tokenize_chars.v1",
    "detokenize_chars.v1",
    "window.v1",
    "shift_targets.v1",
    "shuffle.v1",
    "take.v1",
]


def test_every_processor_is_registered_with_provider() -> None:
    for name in NAMES:
        assert callable(tw.processors[name])
        assert tw.processors.info(name).distribution == "tensorweave-data"


@given(st.lists(st.floats(-100, 100), min_size=1, max_size=20), st.floats(0.5, 10))
def test_normalize_matches_numpy(values: list[float], std: float) -> None:
    out = tw.processors["normalize.v1"](np.array(values), mean=1.0, std=std)
    np.testing.assert_allclose(out, (np.array(values, "float32") - 1.0) / np.float32(std), 1e-5)
    assert out.dtype == np.float32


def test_field_applies_to_one_field_only() -> None:
    sample = {"x": np.array([2.0, 4.0]), "y": 7}
    out = tw.processors["normalize.v1"](sample, std=2.0, field="x")
    assert out["x"].tolist() == [1.0, 2.0] and out["y"] == 7
    assert sample["x"].tolist() == [2.0, 4.0]  # not modified in place
    with pytest.raises(KeyError, match="no field 'z'"):
        tw.processors["normalize.v1"](sample, field="z")


def test_one_hot_and_range_check() -> None:
    fn = tw.processors["one_hot.v1"]
    np.testing.assert_array_equal(fn(np.array([1, 0]), num_classes=2), [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        fn(np.array([3]), num_classes=3)


@given(st.text(alphabet="abcdef", max_size=30))
def test_tokenize_detokenize_roundtrip(text: str) -> None:
    vocab = "\x00abcdef"
    ids = tw.processors["tokenize_chars.v1"](text, vocab=vocab)
    assert ids.dtype == np.int32 and len(ids) == len(text)
    assert tw.processors["detokenize_chars.v1"](ids, vocab=vocab) == text


def test_unknown_chars_map_to_unknown_id() -> None:
    assert tw.processors["tokenize_chars.v1"]("aZ", vocab="?a").tolist() == [1, 0]


@given(st.integers(0, 40), st.integers(1, 8), st.integers(1, 8))
def test_window_matches_slicing(n: int, size: int, stride: int) -> None:
    seq = np.arange(n)
    got = tw.processors["window.v1"](seq, size=size, stride=stride)
    want = [seq[s : s + size] for s in range(0, n - size + 1, stride)]
    assert [w.tolist() for w in got] == [w.tolist() for w in want]


def test_window_on_dict_and_shift() -> None:
    wins = tw.processors["window.v1"]({"ids": np.arange(7), "doc": 1}, size=4, field="ids")
    assert len(wins) == 1 and wins[0]["doc"] == 1
    s = tw.processors["shift_targets.v1"](wins[0])
    assert s["x"].tolist() == [0, 1, 2] and s["y"].tolist() == [1, 2, 3] and "ids" not in s


def test_shuffle_is_seeded_permutation_and_take() -> None:
    items = list(range(50))
    a = tw.processors["shuffle.v1"](items, seed=3)
    assert sorted(a) == items and a != items
    assert a == tw.processors["shuffle.v1"](items, seed=3)
    assert a != tw.processors["shuffle.v1"](items, seed=4)
    assert tw.processors["take.v1"](items, n=3) == [0, 1, 2]


def test_reshape_and_cast() -> None:
    out = tw.processors["reshape.v1"](np.arange(64), shape=[8, 8, 1])
    assert out.shape == (8, 8, 1)
    assert tw.processors["cast.v1"](np.array([1.7]), dtype="int32").tolist() == [1]


def test_predictor_steps_moved_from_the_train_pack():
    """scale, argmax and labels are data steps: offered by tensorweave-data only."""
    for name in ("scale.v1", "argmax.v1", "labels.v1"):
        assert tw.processors.providers(name) == ["tensorweave-data"], name
    scale, argmax, labels = (tw.processors[n] for n in ("scale.v1", "argmax.v1", "labels.v1"))
    pixels = np.array([[0, 255], [51, 102]], "uint8")
    np.testing.assert_allclose(scale(pixels, factor=1 / 255), [[0.0, 1.0], [0.2, 0.4]], rtol=1e-6)
    assert argmax([[0.1, 0.9], [0.7, 0.3]]).tolist() == [1, 0]
    assert labels(np.array([1, 0]), names=["cat", "dog"]).tolist() == ["dog", "cat"]
    sample = {"x": np.array([2.0]), "y": 1}
    assert scale(sample, factor=3.0, field="x")["x"].tolist() == [6.0]
    assert labels(sample, names=["a", "b"], field="y")["y"] == "b"
