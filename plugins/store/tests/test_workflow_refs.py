"""Warm starts and ensembles by model version (``NAME@VERSION``) on SQLite and PostgreSQL:
the train pack's features resolving references through the store's hook."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tensorweave_train as twt
from tensorweave_store.errors import ModelNotFoundError
from tensorweave_train.runs.warm_start import variable_names, warm_start

TINY = [
    "--data.limit=150",
    "--data.workers=0",
    "--train.epochs=1",
    "--train.batch_size=64",
    "--dims.hidden=8",
]


def test_warm_start_and_ensemble_from_a_model_version(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sklearn.datasets import load_digits

    from tensorweave_store.store import open_store

    monkeypatch.setenv("TENSORWEAVE_STORE", store_url)
    monkeypatch.setenv("TENSORWEAVE_STORE_BLOBS", str(tmp_path / "blobs"))
    monkeypatch.setenv("TENSORWEAVE_STORE_CACHE", str(tmp_path / "cache"))
    run = tmp_path / "a"
    cfg = twt.load_config("digits", TINY)
    twt.train_job(cfg, run_dir=run, out=None, progress=False)
    store = open_store(store_url, blobs=str(tmp_path / "blobs"), cached=False)
    try:
        store.register_model(str(run), "tiny")
    finally:
        store.close()

    model = twt.build_model(cfg)
    report = warm_start(model, "tiny@latest")
    assert len(report.loaded) == 6 and not report.skipped
    assert report.source.startswith("tiny@latest (")  # the reference and where it resolved
    trained = twt.load_model(run)
    ours = variable_names(model)
    for name, var in variable_names(trained).items():
        np.testing.assert_array_equal(ours[name].numpy(), var.numpy())

    raw = np.asarray(load_digits().data[:6])
    ens = twt.Ensemble([run, "tiny@1"], voter="majority_vote.v1")
    first, second = ens.outputs(raw)
    np.testing.assert_allclose(first, second, rtol=1e-6)  # the same weights, two routes
    np.testing.assert_array_equal(ens.predict(raw), twt.Run.open(run).predict(raw))

    with pytest.raises(ModelNotFoundError):
        warm_start(model, "tiny@7")
