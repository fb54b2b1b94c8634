"""``runs list --built-with`` and ``models list --built-with``: the runs and model versions
built with a range of a pack's versions, on SQLite and on the real PostgreSQL server.

Two runs are recorded through the store's public API from one tiny trained run directory:
the second's config says its ``tensorweave-layers`` components came from version 0.2.0 (the
only thing faked: the recorded version string)."""

from __future__ import annotations

import json
import os

import pytest

from tensorweave.cli import main as cli_main
from tensorweave_store.runs.filters import BadBuiltWithError, parse_built_with


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One tiny digits run directory (trained once, recording off)."""
    import tensorweave_train as twt

    where = tmp_path_factory.mktemp("run") / "digits"
    old = os.environ.get("TENSORWEAVE_STORE_RECORD")
    os.environ["TENSORWEAVE_STORE_RECORD"] = "0"
    try:
        cfg = twt.load_config("digits", ["--train.epochs=1", "--data.limit=100", "--dims.hidden=4"])
        twt.train_job(cfg, run_dir=where, out=None, progress=False)
    finally:
        if old is None:
            os.environ.pop("TENSORWEAVE_STORE_RECORD")
        else:
            os.environ["TENSORWEAVE_STORE_RECORD"] = old
    return where


def _record(store, run_dir, layers_version):
    text = (run_dir / "config.json").read_text()
    assert '"tensorweave-layers 0.1.0"' in text
    cfg = json.loads(
        text.replace('"tensorweave-layers 0.1.0"', f'"tensorweave-layers {layers_version}"')
    )
    run = store.start_run(cfg, run_dir=run_dir, name=f"layers-{layers_version}", heartbeat=False)
    run.log_epoch(0, {"val_accuracy": 0.5})
    run.record_artifacts(run_dir)
    run.finish("finished")
    return run.id


@pytest.fixture
def two_versions(store, trained, tmp_path, monkeypatch):
    """Runs (and a model version of each) made under tensorweave-layers 0.1.0 and 0.2.0."""
    monkeypatch.setenv("TENSORWEAVE_STORE_BLOBS", str(tmp_path / "blobs"))
    old, new = _record(store, trained, "0.1.0"), _record(store, trained, "0.2.0")
    store.register_model(old, "digits")
    store.register_model(new, "digits")
    return old, new


def _cli(capsys, *argv):
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_runs_and_models_built_with_a_range(store, store_url, two_versions, capsys):
    old, new = two_versions
    ids = lambda spec: [  # noqa: E731
        r.id for r in store.runs() if parse_built_with(spec).holds(r.providers, r.versions)
    ]
    assert ids("tensorweave-layers<0.2") == [old]
    assert ids("tensorweave_layers>=0.2") == [new]
    assert ids("tensorweave-layers") == [new, old]
    assert ids("tensorweave-layers>1") == []
    assert ids("tensorweave-rnn") == []  # installed, but no component of these runs

    code, out, _ = _cli(
        capsys, "runs", "list", "--store", store_url, "--built-with", "tensorweave-layers<0.2"
    )
    assert code == 0
    assert "layers-0.1.0" in out and "layers-0.2.0" not in out
    assert f"run {old} (layers-0.1.0): tensorweave-layers 0.1.0" in out
    code, out, _ = _cli(
        capsys,
        "runs",
        "list",
        "--store",
        store_url,
        "--built-with",
        "tensorweave-layers==0.2.*",
        "--limit",
        "1",
    )
    assert code == 0 and "layers-0.2.0" in out and "layers-0.1.0" not in out

    code, out, _ = _cli(
        capsys, "models", "list", "--store", store_url, "--built-with", "tensorweave-layers<0.2"
    )
    assert code == 0
    assert "digits@1" in out and "tensorweave-layers 0.1.0" in out and "digits@2" not in out
    code, out, _ = _cli(
        capsys, "models", "list", "--store", store_url, "--built-with", "tensorweave-layers>=9"
    )
    assert code == 0 and "no model version" in out


@pytest.mark.parametrize("command", ["runs", "models"])
def test_a_bad_specifier_is_a_usage_error_with_the_fix(command, tmp_path, capsys):
    url = f"sqlite:///{tmp_path}/store.db"
    code, _, err = _cli(
        capsys, command, "list", "--store", url, "--built-with", "tensorweave-layers<<0.2"
    )
    assert code == 2
    assert "tensorweave-layers<<0.2" in err and "Fix: a distribution and a version range" in err
    assert not (tmp_path / "store.db").exists()  # refused before the store is opened
    with pytest.raises(BadBuiltWithError, match="only a distribution"):
        parse_built_with("tensorweave-layers[extra]<0.2")
