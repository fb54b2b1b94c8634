"""The conformance kit on ``KerasLayer.v1``: a factory makes a fresh Keras object per build
(so every checked layer has its own weights; partials keep the test ids stable)."""

import functools

import keras

from tensorweave.testing import Case, test_conformance  # noqa: F401

NAME = "tensorweave-keras:KerasLayer.v1"

TENSORWEAVE_CASES = [
    Case(NAME, {"layer": functools.partial(keras.layers.Dense, 4)}, inputs=[(None, 3)]),
    Case(
        NAME,
        {"layer": {"class_name": "Dense", "config": {"units": 2, "activation": "tanh"}}},
        inputs=[(None, None, 5)],
    ),
    Case(NAME, {"layer": functools.partial(keras.layers.LSTM, 3)}, inputs=[(None, None, 2)]),
    Case(NAME, {"layer": keras.layers.Add}, inputs=[(None, 3), (None, 3)]),
]
