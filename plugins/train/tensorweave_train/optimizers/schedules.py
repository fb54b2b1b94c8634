"""Learning-rate schedules: functions of the step that scale an optimizer's base rate.

A schedule is a callable ``schedule(step) -> factor`` built from TensorFlow ops, so it runs
inside the compiled train step; the optimizer uses ``learning_rate * schedule(iterations)``.
Because the base rate stays a ``tf.Variable``, a schedule and ``ReduceLROnPlateau`` (a
callback that lowers the base rate) compose. Reduce-on-plateau is in ``callbacks``.

>>> import tensorflow as tf
>>> sched = CosineDecay(decay_steps=10)
>>> [round(float(sched(s)), 3) for s in (0, 5, 10, 20)]
[1.0, 0.5, 0.0, 0.0]
>>> opt_lr = 0.1 * WarmUp(4, then=sched)(tf.constant(1, tf.int64))  # 2 / 4 of the way up
>>> round(float(opt_lr), 3)
0.05
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any, Self

import tensorflow as tf

import tensorweave as tw
import tensorweave.config as twc

__all__ = [
    "Schedule",
    "Constant",
    "StepDecay",
    "ExponentialDecay",
    "CosineDecay",
    "WarmUp",
    "PolynomialDecay",
    "PiecewiseConstant",
    "CosineDecayRestarts",
    "InverseTimeDecay",
    "OneCycle",
]


class Schedule(twc.Configurable):
    """Base class; subclasses implement ``factor(step)`` on a float32 step tensor. A
    keyword the constructor does not take raises ``tw.ArgumentError`` naming the
    parameters and the closest match. A schedule remembers the arguments it was made with
    (``twc.Configurable``), so a saved model's config names it."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        tw.check_keywords(cls, kwargs)  # the words a config's unknown key gets
        obj: Self = super().__new__(cls, *args, **kwargs)
        return obj

    def __call__(self, step: Any) -> tf.Tensor:
        return self.factor(tf.cast(step, tf.float32))

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        raise NotImplementedError

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({args})"


class Constant(Schedule):
    """Always ``value`` (default 1: the base rate).

    >>> float(Constant(0.5)(3))
    0.5
    """

    def __init__(self, value: float = 1.0) -> None:
        self.value = float(value)

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        return tf.fill(tf.shape(step), self.value)


class StepDecay(Schedule):
    """Multiply by ``gamma`` every ``step_size`` steps: ``gamma ** floor(step / step_size)``.

    >>> [float(StepDecay(2, gamma=0.5)(s)) for s in (0, 1, 2, 5)]
    [1.0, 1.0, 0.5, 0.25]
    """

    def __init__(self, step_size: int, gamma: float = 0.1) -> None:
        if step_size <= 0:
            raise ValueError(f"StepDecay: step_size must be positive, got {step_size}.")
        self.step_size = int(step_size)
        self.gamma = float(gamma)

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        return tf.pow(self.gamma, tf.floor(step / self.step_size))


class ExponentialDecay(Schedule):
    """``decay_rate ** (step / decay_steps)`` (floored with ``staircase``), as Keras.

    >>> round(float(ExponentialDecay(10, 0.5)(5)), 4)
    0.7071
    """

    def __init__(self, decay_steps: int, decay_rate: float, staircase: bool = False) -> None:
        self.decay_steps = int(decay_steps)
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        p = step / self.decay_steps
        if self.staircase:
            p = tf.floor(p)
        return tf.pow(self.decay_rate, p)


class CosineDecay(Schedule):
    """Cosine from 1 down to ``alpha`` over ``decay_steps``, then ``alpha``, as Keras.

    >>> round(float(CosineDecay(4, alpha=0.1)(2)), 3)
    0.55
    """

    def __init__(self, decay_steps: int, alpha: float = 0.0) -> None:
        self.decay_steps = int(decay_steps)
        self.alpha = float(alpha)

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        done = tf.minimum(step, float(self.decay_steps)) / self.decay_steps
        cosine = 0.5 * (1.0 + tf.cos(math.pi * done))
        return (1.0 - self.alpha) * cosine + self.alpha


class WarmUp(Schedule):
    """Rise linearly over ``warmup_steps`` (``(step + 1) / warmup_steps``), then follow
    ``then(step - warmup_steps)`` (or stay at 1).

    >>> [float(WarmUp(2)(s)) for s in (0, 1, 2)]
    [0.5, 1.0, 1.0]
    """

    def __init__(self, warmup_steps: int, then: Callable[[Any], tf.Tensor] | None = None) -> None:
        self.warmup_steps = int(warmup_steps)
        self.then = then

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        warm = tf.minimum((step + 1.0) / self.warmup_steps, 1.0)
        if self.then is None:
            return warm
        after = tf.cast(self.then(tf.maximum(step - self.warmup_steps, 0.0)), tf.float32)
        return tf.where(step < self.warmup_steps, warm, after)


def _positive(value: Any, arg: str, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise tw.ArgumentError(f"{owner}: {arg} must be a positive number, got {value!r}.")
    return float(value)


class PolynomialDecay(Schedule):
    """From 1 down to ``end_factor`` over ``decay_steps`` as ``(1 - step / decay_steps) **
    power``, then ``end_factor``; with ``cycle`` it starts again from 1 over a period
    ``decay_steps`` times longer each time. Keras's ``PolynomialDecay`` with an initial rate
    of 1 (``end_factor`` is its ``end_learning_rate`` over the base rate).

    >>> [round(float(PolynomialDecay(4, end_factor=0.2)(s)), 2) for s in (0, 2, 4, 8)]
    [1.0, 0.6, 0.2, 0.2]
    """

    def __init__(
        self, decay_steps: int, end_factor: float = 0.0001, power: float = 1.0, cycle: bool = False
    ) -> None:
        self.decay_steps = tw.positive_int(decay_steps, "decay_steps", "PolynomialDecay")
        self.end_factor = float(end_factor)
        self.power = float(power)
        self.cycle = bool(cycle)

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        period = tf.constant(float(self.decay_steps))
        if self.cycle:
            period = period * tf.where(step == 0, 1.0, tf.math.ceil(step / period))
        else:
            step = tf.minimum(step, period)
        done = step / period
        return (1.0 - self.end_factor) * tf.pow(1.0 - done, self.power) + self.end_factor


class PiecewiseConstant(Schedule):
    """``values[0]`` up to step ``boundaries[0]`` (included), ``values[i]`` after
    ``boundaries[i - 1]`` up to ``boundaries[i]``, ``values[-1]`` after the last boundary,
    as Keras's ``PiecewiseConstantDecay`` (its values are rates; these, factors of the base
    rate).

    >>> [float(PiecewiseConstant([2, 4], [1.0, 0.5, 0.25])(s)) for s in (0, 2, 3, 5)]
    [1.0, 1.0, 0.5, 0.25]
    """

    def __init__(self, boundaries: Sequence[int], values: Sequence[float]) -> None:
        bounds = [float(b) for b in boundaries]
        if len(values) != len(bounds) + 1:
            raise tw.ArgumentError(
                f"PiecewiseConstant: {len(bounds)} boundaries need {len(bounds) + 1} values "
                f"(one before, between and after them), got {len(values)}. Fix: give one more "
                "value than boundaries."
            )
        if any(a >= b for a, b in itertools.pairwise(bounds)):
            raise tw.ArgumentError(
                f"PiecewiseConstant: boundaries must increase, got {list(boundaries)}."
            )
        self.boundaries = bounds
        self.values = [float(v) for v in values]

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        bounds = tf.constant(self.boundaries or [math.inf], tf.float32)
        index = tf.searchsorted(bounds, tf.reshape(step, [-1]), side="left")
        picked = tf.gather(tf.constant(self.values, tf.float32), index)
        return tf.reshape(picked, tf.shape(step))


class CosineDecayRestarts(Schedule):
    """Cosine decay from 1 to ``alpha`` over ``first_decay_steps``, then restarts (SGDR,
    Loshchilov & Hutter): each period ``t_mul`` times longer and starting ``m_mul`` times
    lower, as Keras's ``CosineDecayRestarts`` with an initial rate of 1.

    >>> [round(float(CosineDecayRestarts(4, t_mul=1.0, m_mul=0.5)(s)), 3) for s in (0, 2, 4, 6)]
    [1.0, 0.5, 0.5, 0.25]
    """

    def __init__(
        self, first_decay_steps: int, t_mul: float = 2.0, m_mul: float = 1.0, alpha: float = 0.0
    ) -> None:
        owner = "CosineDecayRestarts"
        self.first_decay_steps = tw.positive_int(first_decay_steps, "first_decay_steps", owner)
        self.t_mul = _positive(t_mul, "t_mul", owner)
        self.m_mul = float(m_mul)
        self.alpha = float(alpha)

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        done = step / float(self.first_decay_steps)
        t_mul = self.t_mul
        if t_mul == 1.0:
            restarts = tf.floor(done)
            done = done - restarts
        else:
            restarts = tf.floor(tf.math.log(1.0 - done * (1.0 - t_mul)) / math.log(t_mul))
            passed = (1.0 - tf.pow(t_mul, restarts)) / (1.0 - t_mul)
            done = (done - passed) / tf.pow(t_mul, restarts)
        cosine = 0.5 * tf.pow(self.m_mul, restarts) * (1.0 + tf.cos(math.pi * done))
        return (1.0 - self.alpha) * cosine + self.alpha


class InverseTimeDecay(Schedule):
    """``1 / (1 + decay_rate * step / decay_steps)`` (the ratio floored with
    ``staircase``), as Keras's ``InverseTimeDecay`` with an initial rate of 1.

    >>> [round(float(InverseTimeDecay(10, 1.0)(s)), 3) for s in (0, 10, 30)]
    [1.0, 0.5, 0.25]
    """

    def __init__(self, decay_steps: int, decay_rate: float, staircase: bool = False) -> None:
        self.decay_steps = tw.positive_int(decay_steps, "decay_steps", "InverseTimeDecay")
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        p = step / float(self.decay_steps)
        if self.staircase:
            p = tf.floor(p)
        return 1.0 / (1.0 + self.decay_rate * p)


class OneCycle(Schedule):
    """The one-cycle policy (Smith & Topin; PyTorch's ``OneCycleLR``), as a factor of the
    base rate, which is the peak: from ``1 / div_factor`` up to 1 over the first
    ``pct_start`` of ``total_steps``, then down to ``1 / (div_factor * final_div_factor)``
    at the last step (and there after it), by half cosines (``anneal_strategy="cos"``) or
    straight lines (``"linear"``). ``three_phase`` goes back down to the start first and
    ends with the last descent, as PyTorch's.

    >>> sched = OneCycle(10, pct_start=0.5, div_factor=10.0, final_div_factor=1.0,
    ...                  anneal_strategy="linear")
    >>> [round(float(sched(s)), 2) for s in (0, 2, 4, 7, 9, 20)]
    [0.1, 0.55, 1.0, 0.46, 0.1, 0.1]
    """

    def __init__(
        self,
        total_steps: int,
        pct_start: float = 0.3,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        anneal_strategy: str = "cos",
        three_phase: bool = False,
    ) -> None:
        owner = "OneCycle"
        self.total_steps = tw.positive_int(total_steps, "total_steps", owner)
        if not 0.0 < pct_start < 1.0:
            raise tw.ArgumentError(f"{owner}: pct_start must be in (0, 1), got {pct_start!r}.")
        if anneal_strategy not in ("cos", "linear"):
            raise tw.ArgumentError(
                f"{owner}: anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}."
            )
        self.pct_start = float(pct_start)
        self.div_factor = _positive(div_factor, "div_factor", owner)
        self.final_div_factor = _positive(final_div_factor, "final_div_factor", owner)
        self.anneal_strategy = anneal_strategy
        self.three_phase = bool(three_phase)

    def _phases(self) -> list[tuple[float, float, float]]:
        """``(last step, start factor, end factor)`` of each phase, as PyTorch's."""
        start = 1.0 / self.div_factor
        low = start / self.final_div_factor
        up = self.pct_start * self.total_steps - 1.0
        last = self.total_steps - 1.0
        if self.three_phase:
            return [(up, start, 1.0), (2 * up, 1.0, start), (last, start, low)]
        return [(up, start, 1.0), (last, 1.0, low)]

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        values, ends = [], []
        begin = 0.0
        for end, high, low in self._phases():
            done = tf.clip_by_value((step - begin) / max(end - begin, 1e-12), 0.0, 1.0)
            if self.anneal_strategy == "cos":
                values.append(low + (high - low) / 2.0 * (tf.cos(math.pi * done) + 1.0))
            else:
                values.append((low - high) * done + high)
            ends.append(end)
            begin = end
        # the first phase whose last step is not passed (the last phase after the end)
        out = values[-1]
        for value, end in zip(values[-2::-1], ends[-2::-1], strict=True):
            out = tf.where(step <= end, value, out)
        return out
