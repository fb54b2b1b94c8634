"""``Ftrl``: Follow The Regularized Leader (McMahan et al.), with L1/L2 and shrinkage, as Keras 3."""

from __future__ import annotations

import tensorflow as tf

import tensorweave as tw
from tensorweave_train.optimizers.optimizer import Optimizer, ScheduleLike, scatter_rows

__all__ = ["Ftrl"]


class Ftrl(Optimizer):
    """FTRL-Proximal, as Keras 3: per coordinate, an accumulator ``n`` of squared gradients
    (starting at ``initial_accumulator_value``) and a linear term ``z``; the weight is the
    closed-form minimiser ``(clip(z, ±l1) - z) / (n^-p / lr + 2 * l2)``, zero where
    ``|z| <= l1`` (sparse models). ``p`` is ``learning_rate_power`` (-0.5: Adagrad-like),
    ``beta`` adds ``beta / (2 lr)`` to ``l2``, and ``l2_shrinkage_regularization_strength``
    shrinks the weights through the gradient. Sparse gradients update their rows only.

    >>> import tensorflow as tf
    >>> v = tf.Variable([0.5]); opt = Ftrl(0.1, l1_regularization_strength=10.0)
    >>> opt.apply_gradients([(tf.constant([1.0]), v)]); float(v[0])  # |z| <= l1: zero
    0.0
    """

    tracked = (
        *Optimizer.tracked,
        "learning_rate_power",
        "l1_regularization_strength",
        "l2_regularization_strength",
        "l2_shrinkage_regularization_strength",
        "beta",
    )
    slot_names = ("accumulator", "linear")

    def __init__(
        self,
        learning_rate: float = 0.001,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float = 0.0,
        *,
        schedule: ScheduleLike | None = None,
        clip_value: float | None = None,
        clip_norm: float | None = None,
        clip_global_norm: float | None = None,
        weight_decay: float | None = None,
        ema: bool | float = False,
        ema_overwrite_frequency: int | None = None,
        accumulate_steps: int = 1,
        name: str | None = None,
    ) -> None:
        super().__init__(
            learning_rate,
            schedule=schedule,
            clip_value=clip_value,
            clip_norm=clip_norm,
            clip_global_norm=clip_global_norm,
            weight_decay=weight_decay,
            ema=ema,
            ema_overwrite_frequency=ema_overwrite_frequency,
            accumulate_steps=accumulate_steps,
            name=name,
        )
        signs = {  # Keras's checks: the power is <= 0, the rest >= 0
            "learning_rate_power": (learning_rate_power, -1),
            "initial_accumulator_value": (initial_accumulator_value, 1),
            "l1_regularization_strength": (l1_regularization_strength, 1),
            "l2_regularization_strength": (l2_regularization_strength, 1),
            "l2_shrinkage_regularization_strength": (l2_shrinkage_regularization_strength, 1),
        }
        for arg, (value, sign) in signs.items():
            if value * sign < 0:
                rule = ">= 0" if sign > 0 else "<= 0"
                raise tw.ArgumentError(
                    f"Ftrl: {arg} must be {rule}, got {value!r}. Fix: a value {rule} (the "
                    "defaults are Keras's)."
                )
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.learning_rate_power = self._hyper("learning_rate_power", learning_rate_power)
        self.l1_regularization_strength = self._hyper(
            "l1_regularization_strength", l1_regularization_strength
        )
        self.l2_regularization_strength = self._hyper(
            "l2_regularization_strength", l2_regularization_strength
        )
        self.l2_shrinkage_regularization_strength = self._hyper(
            "l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength
        )
        self.beta = self._hyper("beta", beta)

    def _init_slot(self, name: str, var: tf.Variable) -> tf.Tensor:
        if name == "accumulator":
            return tf.fill(var.shape, tf.cast(self.initial_accumulator_value, var.dtype))
        return super()._init_slot(name, var)

    def _step_of(self, g, w, accum, linear, lr, dtype):  # type: ignore[no-untyped-def]
        def hyper(v: tf.Variable) -> tf.Tensor:
            return tf.cast(v, dtype)

        power = hyper(self.learning_rate_power)
        l1 = hyper(self.l1_regularization_strength)
        l2 = hyper(self.l2_regularization_strength) + hyper(self.beta) / (2.0 * lr)
        shrunk = g + 2 * hyper(self.l2_shrinkage_regularization_strength) * w
        new_accum = accum + tf.square(g)
        linear = linear + (shrunk - (tf.pow(new_accum, -power) - tf.pow(accum, -power)) / lr * w)
        quadratic = tf.pow(new_accum, -power) / lr + 2 * l2
        w = (tf.clip_by_value(linear, -l1, l1) - linear) / quadratic
        return w, new_accum, linear

    def _dense(self, var, g, lr, accum, linear):  # type: ignore[no-untyped-def]
        w, new_accum, new_linear = self._step_of(g, var, accum, linear, lr, var.dtype)
        linear.assign(new_linear)
        var.assign(w)
        accum.assign(new_accum)

    def _sparse(self, var, g, idx, lr, accum, linear):  # type: ignore[no-untyped-def]
        w_rows, accum_rows, linear_rows = (tf.gather(s, idx) for s in (var, accum, linear))
        w, new_accum, new_linear = self._step_of(g, w_rows, accum_rows, linear_rows, lr, var.dtype)
        scatter_rows(linear, idx, new_linear)
        var.scatter_update(tf.IndexedSlices(w, idx))
        scatter_rows(accum, idx, new_accum)
