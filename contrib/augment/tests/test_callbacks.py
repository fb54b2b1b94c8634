"""``AugmentOff.v1`` in a real training: augmentation on for ``after_epoch`` epochs, then off,
reported as ``augment_strength``; built by name, from a config block, or as an object."""

import numpy as np
import pytest

import tensorweave as tw
import tensorweave_train as twt
from tensorweave import config
from tensorweave_augment import AugmentOff


def _model():
    x = tw.Input(n_units=4, name="x")
    t = tw.Input(n_units=1, name="t")
    noisy = tw.layers["tensorweave-augment:Augment.v1"](x, augmenter="AugmentJitter.v1")
    y = tw.layers["Linear.v1"](noisy, n_units=1)
    return twt.Model(
        inputs=x, outputs=y, targets=t, loss=tw.losses["mse.v1"](t, y), optimizer="SGD.v1"
    )


def _data():
    xs = np.random.default_rng(0).random((32, 4)).astype("float32")
    return {"x": xs, "t": xs.sum(axis=1, keepdims=True)}


def test_augmentation_stops_after_the_asked_epochs():
    model = _model()
    history = model.train(
        _data(), epochs=3, batch_size=16, verbose=0, callbacks=[AugmentOff(after_epoch=1)]
    )
    assert [epoch["augment_strength"] for epoch in history] == [1.0, 0.0, 0.0]
    model = _model()
    history = model.train(
        _data(), epochs=3, batch_size=16, verbose=0, callbacks=[AugmentOff(after_epoch=2)]
    )
    assert [epoch["augment_strength"] for epoch in history] == [1.0, 1.0, 0.0]
    augments = [layer for layer in model.layers if hasattr(layer, "strength")]
    assert augments and {float(a.strength.numpy()) for a in augments} == {0.0}


def test_the_callback_comes_by_name_and_from_a_config_block():
    assert tw.callbacks["AugmentOff.v1"] is AugmentOff
    built = config.resolve({"cb": {"@callbacks": "AugmentOff.v1", "after_epoch": 4}})["cb"]
    assert isinstance(built, AugmentOff) and built.after_epoch == 4


def test_a_negative_or_fractional_epoch_count_is_refused():
    for bad in (-1, 1.5):
        with pytest.raises(ValueError, match="after_epoch must be an int >= 0"):
            AugmentOff(after_epoch=bad)
