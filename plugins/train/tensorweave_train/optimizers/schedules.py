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

import math
from collections.abc import Callable
from typing import Any, Self

import tensorflow as tf

import tensorweave as tw

__all__ = ["Schedule", "Constant", "StepDecay", "ExponentialDecay", "CosineDecay", "WarmUp"]


class Schedule:
    """Base class; subclasses implement ``factor(step)`` on a float32 step tensor. A
    keyword the constructor does not take raises ``tw.ArgumentError`` naming the
    parameters and the closest match."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        tw.check_keywords(cls, kwargs)  # the words a config's unknown key gets
        return super().__new__(cls)

    def __call__(self, step: Any) -> tf.Tensor:
        return self.factor(tf.cast(step, tf.float32))

    def factor(self, step: tf.Tensor) -> tf.Tensor:
        raise NotImplementedError

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
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
