"""The public door is lazy, and the pack's config runs with ``tensorweave train``."""

from pathlib import Path

from tensorweave.cli import main
from tensorweave.testing import check_lazy_package

CONFIG = Path(__file__).resolve().parents[1] / "configs" / "digits_augmented.toml"


def test_the_package_is_lazy():
    check_lazy_package("tensorweave_augment")


def test_the_config_trains_with_the_packs_kind_and_callback(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TENSORWEAVE_RUNS", str(tmp_path / "runs"))  # where a store records runs
    run = tmp_path / "run"
    argv = [
        "train",
        str(CONFIG),
        "--train.epochs=3",
        "--train.limit=200",
        "--run-dir",
        str(run),
        "--quiet",
    ]
    assert main(argv) == 0, capsys.readouterr().err
    header, *rows = (run / "log.csv").read_text().splitlines()
    column = header.split(",").index("augment_strength")
    assert [float(r.split(",")[column]) for r in rows] == [1.0, 1.0, 0.0]
