"""``tensorweave runs env RUN [-o requirements.lock]``: a run's environment, and its lock."""

from __future__ import annotations

from pathlib import Path

from packaging.requirements import Requirement
from twtrain_helpers import copied, run_cli


def test_runs_env_prints_the_environment_and_writes_a_lock(
    digits_run: Path, tmp_path: Path, capsys: object
) -> None:
    lock = tmp_path / "requirements.lock"
    code, out, _ = run_cli(capsys, "runs", "env", str(digits_run), "-o", str(lock))
    assert code == 0, out
    assert "tensorflow: " in out and "seeds: data.seed=0, train.seed=0" in out
    assert f"wrote {lock}" in out
    lines = [line.split("#")[0].strip() for line in lock.read_text().splitlines()]
    pins = {Requirement(line).name: Requirement(line) for line in lines if line}
    assert str(pins["numpy"].specifier).startswith("==") and "tensorflow" in pins
    for pack in ("tensorweave-layers", "tensorweave-train"):  # editable here: named, not pinned
        assert pack not in pins
        assert f"# {pack}==0.1.0: an editable install from" in lock.read_text()


def test_an_older_run_without_environment_says_what_can_be_compared(
    digits_run: Path, tmp_path: Path, capsys: object
) -> None:
    run = copied(digits_run, tmp_path / "old")
    (run / "environment.json").unlink()
    code, _, err = run_cli(capsys, "runs", "env", str(run))
    assert code == 0
    assert "has no environment.json" in err
    assert "What can still be compared" in err and "tensorweave-layers 0.1.0" in err
    code, _, err = run_cli(capsys, "runs", "env", str(run), "-o", str(tmp_path / "x.lock"))
    assert code == 2 and "No lock written" in err
    assert not (tmp_path / "x.lock").exists()
