"""``Model.summary``: every parameter counted once, targets, loss and metrics labelled."""

from __future__ import annotations

import tensorflow as tf
from twtrain_helpers import Dense

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
