"""A run's record when its store goes away mid-training: a real PostgreSQL server stopped and
restarted (or refusing connections) from inside a real training job, and the real
``tensorweave train`` outliving a stopped server, completed by ``tensorweave runs sync``."""

from __future__ import annotations

import json
import signal
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from twstore_helpers import PgControl, digits_args, store_env, tensorweave

from tensorweave_store.db.outage import StoreOutageWarning
from tensorweave_store.errors import StoreError
from tensorweave_store.runs.backlog import BACKLOG_FILE, Backlog
from tensorweave_store.runs.handle import sync_backlog
from tensorweave_store.store import Store, open_store

EPOCHS = 5
TINY = [f"--train.epochs={EPOCHS}", "--train.limit=200", "--dims.hidden=8", "--data.workers=0"]


@pytest.fixture
def pg(pg_faults: PgControl) -> Iterator[PgControl]:
    """The faults' server, running again after the test whatever the test did to it."""
    yield pg_faults
    pg_faults.ensure_running()


@pytest.fixture
def recording(pg: PgControl, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Jobs in this test record into a fresh database on the faults' server."""
    url = pg.fresh_database()
    monkeypatch.setenv("TENSORWEAVE_STORE", url)
    monkeypatch.setenv("TENSORWEAVE_STORE_BLOBS", str(tmp_path / "blobs"))
    monkeypatch.setenv("TENSORWEAVE_STORE_RECORD", "1")
    monkeypatch.setenv("TENSORWEAVE_STORE_TAGS", "faults")
    store = open_store(url, blobs=str(tmp_path / "blobs"), cached=False)
    yield store
    store.close()


def _train_with(tmp_path: Path, at_epoch: dict[tuple[str, int], Callable[[], None]]) -> Any:
    """Train the digits job, calling ``at_epoch[("start"|"end", epoch)]()`` from inside the
    training (after the recorder at an epoch's end); returns the run directory and the
    store warnings it gave."""
    import tensorweave as tw
    import tensorweave_train as twt

    def fault() -> twt.Callback:
        def act(event: Any, state: Any) -> None:
            where = "start" if event is twt.Event.EPOCH_START else "end"
            action = at_epoch.get((where, state.epoch))
            if action is not None:
                action()

        return twt.LambdaCallback(act, twt.on_epoch(at="start"), twt.on_epoch(), priority=95)

    cfg = twt.load_config("digits", TINY)
    cfg["callbacks"] = [{"@callbacks": "test_store_fault.v1"}]
    run_dir = tmp_path / "run"
    with tw.callbacks.scoped(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tw.callbacks.register("test_store_fault.v1", fault)
        twt.train_job(cfg, run_dir=run_dir, out=None, progress=False)
    return run_dir, [str(w.message) for w in caught if w.category is StoreOutageWarning]


def _complete(store: Store, run_dir: Path) -> Any:
    """The run of ``run_dir``, checked complete: finished, every epoch, its files."""
    run = store.run(str(run_dir.resolve()))
    assert (run.status, run.epochs_done, run.error) == ("finished", EPOCHS, None)
    assert [e for e, _ in store.metrics(run.id)["loss"]] == list(range(EPOCHS))
    assert "config.json" in store.artifacts(run.id)
    assert not (run_dir / BACKLOG_FILE).exists()
    return run


def test_a_server_restarted_mid_run_stops_nothing_and_loses_no_epoch(recording, pg, tmp_path):
    """The server stops after epoch 1 is recorded (its sessions are ended) and starts again
    before epoch 3: training goes on, warns once, keeps epochs 2 in its backlog and records
    it at epoch 3, through a new connection."""
    run_dir, said = _train_with(tmp_path, {("end", 1): pg.stop, ("start", 3): pg.start})
    _complete(recording, run_dir)
    assert len(said) == 2, said  # one "cannot reach", one "is back"
    assert "cannot reach the store postgresql+psycopg://" in said[0]
    assert "training goes on" in said[0] and str(run_dir / BACKLOG_FILE) in said[0]
    assert f"tensorweave runs sync {run_dir}" in said[0]
    assert "is back; recorded the 1 record(s)" in said[1]


def test_a_database_refusing_new_connections_loses_no_epoch(recording, pg, tmp_path):
    """The server stays up but the database ends the run's sessions and refuses new ones
    from epoch 1 to epoch 3: the same as a restart, not epochs missing in silence."""
    url = recording.url
    run_dir, said = _train_with(
        tmp_path, {("end", 1): lambda: pg.refuse(url), ("start", 3): lambda: pg.admit(url)}
    )
    _complete(recording, run_dir)
    assert len(said) == 2 and "is not currently accepting connections" in said[0], said


def test_a_run_ending_while_the_server_is_down_keeps_its_backlog_for_sync(recording, pg, tmp_path):
    """Stopped after epoch 1 for good: the epochs, the files and the final status wait in
    the run directory; once the server is back ``Store.sync`` records them all."""
    run_dir, said = _train_with(tmp_path, {("end", 1): pg.stop})
    log = Backlog.read(run_dir / BACKLOG_FILE)
    assert [r["op"] for r in log.records] == ["epoch"] * (EPOCHS - 2) + ["artifacts", "finish"]
    assert log.store == recording.display_url
    assert len(said) == 2 and "ended while the store" in said[1], said
    pg.start()
    assert recording.run(str(run_dir.resolve())).status in ("running", "interrupted")
    run_id, count = recording.sync(run_dir)
    assert count == (EPOCHS - 2) + 2  # the epochs not yet written, the files and the status
    assert _complete(recording, run_dir).id == run_id
    assert recording.sync(run_dir) == (run_id, 0)  # nothing left: a no-op


def test_a_backlog_of_another_store_is_refused(recording, tmp_path):
    run = recording.start_run({}, run_dir=tmp_path / "r", name="r", heartbeat=False)
    (tmp_path / "r").mkdir()
    Backlog(tmp_path / "r" / BACKLOG_FILE, run_id=run.id, store="sqlite:///else.db").add(
        {"op": "finish", "status": "finished", "at": "2026-01-01T00:00:00+00:00"}
    )
    with pytest.raises(StoreError, match=r"--store pointing at sqlite:///else\.db"):
        sync_backlog(recording, tmp_path / "r")
    assert recording.run(run.id).status == "running"  # nothing written


@pytest.mark.slow
def test_tensorweave_train_outlives_a_stopped_server_and_runs_sync_completes_it(pg, tmp_path):
    """The real command: the server stops mid-training (the training paused meanwhile, so
    it cannot finish first); the command exits 0 with one warning naming the store and the
    backlog; once the server is back, ``tensorweave runs sync RUN`` makes the run complete
    and ``tensorweave runs list`` shows it finished."""
    url = pg.fresh_database()
    env = store_env(url, tmp_path)
    run_dir = tmp_path / "long"
    proc = tensorweave(digits_args("long", run_dir, "--train.epochs=30"), env, tmp_path)
    store = open_store(url, blobs=env["TENSORWEAVE_STORE_BLOBS"], cached=False)
    try:
        deadline = time.monotonic() + 300
        while not (store.runs(name="long") and store.runs(name="long")[0].epochs_done >= 1):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.2)
        proc.send_signal(signal.SIGSTOP)
        store.close()
        pg.stop()
        proc.send_signal(signal.SIGCONT)
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, out + err
        assert err.count("cannot reach the store") == 1, err
        assert f"tensorweave runs sync {run_dir}" in err and "(StoreOutageWarning)" in err
        assert (run_dir / BACKLOG_FILE).exists()
        pg.start()
        sync = tensorweave(["runs", "sync", str(run_dir)], env, tmp_path)
        out, err = sync.communicate(timeout=300)
        assert sync.returncode == 0, out + err
        assert "recorded" in out and "finished, 30 epochs" in out
        listing = tensorweave(["runs", "list", "--name", "long"], env, tmp_path)
        out, err = listing.communicate(timeout=300)
        assert listing.returncode == 0, err
        assert out.splitlines()[2].split()[2:4] == ["finished", "30"]
        assert not (run_dir / BACKLOG_FILE).exists()
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["epochs"] == 30
    finally:
        if proc.poll() is None:
            proc.kill()
