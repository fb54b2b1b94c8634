"""``LearningRateScheduler``: the rates of Keras's callback for a function of the epoch, a
schedule of this pack as a factor of the starting rate, kept across a resume."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from twtrain_helpers import regression_data, regression_model

import tensorweave as tw
import tensorweave_train as twt


def halve_after_first(epoch, lr):
    return lr if epoch < 1 else lr * 0.5


def by_epoch(epoch):
    return 0.1 / (1 + epoch)


@pytest.mark.parametrize("schedule", [halve_after_first, by_epoch], ids=["(epoch, lr)", "(epoch)"])
def test_rates_match_keras(schedule) -> None:
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.1), loss="mse")
    data = regression_data(n=16)
    theirs = model.fit(
        data["x"],
        data["t"],
        epochs=4,
        verbose=0,
        callbacks=[keras.callbacks.LearningRateScheduler(schedule)],
    ).history["learning_rate"]
    ours = regression_model(optimizer=twt.SGD(0.1)).train(
        data, epochs=4, batch_size=8, callbacks=[twt.LearningRateScheduler(schedule)], verbose=0
    )
    np.testing.assert_allclose(ours.history["learning_rate"], theirs, rtol=1e-6)


def test_a_schedule_scales_the_starting_rate_and_resumes(tmp_path) -> None:
    def train(epochs, run_dir=None, resume=None):
        model = regression_model(optimizer=twt.SGD(0.2))
        cbs = [twt.LearningRateScheduler(twt.StepDecay(2, gamma=0.5))]
        if run_dir is not None:
            cbs.append(twt.CheckpointCallback(run_dir))
        data = regression_data(n=16)
        return model.train(data, epochs=epochs, batch_size=8, callbacks=cbs, resume=resume)

    whole = train(5).history["learning_rate"]
    assert whole == pytest.approx([0.2, 0.2, 0.1, 0.1, 0.05])
    train(3, tmp_path)  # a run stopped after epoch 3 (its rate lowered to 0.1), then resumed
    resumed = train(5, tmp_path, resume=tmp_path)
    assert resumed.history["learning_rate"] == pytest.approx(whole)
    assert resumed.state.history[2]["step"] == 6.0  # epochs 1-3 restored, not redone


def test_a_schedule_by_name_and_bad_returns() -> None:
    with tw.schedules.scoped():

        @tw.schedules.register("Halving.v1")
        class Halving(twt.Schedule):
            def factor(self, step):
                return 0.5**step

        cb = twt.LearningRateScheduler("Halving.v1")
        h = regression_model(optimizer=twt.SGD(0.4)).train(
            regression_data(n=8), epochs=3, batch_size=8, callbacks=[cb], verbose=0
        )
        assert h.history["learning_rate"] == pytest.approx([0.4, 0.2, 0.1])
    bad = twt.LearningRateScheduler(lambda epoch: "fast")
    with pytest.raises(tw.ArgumentError, match="must return one number"):
        regression_model().train(regression_data(n=8), epochs=1, callbacks=[bad], verbose=0)
    with pytest.raises(tw.ArgumentError, match="must be a function of the epoch"):
        twt.LearningRateScheduler(3)  # type: ignore[arg-type]
