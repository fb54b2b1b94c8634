"""Model versions: register a run, stages and tags, NAME@VERSION, load_model, tampering."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from tensorweave_store.errors import BlobIntegrityError, ModelNotFoundError, StoreError
from tensorweave_store.store import load_model
from tensorweave_store.versions.models import materialize


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One tiny digits run directory (trained once, recording off)."""
    import os

    import tensorweave_train as twt

    where = tmp_path_factory.mktemp("run") / "digits"
    old = os.environ.get("TENSORWEAVE_STORE_RECORD")
    os.environ["TENSORWEAVE_STORE_RECORD"] = "0"
    try:
        cfg = twt.load_config(
            "digits", ["--train.epochs=1", "--train.limit=200", "--dims.hidden=8"]
        )
        twt.train_job(cfg, run_dir=where, out=None, progress=False)
    finally:
        if old is None:
            os.environ.pop("TENSORWEAVE_STORE_RECORD")
        else:
            os.environ["TENSORWEAVE_STORE_RECORD"] = old
    return where


def _recorded(store, run_dir, acc=0.9):
    import json

    cfg = json.loads((run_dir / "config.json").read_text())
    run = store.start_run(cfg, run_dir=run_dir, heartbeat=False)
    run.log_epoch(0, {"val_accuracy": acc})
    run.record_artifacts(run_dir)
    run.finish("finished")
    return run.id


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORWEAVE_STORE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_versions_count_up_and_resolve_by_number_latest_and_stage(store, trained, cache):
    rid = _recorded(store, trained)
    v1 = store.register_model(rid, "digits", stage="production", tags=["first"])
    v2 = store.register_model(str(trained), "digits", description="again")
    assert (v1.ref, v1.stage, v1.tags, v2.ref) == ("digits@1", "production", ["first"], "digits@2")
    assert store.model_version("digits@latest").version == 2
    assert store.model_version("digits").version == 2
    assert store.model_version("digits@production").version == 1
    store.set_stage("digits@2", "production")  # one version per stage
    assert [v.stage for _, vs in store.models() for v in vs] == [None, "production"]
    assert store.tag_model("digits@1", ["old"]).tags == ["first", "old"]
    prov = store.model_version("digits@1").provenance
    assert prov["run_id"] == rid and prov["figures"]["val_accuracy"] == 0.9
    assert "config.json" in v1.manifest
    assert any(p.endswith("vars.index") for p in v1.manifest)


def test_a_model_version_loads_and_predicts_as_its_run(store, trained, cache):
    import tensorweave_train as twt

    store.register_model(_recorded(store, trained), "digits")
    where = materialize(store, "digits@1")
    assert where.is_relative_to(cache) and (where / "config.json").is_file()
    assert materialize(store, "digits@latest") == where  # cached by content
    x = {"x": np.random.default_rng(0).random((4, 64)).astype("float32")}
    got = load_model("digits@1", store).predict(x)
    np.testing.assert_allclose(got, twt.load_model(trained).predict(x), rtol=1e-6)


def test_missing_names_and_versions_get_named_errors(store, trained):
    with pytest.raises(ModelNotFoundError, match="none yet") as err:
        store.model_version("nope@1")
    assert "models register" in str(err.value)
    store.register_model(_recorded(store, trained), "digits")
    with pytest.raises(ModelNotFoundError, match=r"no version '7' \(versions: 1\)"):
        store.model_version("digits@7")
    with pytest.raises(ModelNotFoundError, match="no version 'staging'"):
        store.resolve("digits@staging")
    with pytest.raises(StoreError, match="model name 'a@b' is not allowed"):
        store.register_model(1, "a@b")


def test_a_run_without_a_checkpoint_cannot_be_registered(store, tmp_path):
    run = store.start_run({"run": {"name": "empty"}}, run_dir=tmp_path / "empty", heartbeat=False)
    run.finish("failed", error="boom")
    with pytest.raises(StoreError, match="no stored checkpoint"):
        store.register_model(run.id, "empty")


def test_a_tampered_blob_is_caught_on_load_and_nothing_stored_is_lost(store, trained, cache):
    rid = _recorded(store, trained)
    mv = store.register_model(rid, "digits")
    path, sha = next((p, s) for p, s in mv.manifest.items() if p.endswith(".index"))
    blob = store.blobs.path(sha)
    with open(blob, "r+b") as f:
        f.write(b"\0\0\0\0")
    with pytest.raises(BlobIntegrityError, match="corrupt") as err:
        store.resolve("digits@1")
    assert "re-register" in str(err.value)
    assert not cache.exists() or not any(cache.rglob("config.json"))
    assert store.model_version("digits@1").manifest == mv.manifest  # the index is intact
    assert store.run(rid).status == "finished"
    # registering again from the run heals the blob (same content, same name)
    store.register_model(str(trained), "digits")
    assert (materialize(store, "digits@1") / path).is_file()
    shutil.rmtree(cache)


def test_blobs_on_an_fsspec_url(store_url, trained, cache, tmp_path):
    from tensorweave_store.store import open_store

    s = open_store(store_url, blobs="memory://tw-test-models", cached=False)
    s.register_model(_recorded(s, trained), "digits")
    assert "memory" in s.blobs.fs.protocol
    assert (materialize(s, "digits@1") / "config.json").is_file()
    s.close()
