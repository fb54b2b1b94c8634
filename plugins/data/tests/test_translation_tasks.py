"""The synthetic translation tasks: targets are the reversed, sorted or ISO-dated sources,
the decoder's input is the target shifted right after the start id, padding is 0, the
examples are distinct and fixed by the seed."""

from __future__ import annotations

import datetime

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_data.translation_tasks import (
    DATE_FORMATS,
    END_ID,
    MONTHS,
    PAD_ID,
    START_ID,
    VOCAB,
    format_date,
    ids_to_text,
    text_to_ids,
)

make = tw.registry("datasets")["synthetic_translation.v1"]
STRPTIME = {
    "{day}": "%d",
    "{dd}": "%d",
    "{mm}": "%m",
    "{month}": "%B",
    "{mon}": "%b",
    "{year}": "%Y",
}


def _strptime(form: str) -> str:
    for placeholder, directive in STRPTIME.items():
        form = form.replace(placeholder, directive)
    return form


def _rows(splits):
    return [
        {k: v[i] for k, v in split.items()}
        for split in (splits.train, splits.valid)
        for i in range(len(split["source"]))
    ]


@settings(max_examples=5, deadline=None)
@given(
    task=st.sampled_from(["reverse", "sort"]),
    seed=st.integers(0, 2**31 - 1),
    lengths=st.tuples(st.integers(2, 6), st.integers(0, 4)),
)
def test_reverse_and_sort_targets_are_the_rewritten_sources(task, seed, lengths):
    low, extra = lengths
    d = make(task=task, n_samples=40, min_length=low, max_length=low + extra, seed=seed)
    assert d.train["source"].shape[1] == low + extra
    assert d.train["target"].shape[1] == low + extra + 1  # room for the end id
    for row in _rows(d):
        source, target = ids_to_text(row["source"]), ids_to_text(row["target"])
        assert low <= len(source) <= low + extra and set(source) <= set(
            "abcdefghijklmnopqrstuvwxyz"
        )
        assert target == (source[::-1] if task == "reverse" else "".join(sorted(source)))


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_dates_parse_back_to_their_iso_target(seed):
    d = make(task="dates", n_samples=60, seed=seed)
    for row in _rows(d):
        source, target = ids_to_text(row["source"]), ids_to_text(row["target"])
        want = datetime.date.fromisoformat(target)
        assert target == want.isoformat() and 1950 <= want.year <= 2049
        parsed = set()
        for form in DATE_FORMATS:
            try:
                parsed.add(datetime.datetime.strptime(source, _strptime(form)).date())
            except ValueError:
                continue
        assert parsed == {want}, source


@settings(max_examples=5, deadline=None)
@given(task=st.sampled_from(["reverse", "sort", "dates"]), seed=st.integers(0, 2**31 - 1))
def test_decoder_input_is_the_target_shifted_right_and_padding_is_zero(task, seed):
    d = make(task=task, n_samples=30, seed=seed)
    for split in (d.train, d.valid):
        source, dec, target = split["source"], split["decoder_input"], split["target"]
        assert source.dtype == dec.dtype == target.dtype == np.int32
        assert (dec[:, 0] == START_ID).all()
        np.testing.assert_array_equal(
            dec[:, 1:], np.where(target == END_ID, PAD_ID, target)[:, :-1]
        )
        n_target = (target != PAD_ID).sum(1)
        assert ((dec != PAD_ID).sum(1) == n_target).all()  # same real length
        assert (target[np.arange(len(target)), n_target - 1] == END_ID).all()
        for ids in (source, dec, target):  # padding only at the end
            real = ids != PAD_ID
            assert (np.sort(real, axis=1)[:, ::-1] == real).all()
        assert not np.isin(source, [START_ID, END_ID]).any()


def test_the_seed_fixes_the_examples_and_no_source_repeats():
    a = make(task="dates", n_samples=200, seed=3)
    b = make(task="dates", n_samples=200, seed=3)
    c = make(task="dates", n_samples=200, seed=4)
    for field in ("source", "decoder_input", "target"):
        np.testing.assert_array_equal(a.train[field], b.train[field])
        np.testing.assert_array_equal(a.valid[field], b.valid[field])
    assert not np.array_equal(a.train["source"], c.train["source"])
    sources = [ids_to_text(s) for s in np.concatenate([a.train["source"], a.valid["source"]])]
    assert len(set(sources)) == 200 and len(a.valid["source"]) == 20


def test_info_names_the_vocabulary_and_the_widths():
    d = make(task="sort", n_samples=10, max_length=7)
    assert d.info["vocab"] == VOCAB and d.info["n_classes"] == len(VOCAB)
    assert (d.info["pad_id"], d.info["start_id"], d.info["end_id"]) == (0, 1, 2)
    assert (d.info["source_length"], d.info["target_length"]) == (7, 8)
    assert make(task="dates", n_samples=10).info["source_length"] == len("september 30, 2026")


def test_text_and_ids_round_trip_and_dates_are_english():
    assert ids_to_text(text_to_ids(["nov 27, 2026"], 14)[0]) == "nov 27, 2026"
    assert format_date(datetime.date(2026, 11, 27), "{day} {month} {year}") == "27 november 2026"
    assert format_date(datetime.date(2026, 3, 7), "{dd}/{mm}/{year}") == "07/03/2026"
    assert len(MONTHS) == 12


def test_bad_options_say_which_and_how_to_fix():
    with pytest.raises(tw.ArgumentError, match=r"task must be one of .*'dates'.*Fix"):
        make(task="translate")
    with pytest.raises(tw.ArgumentError, match="min_length=5 is above max_length=2"):
        make(task="reverse", min_length=5, max_length=2)
    with pytest.raises(
        tw.ArgumentError, match=r"could not draw 100 distinct.*Fix: lower n_samples"
    ):
        make(task="sort", n_samples=100, min_length=1, max_length=1)
