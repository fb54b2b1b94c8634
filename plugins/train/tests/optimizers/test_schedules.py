"""The catalogue schedules against Keras's (an initial rate of 1: ours are factors of the
base rate), ``OneCycle`` against a numpy transcription of PyTorch's ``OneCycleLR``, and the
base class's constructor check."""

from __future__ import annotations

import math

import keras
import numpy as np
import pytest

import tensorweave as tw
import tensorweave_train as twt

ks = keras.optimizers.schedules
STEPS = (0, 1, 3, 7, 10, 11, 19, 26, 40)

PAIRS = [
    ("PolynomialDecay", twt.PolynomialDecay(10, 0.1, 2.0), ks.PolynomialDecay(1.0, 10, 0.1, 2.0)),
    (
        "PolynomialDecay-cycle",
        twt.PolynomialDecay(10, 0.1, 0.5, cycle=True),
        ks.PolynomialDecay(1.0, 10, 0.1, 0.5, cycle=True),
    ),
    (
        "PiecewiseConstant",
        twt.PiecewiseConstant([3, 10, 19], [1.0, 0.5, 0.2, 0.05]),
        ks.PiecewiseConstantDecay([3, 10, 19], [1.0, 0.5, 0.2, 0.05]),
    ),
    (
        "CosineDecayRestarts",
        twt.CosineDecayRestarts(5, t_mul=2.0, m_mul=0.8, alpha=0.1),
        ks.CosineDecayRestarts(1.0, 5, t_mul=2.0, m_mul=0.8, alpha=0.1),
    ),
    (
        "CosineDecayRestarts-t_mul-1",
        twt.CosineDecayRestarts(4, t_mul=1.0),
        ks.CosineDecayRestarts(1.0, 4, t_mul=1.0),
    ),
    ("InverseTimeDecay", twt.InverseTimeDecay(4, 0.5), ks.InverseTimeDecay(1.0, 4, 0.5)),
    (
        "InverseTimeDecay-staircase",
        twt.InverseTimeDecay(4, 0.5, staircase=True),
        ks.InverseTimeDecay(1.0, 4, 0.5, staircase=True),
    ),
]


@pytest.mark.parametrize("label,ours,theirs", PAIRS, ids=[p[0] for p in PAIRS])
def test_matches_keras(label, ours, theirs) -> None:
    got = [float(ours(s)) for s in STEPS]
    want = [float(theirs(s)) for s in STEPS]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def one_cycle_reference(step, total, pct, div, final_div, cos=True, three_phase=False):
    """PyTorch's ``OneCycleLR.get_lr`` (max_lr = 1), transcribed; held at the end after it."""
    initial, low = 1.0 / div, 1.0 / div / final_div
    up = float(pct * total) - 1
    phases = [(up, initial, 1.0), (float(total) - 1, 1.0, low)]
    if three_phase:
        phases = [(up, initial, 1.0), (2 * up, 1.0, initial), (float(total) - 1, initial, low)]
    step = min(step, total - 1)
    start = 0.0
    for i, (end, a, b) in enumerate(phases):
        if step <= end or i == len(phases) - 1:
            pct_done = (step - start) / (end - start)
            if cos:
                return b + (a - b) / 2.0 * (math.cos(math.pi * pct_done) + 1)
            return (b - a) * pct_done + a
        start = end
    raise AssertionError


@pytest.mark.parametrize(
    "options",
    [{}, {"anneal_strategy": "linear", "pct_start": 0.25}, {"three_phase": True}],
    ids=["cos", "linear", "three-phase"],
)
def test_one_cycle_matches_pytorchs_rule(options) -> None:
    sched = twt.OneCycle(40, div_factor=10.0, final_div_factor=100.0, **options)
    cos = options.get("anneal_strategy", "cos") == "cos"
    pct = options.get("pct_start", 0.3)
    for step in range(45):
        want = one_cycle_reference(step, 40, pct, 10.0, 100.0, cos, options.get("three_phase"))
        assert float(sched(step)) == pytest.approx(want, rel=1e-5, abs=1e-7), step


def test_arguments_are_checked() -> None:
    with pytest.raises(tw.ArgumentError, match="3 boundaries need 4 values"):
        twt.PiecewiseConstant([1, 2, 3], [1.0, 0.5])
    with pytest.raises(tw.ArgumentError, match="boundaries must increase"):
        twt.PiecewiseConstant([3, 2], [1.0, 0.5, 0.1])
    with pytest.raises(tw.ArgumentError, match="pct_start must be in"):
        twt.OneCycle(10, pct_start=1.0)
    with pytest.raises(tw.ArgumentError, match="decay_steps must be a positive integer"):
        twt.PolynomialDecay(0)


def test_an_optimizer_follows_a_registered_schedule_from_a_config() -> None:
    import tensorweave.config as twc

    built = twc.resolve(
        {
            "optimizer": {
                "@optimizers": "SGD.v1",
                "learning_rate": 0.5,
                "schedule": {
                    "@schedules": "PiecewiseConstant.v1",
                    "boundaries": [1],
                    "values": [1.0, 0.1],
                },
            }
        }
    )
    opt = built["optimizer"]
    rates = []
    for _ in range(3):
        rates.append(float(opt.current_learning_rate()))
        opt.iterations.assign_add(1)
    assert rates == pytest.approx([0.5, 0.5, 0.05])


def test_schedule_keyword_it_does_not_take_names_the_parameters():
    with pytest.raises(tw.ArgumentError, match=r"'decay_step' .* Did you mean 'decay_steps'\?"):
        twt.CosineDecay(decay_step=10)
    assert float(twt.CosineDecay(decay_steps=10, alpha=0.5)(10)) == pytest.approx(0.5)

    class Halving(twt.Schedule):
        def __init__(self, **options: float) -> None:
            self.options = options

        def factor(self, step):
            return 0.5**step

    assert Halving(every=2.0).options == {"every": 2.0}  # **options: any keyword
