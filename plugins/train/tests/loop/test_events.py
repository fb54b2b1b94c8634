"""Events and triggers: which callbacks run on which event, in which order, seeing what."""

from __future__ import annotations

import pytest
from twtrain_helpers import regression_data, regression_model

import tensorweave as tw
import tensorweave_train as twt


def test_triggers_every_n_start_end_and_priorities():
    log = []

    def rec(tag):
        return lambda ev, st: log.append((tag, ev.value, st.epoch, st.step))

    cbs = [
        twt.LambdaCallback(rec("late"), twt.on_epoch(), priority=5),
        twt.LambdaCallback(rec("early"), twt.on_epoch(), priority=-5),
        twt.LambdaCallback(rec("step3"), twt.on_step(every=3)),
        twt.LambdaCallback(rec("start"), twt.on_train("start"), twt.on_epoch(every=2, at="start")),
        twt.LambdaCallback(rec("end"), twt.on_train("end")),
    ]
    model = regression_model()
    model.train(regression_data(n=32), epochs=3, batch_size=8, callbacks=cbs)  # 4 steps/epoch
    assert [e for e in log if e[0] == "step3"] == [
        ("step3", "step_end", 0, 3),
        ("step3", "step_end", 1, 6),
        ("step3", "step_end", 2, 9),
        ("step3", "step_end", 2, 12),
    ]
    assert [e for e in log if e[0] == "start"] == [
        ("start", "train_start", 0, 0),
        ("start", "epoch_start", 1, 4),
    ]
    epoch_ends = [e[0] for e in log if e[1] == "epoch_end"]
    assert epoch_ends == ["early", "late"] * 3
    assert log[-1] == ("end", "train_end", 3, 12)


def test_value_change_events():
    changes = []
    cb = twt.LambdaCallback(
        lambda ev, st: changes.append((st.changed, st.values[st.changed])), twt.on_change("val_mae")
    )
    model = regression_model()
    data = regression_data(n=16)
    model.train(data, epochs=2, batch_size=8, validation=data, callbacks=[cb])
    assert [c[0] for c in changes] == ["val_mae", "val_mae"]
    assert changes[1][1] == model.evaluate(data, batch_size=8)["mae"]


def test_step_start_trigger_sees_the_step_about_to_run():
    seen = []
    cb = twt.LambdaCallback(lambda ev, st: seen.append(st.step), twt.on_step(every=2, at="start"))
    regression_model().train(regression_data(n=32), epochs=1, batch_size=8, callbacks=[cb])
    assert seen == [1, 3]  # before steps 2 and 4 (state.step counts finished steps)


def test_callback_keyword_it_does_not_take_names_the_parameters():
    with pytest.raises(tw.ArgumentError, match=r"'patiense' .* Did you mean 'patience'\?"):
        twt.EarlyStopping(patiense=2)

    class Counting(twt.Callback):
        def __init__(self, every: int = 1, **options: object) -> None:
            self.every, self.options = every, options

    assert Counting(every=2, colour="red").options == {"colour": "red"}  # **options: any
    with pytest.raises(tw.ArgumentError, match=r"Parameters: fn, priority"):
        twt.LambdaCallback(print, prority=1)
