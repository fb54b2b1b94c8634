"""Smoke test of examples/image_folder: its script writes the folder, one epoch trains."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "image_folder"


def test_script_then_one_epoch(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo",
    }
    made = subprocess.run(
        [sys.executable, str(EXAMPLE / "make_images.py"), "data/shapes", "--per-class", "10"],
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr[-2000:]
    assert sorted(p.name for p in (tmp_path / "data" / "shapes").iterdir()) == [
        "circle",
        "square",
        "triangle",
    ]
    assert len(list((tmp_path / "data" / "shapes").rglob("*.jpg"))) == 15
    exe = Path(sys.executable).with_name("tensorweave")
    done = subprocess.run(
        [str(exe), "train", str(EXAMPLE / "image_folder.toml"), "--train.epochs=1",
         "--run-dir", "run"],
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["train_examples"] == 24 and summary["epochs"] == 1
