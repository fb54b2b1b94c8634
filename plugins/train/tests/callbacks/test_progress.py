"""``Progress``: the one display (lines, a bar on a terminal, ``ProgressBar.v1``), redrawn on a
clock of its own."""

from __future__ import annotations

import io

import pytest
import tensorflow as tf
from twtrain_helpers import regression_data, regression_model

import tensorweave_train as twt
from tensorweave_train import Event, Progress, TrainState


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_writes_and_is_off_without_terminal():
    out = io.StringIO()
    model = regression_model()
    data = regression_data(n=16)
    model.train(
        data, epochs=2, batch_size=4, callbacks=[twt.ProgressBar(every=2, enabled=True, file=out)]
    )
    text = out.getvalue()
    assert "Epoch 2/2" in text and "loss: " in text
    assert twt.ProgressBar().bar is False  # pytest captures stderr: not a terminal
    assert not twt.ProgressBar(enabled=True).lines  # a bar only


def test_verbose_lines_validation_split_and_keras_history(capsys) -> None:
    model = regression_model()
    data = regression_data(n=40)
    h = model.train(data, epochs=3, batch_size=8, validation_split=0.25, verbose=2)
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("Epoch ")]
    assert [x.split(" - ")[0] for x in lines] == ["Epoch 1/3", "Epoch 2/3", "Epoch 3/3"]
    assert set(h.history) >= {"loss", "val_loss", "val_mae"}
    assert all(len(v) == 3 for v in h.history.values())
    assert h.epoch == [1, 2, 3] and [r["epoch"] for r in h] == [1.0, 2.0, 3.0]
    assert h.params["steps"] == 4  # 30 of the 40 examples train, in batches of 8
    # the held-out quarter is the last 10 examples, as Keras
    held = {k: v[30:] for k, v in data.items()}
    assert h.history["val_loss"][-1] == pytest.approx(model.evaluate(held)["loss"])
    assert f"val_loss: {h.history['val_loss'][-1]:.4f}" in lines[-1]
    shown = [part.split(":")[0] for part in lines[-1].split(" - ")[2:]]
    assert shown == ["loss", "mae", "val_loss", "val_mae"]  # the training metric too
    model.train(data, epochs=1, batch_size=8, verbose=0)
    assert capsys.readouterr().out == ""


def test_verbose_1_is_a_bar_on_a_terminal_and_lines_elsewhere(capsys) -> None:
    screen = _Terminal()
    model = regression_model()
    data = regression_data(n=64)
    model.train(data, epochs=2, batch_size=8, verbose=0, callbacks=[Progress(1, file=screen)])
    shown = screen.getvalue()
    assert "Epoch 1/2" in shown and "Epoch 2/2" in shown and "8/8" in shown
    assert Progress(1, file=io.StringIO()).lines  # not a terminal: one line per epoch
    assert not Progress(0).lines and not Progress(0).bar


def test_the_bar_is_redrawn_at_most_every_redraw_seconds_of_its_clock() -> None:
    """On a fake clock that starts at 0 (a machine booted a moment ago): the first step
    offered is drawn, then one every ``REDRAW_SECONDS`` (0.1) at most."""
    now = [0.0]

    class Counting(Progress):
        drawn = 0

        def __call__(self, event, state) -> None:
            before = self._drawn
            super().__call__(event, state)
            self.drawn += self._drawn != before

    shown = Counting(1, file=_Terminal(), every=1, clock=lambda: now[0])
    state = TrainState(epochs=1, steps_per_epoch=10, loss=tf.constant(0.5))
    shown(Event.TRAIN_START, state)
    shown(Event.EPOCH_START, state)
    for step in range(1, 11):  # steps 1/16 s apart: drawn at the 1st, 3rd, 5th, 7th, 9th
        now[0] += 0.0625
        state.step = state.epoch_step = step
        shown(Event.STEP_END, state)
    assert shown.drawn == 5
    state.values = {"loss": 0.5}
    shown(Event.EPOCH_END, state)
    assert "10/10" in shown.file.getvalue()  # the epoch's end shows the full count


def test_quiet_still_announces_why_training_stopped(capsys) -> None:
    quiet = Progress(0, announce_stop=True)
    state = TrainState(epochs=5, history=[{}, {}])
    state.request_stop("EarlyStopping: val_loss did not improve")
    for event in (Event.TRAIN_START, Event.TRAIN_END):
        quiet(event, state)
    assert (
        capsys.readouterr().out
        == "Stopped after epoch 2: EarlyStopping: val_loss did not improve\n"
    )
    silent = Progress(0)
    silent(Event.TRAIN_END, state)
    assert capsys.readouterr().out == ""
