"""``CSVLogger`` and ``TensorBoard``: rows and scalars as Keras writes them."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import regression_data, regression_model

import tensorweave_train as twt


def test_csv_logger_appends_rows(tmp_path):
    path = tmp_path / "log.csv"
    model = regression_model()
    data = regression_data(n=16)
    model.train(data, epochs=2, batch_size=8, validation=data, callbacks=[twt.CSVLogger(path)])
    model.train(data, epochs=1, batch_size=8, validation=data, callbacks=[twt.CSVLogger(path)])
    with open(path) as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["1", "2", "1"]  # numbered from 1
    assert list(rows[0]) == ["epoch", "step", "loss", "mae", "val_loss", "val_mae", "learning_rate"]
    assert float(rows[1]["step"]) == 4
    for row in rows:  # float32 figures, written as their shortest decimals
        assert all(row[k] == str(np.float32(row[k])) for k in ("loss", "mae", "learning_rate"))


def test_csv_logger_flushes_each_row_and_syncs_at_the_end(tmp_path, monkeypatch):
    import os

    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    path = tmp_path / "log.csv"
    seen = []

    def read_rows(ev, st):  # at each epoch end, after the logger (priority 50 < 90)
        with open(path) as f:
            seen.append(len(list(csv.DictReader(f))))

    reader = twt.LambdaCallback(read_rows, twt.on_epoch(), priority=90)
    model = regression_model()
    model.train(
        regression_data(n=16),
        epochs=3,
        batch_size=8,
        verbose=0,
        callbacks=[twt.CSVLogger(path), reader],
    )
    assert seen == [1, 2, 3]  # every row readable at once (flushed): a crash loses none
    assert len(synced) == 1  # one fsync, when training ended (not one per epoch)


def test_tensorboard_scalars(tmp_path):
    model = regression_model()
    data = regression_data(n=16)
    model.train(data, epochs=2, batch_size=8, callbacks=[twt.TensorBoard(tmp_path, update_freq=1)])
    tags = {}
    for f in tmp_path.iterdir():
        for ev in tf.compat.v1.train.summary_iterator(str(f)):
            for v in ev.summary.value:
                tags.setdefault(v.tag, []).append(ev.step)
    assert tags["step/loss"] == [1, 2, 3, 4]
    assert tags["epoch/loss"] == tags["epoch/mae"] == [2, 4]  # the training metric, as "loss"
    graphs = [
        ev
        for f in tmp_path.iterdir()
        for ev in tf.compat.v1.train.summary_iterator(str(f))
        if ev.graph_def
    ]
    assert graphs  # the train step's graph
    assert model.train_trace_count == 1


def test_tensorboard_writes_a_models_graph_once(tmp_path):
    model = regression_model()
    data = regression_data(n=16)
    board = twt.TensorBoard(tmp_path)
    for _ in range(3):  # the same callback over several train calls (as a sweep or a notebook)
        model.train(data, epochs=1, batch_size=8, verbose=0, callbacks=[board])
    graphs = [
        ev
        for f in tmp_path.iterdir()
        for ev in tf.compat.v1.train.summary_iterator(str(f))
        if ev.graph_def
    ]
    assert len(graphs) == 1


def test_tensorboard_update_freq_as_keras(tmp_path) -> None:
    assert twt.TensorBoard(tmp_path, update_freq="epoch").triggers[-1].event.name != "STEP_END"
    with pytest.raises(ValueError, match="update_freq"):
        twt.TensorBoard(tmp_path, update_freq="batch")
