"""The lock of a run directory, against real processes: a live holder, a dead one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from twtrain_helpers import lock_holder

from tensorweave_train.runs.directory import claim
from tensorweave_train.runs.lock import LOCK, RunDirError, RunLock


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_lock_held_by_a_live_process_is_refused_with_its_pid(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    holder = lock_holder(run / LOCK)
    try:
        with pytest.raises(RunDirError, match=f"in use by pid {holder.pid}"):
            RunLock(run).acquire()
        with pytest.raises(RunDirError, match=f"in use by pid {holder.pid}"):
            claim(run, overwrite=True)  # --overwrite never empties a directory in use
        assert (run / LOCK).read_text() == str(holder.pid)
    finally:
        holder.kill()
        holder.wait()


def test_stale_lock_of_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / LOCK).write_text(f"{_dead_pid()}\n")
    with RunLock(run) as lock:
        assert lock.held and (run / LOCK).read_text().strip() == str(os.getpid())
    assert not (run / LOCK).exists()
    assert not [p for p in run.iterdir() if p.name.startswith(".lock")]
