"""The real ``tensorweave`` command with the store: the tutorial's walk (two trainings at
once, list, compare, register the best, predict by name) on SQLite and PostgreSQL; a run
killed mid-training; a store that cannot be reached; the pack blocked."""

from __future__ import annotations

import csv
import json
import signal
import time

import numpy as np
import pytest
from twstore_helpers import digits_args, store_env, tensorweave

pytestmark = pytest.mark.slow


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    """The ``tensorweave`` command in this process (the same code path as the script)."""
    from tensorweave.cli import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _log(run_dir) -> dict[str, list[float]]:
    with open(run_dir / "log.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return {k: [float(r[k]) for r in rows] for k in rows[0] if k not in ("epoch", "step")}


def test_the_walk_two_trainings_at_once_list_compare_register_predict(
    store_url, tmp_path, capsys, monkeypatch
):
    env = store_env(store_url, tmp_path, TENSORWEAVE_STORE_TAGS="walk")
    small, big = tmp_path / "small", tmp_path / "big"
    procs = [
        tensorweave(digits_args("small", small, "--dims.hidden=8"), env, tmp_path),
        tensorweave(digits_args("big", big, "--dims.hidden=64"), env, tmp_path),
    ]
    for p in procs:
        out, err = p.communicate(timeout=240)
        assert p.returncode == 0, err
    for key in ("TENSORWEAVE_STORE", "TENSORWEAVE_STORE_BLOBS", "TENSORWEAVE_STORE_CACHE"):
        monkeypatch.setenv(key, env[key])
    from tensorweave_store.store import open_store

    store = open_store(store_url)
    runs = {r.name: r for r in store.runs(tags=["walk"])}
    assert set(runs) == {"small", "big"}
    for name, where in (("small", small), ("big", big)):
        r = runs[name]
        assert (r.status, r.epochs_done, r.run_dir) == ("finished", 2, str(where))
        assert r.config["dims"]["hidden"] == (8 if name == "small" else 64)
        stored = store.metrics(r.id)
        for key, values in _log(where).items():  # nothing lost, nothing mixed
            if key in stored:
                assert [v for _, v in stored[key]] == pytest.approx(values, rel=1e-5)
        assert "checkpoints" in " ".join(store.artifacts(r.id))

    code, out, _ = _cli(capsys, "runs", "list", "--tag", "walk")
    assert code == 0 and "small" in out and "big" in out and "val_accuracy" in out
    code, out, _ = _cli(capsys, "runs", "list", "--config", "dims.hidden=64")
    assert code == 0 and "big" in out and "small" not in out
    best = max(runs.values(), key=lambda r: r.figures["val_accuracy"])
    code, out, _ = _cli(
        capsys, "runs", "list", "--where", f"val_accuracy>={best.figures['val_accuracy']}"
    )
    assert best.name in out
    png = tmp_path / "compare.png"
    code, out, _ = _cli(capsys, "runs", "compare", "small", "big", "-o", str(png))
    assert code == 0 and "dims.hidden" in out and "val_accuracy by epoch" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, _ = _cli(capsys, "runs", "show", str(best.id))
    assert code == 0 and "layers:FC.v1 from tensorweave-layers" in out

    code, out, _ = _cli(capsys, "models", "register", str(best.id), "digits", "--stage", "prod")
    assert code == 0 and "registered digits@1" in out
    code, out, _ = _cli(capsys, "models", "list")
    assert "prod=1" in out
    from sklearn.datasets import load_digits

    raw = tmp_path / "x.npy"
    np.save(raw, load_digits().data[:5].astype("float32"))
    code, out, err = _cli(capsys, "predict", "digits@prod", "--input", str(raw))
    assert code == 0, err
    by_name = json.loads(out)
    code, out, _ = _cli(capsys, "predict", str(best.run_dir), "--input", str(raw))
    assert json.loads(out) == by_name and len(by_name) == 5
    code, _, err = _cli(capsys, "predict", "digits@7", "--input", str(raw))
    assert code == 1 and "no version '7'" in err and "Fix:" in err
    store.close()


def test_a_killed_training_is_seen_as_interrupted(store_url, tmp_path, capsys):
    env = store_env(store_url, tmp_path, TENSORWEAVE_STORE_HEARTBEAT="1")
    args = digits_args("doomed", tmp_path / "doomed", "--train.epochs=200")
    proc = tensorweave(args, env, tmp_path)
    from tensorweave_store.store import open_store

    store = open_store(store_url, blobs=env["TENSORWEAVE_STORE_BLOBS"], cached=False)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        found = store.runs(name="doomed")
        if found and found[0].epochs_done >= 1 and found[0].status == "running":
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.3)
    else:
        pytest.fail("the training recorded no epoch in 180 s")
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    time.sleep(4.0)  # > 3 heartbeats of the run (its interval is stored with it)
    run = store.runs(name="doomed")[0]
    assert run.status == "interrupted" and run.epochs_done >= 1
    assert "no heartbeat" in run.error
    assert store.metrics(run.id)["loss"]  # what was recorded stays
    store.close()


def test_training_with_an_unreachable_store_stops_with_the_fix(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql+psycopg://u@127.0.0.1:{port}/x?connect_timeout=3"
    proc = tensorweave(digits_args("x", tmp_path / "x"), store_env(url, tmp_path), tmp_path)
    _, err = proc.communicate(timeout=240)
    assert proc.returncode == 1
    assert "cannot reach the store" in err and "TENSORWEAVE_STORE" in err
    assert "Traceback" not in err


def test_the_train_pack_works_unchanged_with_the_store_blocked(tmp_path):
    env = store_env(
        f"sqlite:///{tmp_path}/store.db", tmp_path, TENSORWEAVE_BLOCK="tensorweave-store"
    )
    proc = tensorweave(digits_args("plain", tmp_path / "plain"), env, tmp_path)
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    assert "done in" in out and (tmp_path / "plain" / "summary.json").is_file()
    assert not (tmp_path / "store.db").exists()
    assert not list(tmp_path.rglob("tensorweave-store*"))  # nothing recorded anywhere


def test_store_option_on_train_resume_predict_and_a_bad_url(tmp_path):
    """``--store URL`` on the train pack's commands (added by this pack through the train
    pack's ``tensorweave_train_arguments`` hook) records there, not in the environment's
    store; an unreachable ``--store`` stops the training with the fix and writes nothing."""
    from sklearn.datasets import load_digits

    from tensorweave_store.store import open_store

    url = f"sqlite:///{tmp_path}/chosen/store.db"
    other = tmp_path / "other" / "store.db"  # the environment's store: never written
    env = store_env(f"sqlite:///{other}", tmp_path)
    del env["TENSORWEAVE_STORE_BLOBS"]  # blobs beside the chosen SQLite file
    where = tmp_path / "r"

    def run(*args: str) -> tuple[int, str, str]:
        proc = tensorweave(list(args), env, tmp_path)
        out, err = proc.communicate(timeout=300)
        return proc.returncode, out, err

    code, out, err = run(*digits_args("opt", where, "--train.epochs=1"), "--store", url)
    assert code == 0, err
    code, out, err = run("resume", str(where), "--quiet", "--train.epochs=2", f"--store={url}")
    assert code == 0, err
    store = open_store(url, cached=False)
    (rec,) = store.runs()
    assert (rec.name, rec.status, rec.kind, rec.epochs_done) == ("opt", "finished", "resume", 2)
    assert (tmp_path / "chosen" / "store.blobs").is_dir()
    store.register_model(rec.id, "opt")
    store.close()
    raw = tmp_path / "x.npy"
    np.save(raw, load_digits().data[:3].astype("float32"))
    code, out, err = run("predict", "opt@1", "--input", str(raw), "--store", url)
    assert code == 0, err
    assert len(json.loads(out)) == 3
    assert not other.parent.exists()  # --store won over TENSORWEAVE_STORE

    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    bad = f"postgresql+psycopg://u:secret@127.0.0.1:{port}/x?connect_timeout=3"
    code, out, err = run(*digits_args("bad", tmp_path / "bad"), "--store", bad)
    assert code == 1
    assert "Traceback" not in err
    assert "cannot reach the store" in err and "--store" in err and "Fix:" in err
    assert "secret" not in err  # the password is never printed
    assert not (tmp_path / "bad").exists() and not other.parent.exists()
    assert not (tmp_path / "runs").exists()  # no default store, no run directory
    store = open_store(url, cached=False)
    assert [r.name for r in store.runs()] == ["opt"]  # the good store untouched
    store.close()
