"""Day one for a Keras user: summary, verbose/validation_split/History, renamed callback
arguments, early-stop announcement, load_run (Python side; the CLI is in
``test_day_one_cli.py``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import Dense, regression_data, regression_model

import tensorweave as tw
import tensorweave_train as twt


def test_summary_counts_params_once_and_marks_shared_layers(capsys) -> None:
    tw.reset_names()
    x = tw.Input(n_units=4, name="x")
    t = tw.Input(n_units=3, name="t")
    a = Dense(x, 3, name="enc")
    b = Dense(x, 3, name="enc_again", share_state_with=a)  # the same variables
    y = tw.Lambda(lambda p, q: p + q, a, b, name="y")
    loss = tw.Lambda(lambda p, q: tf.reduce_mean((p - q) ** 2), y, t, name="mse", shape=())
    model = twt.Model(inputs=x, outputs=y, targets=t, loss=loss, metrics={"mse2": loss})
    assert model.summary() is None  # printed, as Keras
    text = capsys.readouterr().out
    rows = {line.split()[0]: line for line in text.splitlines() if line and line[0].isalpha()}
    assert "15" in rows["enc"].split()  # 4 * 3 + 3
    assert "(shares enc)" in rows["enc_again"]
    assert "[target]" in rows["t"] and "[loss]" in rows["mse"]
    assert "Total params: 15 (trainable 15, non-trainable 0)" in text
    assert "1 sharing another layer's state" in text
    assert model.summary(print_fn=None) == text.rstrip("\n")


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
    model.train(data, epochs=1, batch_size=8, verbose=0)
    assert capsys.readouterr().out == ""


def test_validation_split_mistakes_are_clear() -> None:
    model = regression_model()
    data = regression_data(n=8)
    with pytest.raises(tw.ArgumentError, match="not both"):
        model.train(data, validation=data, validation_split=0.5, verbose=0)
    with pytest.raises(tw.ArgumentError, match="between 0 and 1"):
        model.train(data, validation_split=1.5, verbose=0)
    with pytest.raises(tw.ArgumentError, match="verbose must be 0, 1 or 2"):
        model.train(data, verbose=3)


def test_early_stop_is_announced_with_epoch_value_and_restore(capsys) -> None:
    model = regression_model(optimizer=twt.SGD(0.5))
    data = regression_data(n=32)
    es = twt.EarlyStopping(monitor="loss", patience=1, restore_best_weights=True, min_delta=10.0)
    h = model.train(data, epochs=10, batch_size=8, callbacks=[es], verbose=2)
    out = capsys.readouterr().out
    assert len(h) == 2  # epoch 1 is the best (nothing improves by 10), epoch 2 stops
    assert "Stopped after epoch 2: EarlyStopping: loss did not improve on" in out
    assert "(epoch 1)" in out and "restored the weights of epoch 1" in out


@pytest.mark.parametrize(
    ("make", "old", "new", "attr", "value"),
    [
        (twt.EarlyStopping, "restore_best", "restore_best_weights", "restore_best_weights", True),
        (twt.TensorBoard, "logdir", "log_dir", "logdir", "tb"),
        (twt.TensorBoard, "graph", "write_graph", "graph", False),
        (twt.CSVLogger, "path", "filename", "path", "log.csv"),
    ],
)
def test_old_callback_argument_names_warn_and_still_work(make, old, new, attr, value) -> None:
    first = {"filename": "x.csv"} if make is twt.CSVLogger and old != "path" else {}
    with pytest.warns(tw.RenamedArgumentWarning, match=f"'{old}' is renamed '{new}'"):
        cb = make(**first, **{old: value})
    assert getattr(cb, attr) == value
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name: no warning
        assert getattr(make(**{new: value}), attr) == value
    with pytest.raises(TypeError, match=f"give only {new}="):
        make(**{old: value, new: value})


def test_tensorboard_update_freq_as_keras(tmp_path) -> None:
    assert twt.TensorBoard(tmp_path, update_freq="epoch").triggers[-1].event.name != "STEP_END"
    with pytest.raises(ValueError, match="update_freq"):
        twt.TensorBoard(tmp_path, update_freq="batch")


def test_history_stays_a_list_of_epoch_records() -> None:
    model = regression_model()
    h = model.train(regression_data(n=16), epochs=2, batch_size=8, verbose=0)
    assert isinstance(h, twt.History) and isinstance(h, list) and len(h) == 2
    assert h[-1]["loss"] == h.history["loss"][-1] and h.state.epoch == 2
    assert np.isfinite(h.history["loss"]).all()


def test_a_checkpoint_of_another_shape_names_the_layer_and_variable(tmp_path) -> None:
    from types import SimpleNamespace

    from tensorweave_train.checkpoint import Checkpointer
    from tensorweave_train.restore import restore_checked

    def model(width: int) -> twt.Model:
        tw.reset_names()
        x = tw.Input(n_units=4, name="x")
        return twt.Model(inputs=x, outputs=Dense(Dense(x, width, name="enc"), 1, name="out"))

    small = model(8)
    small.build()
    Checkpointer(tmp_path).save(small, {"epoch": 0, "step": 0})
    wide = model(16)
    wide.build()
    with pytest.raises(tw.TensorweaveError) as caught:
        restore_checked(SimpleNamespace(model=wide), tmp_path, ())
    message = str(caught.value)
    assert "layer 'enc' (Dense), variable 'enc/" in message
    assert "the checkpoint holds shape (" in message and "8" in message and "16" in message


def test_verbose_1_is_a_bar_on_a_terminal_and_lines_elsewhere(capsys) -> None:
    import io

    from tensorweave_train.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    model = regression_model()
    data = regression_data(n=64)
    model.train(data, epochs=2, batch_size=8, verbose=0, callbacks=[Progress(1, file=screen)])
    shown = screen.getvalue()
    assert "Epoch 1/2" in shown and "Epoch 2/2" in shown and "8/8" in shown
    assert Progress(1, file=io.StringIO()).lines  # not a terminal: one line per epoch
    assert not Progress(0).lines and not Progress(0).bar


def test_the_bar_is_redrawn_at_most_every_redraw_seconds() -> None:
    import io

    from tensorweave_train.progress import Progress

    class Counting(Progress):
        BAR_EVERY = 1  # offered every step

        def __init__(self, *args, **kw) -> None:
            super().__init__(*args, **kw)
            self.drawn = 0

        def __call__(self, event, state) -> None:
            before = self._drawn
            super().__call__(event, state)
            self.drawn += self._drawn != before

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    data = regression_data(n=64)
    slow = Counting(1, file=Terminal())
    slow.REDRAW_SECONDS = 3600.0
    regression_model().train(data, epochs=2, batch_size=8, verbose=0, callbacks=[slow])
    eager = Counting(1, file=Terminal())
    eager.REDRAW_SECONDS = 0.0
    regression_model().train(data, epochs=2, batch_size=8, verbose=0, callbacks=[eager])
    assert slow.drawn == 1  # the first offer only (then once an hour)
    assert eager.drawn == 16  # every step of both epochs
    assert "8/8" in slow.file.getvalue()  # the epoch's end still shows the full count
