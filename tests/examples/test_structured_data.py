"""The gallery's structured-data classifier (examples/structured_data): the script's CSV
(300 rows), then one epoch of the config with no prep script; the adapted state recorded."""

from __future__ import annotations

from pathlib import Path

import tensorweave.config as twc
from tests.examples.gallery import EXAMPLES, script


def test_structured_data_config_trains_one_epoch(tmp_path: Path) -> None:
    import tensorweave_train as twt

    csv = script("structured_data/make_data.py").write(tmp_path / "patients.csv", rows=300)
    cfg = twc.load(
        EXAMPLES / "structured_data/structured_data.toml",
        overrides=["--train.epochs=1", f"--data.paths={csv}"],
    )  # table.v1 streams its file: no data.workers (train_tiny's)
    summary = twt.train_job(cfg, run_dir=tmp_path / "run", out=None, progress=False)
    assert 0.0 <= summary["valid"]["accuracy"] <= 1.0
    adapted = summary["adapted"]
    assert (adapted["dataset"], adapted["split"]) == ("table.v1", "train")
    assert set(adapted["layers"]) == {"norm", "thal_id"}
    assert adapted["layers"]["thal_id"]["vocabulary_head"][1:] == ["normal", "reversible", "fixed"]
