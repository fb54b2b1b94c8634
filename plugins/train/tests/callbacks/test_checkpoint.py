"""``Checkpoint.v1`` and its ``Checkpointer``: a run prunes only the checkpoints it wrote,
and a config's checkpoint directory that belongs to another run is refused (#33)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from twtrain_helpers import TINY, regression_data, regression_model, tensorweave, trained_run

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_train.loop.checkpoints import Checkpointer, CheckpointOwnerError, writing_for


def _ckpts(run: Path) -> list[str]:
    return sorted(p.name for p in (run / "checkpoints").glob("ckpt-*"))


def _snapshot(step: int) -> dict[str, int]:
    return {"step": step, "epoch": 0, "epoch_step": 0}


def test_pruning_removes_only_the_owners_checkpoints(tmp_path: Path) -> None:
    model = regression_model()
    model.build()
    theirs = Checkpointer(tmp_path, keep=3, owner="run-a")
    for step in (1, 2, 3):
        theirs.save(model, _snapshot(step))
    mine = Checkpointer(tmp_path, keep=1, owner="run-b")
    for step in (4, 5, 6):
        mine.save(model, _snapshot(step))
    assert _ckpts(tmp_path) == [f"ckpt-{s:010d}" for s in (1, 2, 3, 6)]
    assert {Checkpointer.owner_of(p) for p in (tmp_path / "checkpoints").glob("ckpt-*")} == {
        "run-a",
        "run-b",
    }
    with pytest.raises(CheckpointOwnerError, match="written by another run"):
        mine.save(model, _snapshot(2))  # a step of run-a's: never replaced
    assert Checkpointer.owner_of(tmp_path / "checkpoints" / "ckpt-0000000002") == "run-a"


def test_python_checkpoints_never_prune_a_runs(tmp_path: Path) -> None:
    """``Checkpoint.v1(some_run, keep=1)`` in a Python program, outside any run."""
    model = regression_model()
    model.build()
    for step in (1, 2):
        Checkpointer(tmp_path, keep=3, owner="the-run").save(model, _snapshot(step))
    python = Checkpointer(tmp_path, keep=1)
    assert python.owner == ""
    for step in (3, 4):
        python.save(model, _snapshot(step))
    assert _ckpts(tmp_path) == [f"ckpt-{s:010d}" for s in (1, 2, 4)]


def test_the_run_being_trained_owns_what_it_saves(tmp_path: Path) -> None:
    model = regression_model()
    cb = twt.CheckpointCallback(tmp_path, every_steps=2, every_epochs=None, keep=1)
    with writing_for("run-x"):
        model.train(regression_data(), epochs=1, batch_size=16, callbacks=[cb], verbose=0)
    (only,) = (tmp_path / "checkpoints").glob("ckpt-*")
    assert json.loads((only / "MANIFEST.json").read_text())["owner"] == "run-x"


def test_a_config_checkpoint_in_another_runs_folder_is_refused(tmp_path: Path) -> None:
    """The attack: run B's config points ``Checkpoint.v1`` (keep=1) at run A's folder."""
    a = trained_run(tmp_path / "a")
    before = _ckpts(a)
    assert len(before) == 2
    config = tmp_path / "b.toml"
    digits = twt.config_path("digits").read_text()
    config.write_text(
        f'callbacks = [{{ "@callbacks" = "Checkpoint.v1", directory = "{a}", keep = 1 }}]\n'
        + digits
    )
    proc = tensorweave(
        "train",
        str(config),
        *TINY,
        "--quiet",
        "--run-dir",
        str(tmp_path / "b"),
        "--allow-paths-outside",  # the path alone would be refused at validation
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "belongs to another run" in proc.stderr and str(a) in proc.stderr
    assert _ckpts(a) == before
    assert not (tmp_path / "b").exists()  # it failed before its first checkpoint


# -- save_best_only, as Keras's ModelCheckpoint (#34) ----------------------------------
def _best_run(tmp_path: Path, scores: list[float], **options) -> list[int]:
    """Train len(scores) epochs with the figure ``score`` reported at each epoch's end;
    the epochs (from 1) a ``save_best_only`` checkpoint was written at."""
    model = regression_model()
    it = iter(scores)

    def report(event, state):
        state.values["score"] = next(it)

    cbs = [
        twt.LambdaCallback(report, twt.on_epoch(), priority=50),
        twt.CheckpointCallback(tmp_path, save_best_only=True, keep=10, **options),
    ]
    model.train(regression_data(), epochs=len(scores), batch_size=16, callbacks=cbs, verbose=0)
    saved = sorted((tmp_path / "checkpoints").glob("ckpt-*"))
    return [json.loads((p / "state.json").read_text())["epoch"] for p in saved]


@pytest.mark.parametrize(
    ("mode", "epochs"), [("min", [1, 2, 4]), ("auto", [1, 2, 4]), ("max", [1, 5])]
)
def test_save_best_only_saves_when_the_figure_improves(
    tmp_path: Path, mode: str, epochs: list[int]
) -> None:
    assert _best_run(tmp_path, [1.0, 0.5, 0.7, 0.4, 2.0], monitor="score", mode=mode) == epochs


def test_save_best_only_on_an_unknown_figure_lists_the_figures(tmp_path: Path) -> None:
    with pytest.raises(tw.ArgumentError) as err:
        _best_run(tmp_path, [1.0, 0.5], monitor="val_acc")
    text = str(err.value)
    assert "monitor='val_acc' is not a figure of this training" in text
    assert "loss" in text and "score" in text and "need validation data" in text
    assert not list(tmp_path.glob("checkpoints/ckpt-*"))  # nothing saved


def test_save_best_only_modes_follow_keras() -> None:
    for monitor, mode in [("val_loss", "min"), ("val_accuracy", "max"), ("acc", "max")]:
        assert twt.CheckpointCallback("x", save_best_only=True, monitor=monitor).mode == mode
    with pytest.raises(tw.ArgumentError, match="mode must be"):
        twt.CheckpointCallback("x", save_best_only=True, mode="best")
    with pytest.raises(tw.ArgumentError, match="every_steps"):
        twt.CheckpointCallback("x", save_best_only=True, every_steps=5)
