"""The optimizers, schedules and callbacks the catalogue promises (issue 22), each registered
by this pack with a docstring example, and each optimizer naming every shared option: the
test fails when one is missing."""

import inspect

import pytest

import tensorweave as tw

DIST = "tensorweave-train"
PROMISED = {
    "optimizers": ["Nadam", "Adamax", "Adadelta", "Ftrl", "Lion", "Lamb", "Adafactor"],
    "schedules": [
        "PolynomialDecay",
        "PiecewiseConstant",
        "CosineDecayRestarts",
        "InverseTimeDecay",
        "OneCycle",
    ],
    "callbacks": ["LearningRateScheduler", "SwapEMAWeights"],
}
ROWS = [(kind, f"{name}.v1") for kind, names in PROMISED.items() for name in names]


@pytest.mark.parametrize(("kind", "name"), ROWS, ids=[f"{k}:{n}" for k, n in ROWS])
def test_registered_and_documented(kind: str, name: str) -> None:
    registry = tw.registry(kind)
    assert name in registry.names(), f"{kind} {name} is not registered"
    assert DIST in registry.providers(name)
    component = registry[f"{DIST}:{name}"]
    assert ">>>" in (component.__doc__ or ""), f"{name}: no docstring example"
    if kind == "optimizers":
        params = inspect.signature(component).parameters
        assert {"ema", "ema_overwrite_frequency", "accumulate_steps"} <= set(params)
