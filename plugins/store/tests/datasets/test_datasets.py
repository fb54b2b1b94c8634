"""Datasets: versioned arrays with a content hash, tagged samples, query views, training
on a stored dataset by name from a config, predictions written back."""

from __future__ import annotations

import numpy as np
import pytest

from tensorweave_store.datasets import versions as D
from tensorweave_store.errors import BlobIntegrityError, DatasetNotFoundError, StoreError


def _arrays(seed=0, n=10):
    rng = np.random.default_rng(seed)
    return {
        "train": {"x": rng.random((n, 3)), "y": np.arange(n) % 2},
        "valid": {"x": rng.random((4, 3)), "y": np.arange(4) % 2},
    }


def test_arrays_are_versioned_by_content(store):
    v1 = D.register_arrays(store, "toy", _arrays(0), info={"n_classes": 2})
    again = D.register_arrays(store, "toy", _arrays(0))
    v2 = D.register_arrays(store, "toy", _arrays(1))
    assert (v1.ref, again.ref, v2.ref) == ("toy@1", "toy@1", "toy@2")
    assert v1.content_hash != v2.content_hash and len(v1.content_hash) == 64
    loaded = D.get_dataset(store, "toy@1").load()
    np.testing.assert_array_equal(loaded.train["x"], _arrays(0)["train"]["x"])
    assert loaded.info["n_classes"] == 2 and v1.size == 14
    assert [d.ref for d in D.list_datasets(store)] == ["toy@1", "toy@2"]
    with pytest.raises(DatasetNotFoundError, match="versions: 1, 2"):
        D.get_dataset(store, "toy@9")
    with pytest.raises(DatasetNotFoundError, match="datasets list"):
        D.get_dataset(store, "nothing")


def test_a_tampered_array_is_refused(store):
    v = D.register_arrays(store, "toy", _arrays(0))
    sha = v.manifest["train"]["x"]
    with open(store.blobs.path(sha), "r+b") as f:
        f.seek(-8, 2)
        f.write(b"\xff" * 8)
    with pytest.raises(BlobIntegrityError):
        v.load()


def test_a_query_dataset_is_a_view_over_tagged_samples(store):
    D.insert_samples(
        store, [{"x": np.full(2, i), "y": np.int64(0)} for i in range(4)], tags=["digits", "clean"]
    )
    noisy = D.insert_samples(
        store, [{"x": np.full(2, 9), "y": np.int64(1)}], tags=["digits", "noisy"]
    )
    view = D.declare_query(store, "clean", tags=["digits"], exclude=["noisy"], valid_fraction=0.25)
    assert view.kind == "query" and view.size == 4 and "not noisy" in view.describe()
    first = view.load()
    assert len(first.train["x"]) + len(first.valid["x"]) == 4
    # later samples show up in the view: it is a query, not a copy
    D.insert_samples(store, [{"x": np.full(2, 5), "y": np.int64(1)}], tags=["digits"])
    assert sum(len(s["x"]) for s in (view.load().train, view.load().valid)) == 5
    D.tag_samples(store, noisy, ["reviewed"])
    got = D.query_samples(store, any_tags=["reviewed"])
    assert got["id"].tolist() == noisy and got["x"].tolist() == [[9, 9]]
    with pytest.raises(StoreError, match="needs tags"):
        D.declare_query(store, "bad")


def test_predictions_are_written_back_as_a_dataset(store):
    x = np.ones((3, 2))
    v = D.write_predictions(store, "preds", {"x": x}, np.array([1, 0, 1]), model="m@1")
    got = D.get_dataset(store, v.ref)
    assert got.info["model"] == "m@1"
    assert got.manifest.keys() == {"predictions"}
    loaded = D.get_dataset(store, "preds").load()
    assert loaded.train == {}  # predictions live in their own split
    arrays = {
        f: np.load(__import__("io").BytesIO(store.blobs.get(s)))
        for f, s in got.manifest["predictions"].items()
    }
    assert arrays["prediction"].tolist() == [1, 0, 1]


@pytest.mark.slow
def test_a_job_trains_on_a_stored_query_by_name(store, tmp_path, monkeypatch):
    from sklearn.datasets import load_digits

    import tensorweave_train as twt

    digits = load_digits()
    xs, ys = (digits.data[:300] / 16).astype("float32"), digits.target[:300].astype("int64")
    D.insert_samples(store, [{"x": a, "y": b} for a, b in zip(xs, ys)], tags=["digits"])
    D.declare_query(store, "digits_q", tags=["digits"], info={"n_classes": 10})
    monkeypatch.setenv("TENSORWEAVE_STORE_RECORD", "0")
    monkeypatch.setenv("TENSORWEAVE_STORE", store.url)  # a config holds no password
    cfg = twt.load_config(
        "digits", ["--train.epochs=6", "--dims.hidden=32", "--optimizer.learning_rate=0.01"]
    )
    cfg["data"] = {"@datasets": "store_query.v1", "dataset": "digits_q@1"}
    summary = twt.train_job(cfg, run_dir=tmp_path / "run", out=None, progress=False)
    assert summary["train_examples"] == 240
    assert summary["valid"]["accuracy"] > 0.5
