"""``History``: a list of epoch records, and Keras's ``history``, ``epoch`` and ``params``."""

from __future__ import annotations

import numpy as np
from twtrain_helpers import regression_data, regression_model

import tensorweave_train as twt


def test_history_stays_a_list_of_epoch_records() -> None:
    model = regression_model()
    h = model.train(regression_data(n=16), epochs=2, batch_size=8, verbose=0)
    assert isinstance(h, twt.History) and isinstance(h, list) and len(h) == 2
    assert h[-1]["loss"] == h.history["loss"][-1] and h.state.epoch == 2
    assert np.isfinite(h.history["loss"]).all()


def test_history_holds_float32_values_as_their_shortest_decimals() -> None:
    model = regression_model(optimizer=twt.SGD(0.0123))
    data = regression_data(n=24)
    h = model.train(data, epochs=2, batch_size=8, validation=data, verbose=0)
    for record in h:
        for name, value in record.items():  # "1.7690397", not "1.7690397474500867"
            assert repr(value) == str(np.float32(value)), (name, value)
    assert h.history["learning_rate"] == [0.0123, 0.0123]
