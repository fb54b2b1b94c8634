"""What a run records about its environment (``environment.json``), and a tampered run."""

from __future__ import annotations

import json
import platform
from pathlib import Path

import pytest
from twtrain_helpers import copied

from tensorweave_train.runs.environment import (
    ENVIRONMENT_FILE,
    TamperedRunError,
    check_config,
    config_sha256,
    cpu_numerics,
    read_environment,
)


def test_a_run_records_its_environment(digits_run: Path) -> None:
    record = json.loads((digits_run / ENVIRONMENT_FILE).read_text())
    assert record["python"] == platform.python_version()
    assert record["config_sha256"] == config_sha256(digits_run)
    assert record["seeds"] == {"data.seed": 0, "train.seed": 0}
    assert record["providers"]["model.nodes.logits"].startswith("tensorweave-layers ")
    dists = {d["name"]: d for d in record["distributions"]}
    assert dists["tensorweave-layers"]["pack"] is True and dists["numpy"]["pack"] is False
    assert record["tensorflow"] == dists["tensorflow"]["version"]
    assert record["numpy"] == dists["numpy"]["version"]
    assert set(record["numerics"]) >= {"onednn", "cpu_flags"}


def test_a_changed_config_is_detected(digits_run: Path, tmp_path: Path) -> None:
    run = copied(digits_run, tmp_path / "run")
    check_config(run, read_environment(run) or {})  # untouched: fine
    config = json.loads((run / "config.json").read_text())
    config["optimizer"]["learning_rate"] = 0.5
    (run / "config.json").write_text(json.dumps(config))
    with pytest.raises(TamperedRunError, match=r"config\.json was changed after the run"):
        check_config(run, read_environment(run) or {})


def test_cpu_numerics_reads_the_flags_that_change_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("model name\t: Test CPU\nflags\t\t: fpu avx2 avx512_bf16 amx_tile\n")
    monkeypatch.setenv("TF_ENABLE_ONEDNN_OPTS", "0")
    found = cpu_numerics(info)
    assert found["cpu_flags"] == ["amx_tile", "avx512_bf16", "avx2"]
    assert found["onednn"] is False and found["cpu"] == "Test CPU"


def test_a_resumed_run_records_its_new_config_and_what_differed(
    digits_run: Path, tmp_path: Path
) -> None:
    from tensorweave_train.runs.environment import note_resumed

    run = copied(digits_run, tmp_path / "run")
    config = json.loads((run / "config.json").read_text())
    config["train"]["epochs"] = 5  # what `tensorweave resume RUN --train.epochs=5` writes
    (run / "config.json").write_text(json.dumps(config))
    note_resumed(run)
    record = read_environment(run) or {}
    check_config(run, record)  # the new config is the recorded one
    assert len(record["resumed"]) == 1 and record["resumed"][0]["differences"] == []
