"""``as_batches`` on arrays (shuffled batches gathered a few at a time, same order) and Keras's
``validation_split``."""

from __future__ import annotations

import numpy as np
import pytest
from twtrain_helpers import regression_data, regression_model

import tensorweave as tw
from tensorweave_train import as_batches
from tensorweave_train.loop import data as data_module


def _feeds():
    tw.reset_names()
    return [tw.Input(n_units=3, name="x"), tw.Input(n_units=1, name="t", dtype="int64")]


def _arrays(n):
    x = np.arange(n * 3, dtype="float32").reshape(n, 3)
    return {"x": x, "t": np.arange(n, dtype="int64")[:, None]}


@pytest.mark.parametrize("gather_bytes", [1, 250, 1 << 20])  # 1, 2 and all batches at once
@pytest.mark.parametrize("skip", [0, 1, 4])
def test_shuffled_batches_do_not_depend_on_how_many_are_gathered_at_once(
    monkeypatch, gather_bytes, skip
):
    data, feeds = _arrays(23), _feeds()  # 5 batches of 5 (the last of 3), a row 20 bytes
    monkeypatch.setattr(data_module, "GATHER_BYTES", gather_bytes)
    got = list(as_batches(data, feeds, batch_size=5, shuffle=True, seed=4).epoch(2, skip=skip))
    order = np.random.default_rng([4, 2]).permutation(23)  # the documented order
    want = [order[b * 5 : (b + 1) * 5] for b in range(skip, 5)]
    assert [len(x) for x, _ in got] == [len(w) for w in want]
    for (x, t), rows in zip(got, want, strict=True):
        np.testing.assert_array_equal(t[:, 0], rows)
        np.testing.assert_array_equal(x, data["x"][rows])


def test_shuffled_batches_of_one_gather_are_consecutive_slices_of_one_block():
    data, feeds = _arrays(40), _feeds()
    batches = list(as_batches(data, feeds, batch_size=8, shuffle=True).epoch(0))
    xs = [x for x, _ in batches]
    assert all(x.base is xs[0].base and x.base is not None for x in xs)  # one gathered copy
    assert not np.shares_memory(xs[0], data["x"])  # never a view of the caller's array
    starts = [x.__array_interface__["data"][0] for x in xs]
    assert np.diff(starts).tolist() == [xs[0].nbytes] * 4


def test_unshuffled_batches_are_slices_of_the_data():
    data, feeds = _arrays(10), _feeds()
    batches = list(as_batches(data, feeds, batch_size=4).epoch(0))
    assert [len(x) for x, _ in batches] == [4, 4, 2]
    assert all(np.shares_memory(x, data["x"]) for x, _ in batches)


def test_validation_split_mistakes_are_clear() -> None:
    model = regression_model()
    data = regression_data(n=8)
    with pytest.raises(tw.ArgumentError, match="not both"):
        model.train(data, validation=data, validation_split=0.5, verbose=0)
    with pytest.raises(tw.ArgumentError, match="between 0 and 1"):
        model.train(data, validation_split=1.5, verbose=0)
    with pytest.raises(tw.ArgumentError, match="verbose must be 0, 1 or 2"):
        model.train(data, verbose=3)
