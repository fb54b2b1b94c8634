"""Learning-rate schedules: the base class's constructor check (values: test_optimizers)."""

from __future__ import annotations

import pytest

import tensorweave as tw
import tensorweave_train as twt


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
