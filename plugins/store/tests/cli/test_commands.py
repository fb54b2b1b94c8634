"""The real ``tensorweave`` command with the store: a run killed mid-training; a store that
cannot be reached; ``--store URL`` on the train pack's commands; the pack blocked. (The
tutorial's walk is ``test_tutorial_walk.py``.)"""

from __future__ import annotations

import json
import signal
import time

import numpy as np
import pytest
from twstore_helpers import digits_args, store_env, tensorweave

pytestmark = pytest.mark.slow


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
