"""``Trainer``: callbacks from objects, registered names and ``(name, params)`` pairs; third-party
callbacks and trainers by name."""

from __future__ import annotations

import pytest
from twtrain_helpers import regression_data, regression_model

import tensorweave as tw
import tensorweave_train as twt


def test_callbacks_by_registered_name():
    tw.plugins.refresh()
    for name in (
        "EarlyStopping.v1",
        "StopOnNaN.v1",
        "CSVLogger.v1",
        "ProgressBar.v1",
        "TensorBoard.v1",
        "ReduceLROnPlateau.v1",
        "Checkpoint.v1",
        "LambdaCallback.v1",
    ):
        assert name in tw.callbacks, name
    model = regression_model()
    h = model.train(
        regression_data(n=16),
        epochs=5,
        batch_size=8,
        callbacks=["StopOnNaN.v1", ("EarlyStopping.v1", {"monitor": "loss", "patience": 100})],
    )
    assert len(h) == 5
    with pytest.raises(TypeError, match="Callback"):
        model.train(regression_data(n=16), epochs=1, callbacks=[print])


def test_third_party_callback_by_registered_name_and_trainer_name():
    calls = []

    class Mine(twt.Callback):
        triggers = (twt.on_train("end"),)

        def __init__(self, tag="x"):
            self.tag = tag

        def __call__(self, event, state):
            calls.append((self.tag, state.step))

    with tw.callbacks.scoped():
        tw.callbacks.register("Mine.v1", Mine)
        regression_model().train(
            regression_data(n=16), epochs=1, batch_size=8, callbacks=[("Mine.v1", {"tag": "t"})]
        )
    assert calls == [("t", 2)]
    tw.plugins.refresh()
    assert tw.trainers["Trainer.v1"] is twt.Trainer
    h = tw.trainers["Trainer.v1"](regression_model()).run(regression_data(n=16), 1, batch_size=8)
    assert len(h) == 1
