"""NaN and infinite values in training: the one check of the data, the losses and the weights.

The ``Trainer`` warns with it (the data at the start, then once at an epoch's end) unless
the ``StopOnNaN.v1`` callback runs: then that callback is the one policy, and stops with
it. Both say what went non-finite, where, and what to try. A NaN can vanish from the
loss (``relu(NaN)`` is 0 on some kernels) while the weights rot, so the weights are looked
at too: one sum per variable reads them once, and only a variable whose sum is not finite
is looked at element by element.

>>> import numpy as np
>>> non_finite({"x": np.array([[0.0], [np.nan]])})
"field 'x' has NaN or inf values (first at example 1)"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf

if TYPE_CHECKING:
    from tensorweave_train.loop.events import TrainState

__all__ = ["NonFiniteWarning", "non_finite", "non_finite_weights", "epoch_problem"]


class NonFiniteWarning(RuntimeWarning):
    """NaN or infinite values in the training data, an epoch's loss or the weights."""


def non_finite(data: Any) -> str | None:
    """Where array ``data`` (``{name: array}`` or a tuple) first holds NaN/inf, or ``None``
    (one pass over float arrays; datasets, generators and lists of batches are not looked
    at, so nothing is consumed)."""
    if not isinstance(data, (Mapping, tuple)):
        return None
    items = data.items() if isinstance(data, Mapping) else enumerate(data)
    for key, value in items:
        if isinstance(value, np.ndarray) and value.dtype.kind in "fc":
            bad = ~np.isfinite(value)
            if bad.any():
                first = int(np.argwhere(bad)[0][0])
                return f"field {key!r} has NaN or inf values (first at example {first})"
    return None


def non_finite_weights(model: Any) -> list[str]:
    """Names of the float trainable variables of ``model`` holding NaN/inf.

    A sum is finite unless the variable holds NaN/inf or its finite values overflow the
    sum, so only a variable whose sum is not finite is looked at element by element.

    >>> import tensorflow as tf
    >>> class M:  # anything with trainable_variables
    ...     trainable_variables = [tf.Variable([1.0, float("nan")], name="w"),
    ...                            tf.Variable([3e38, 3e38], name="big")]
    >>> non_finite_weights(M())
    ['w:0']
    """
    variables = [v for v in getattr(model, "trainable_variables", ()) if v.dtype.is_floating]
    if not variables:
        return []
    totals = tf.stack([tf.cast(tf.reduce_sum(v), tf.float32) for v in variables]).numpy()
    return [
        v.name
        for v, total in zip(variables, totals, strict=True)
        if not np.isfinite(total) and not bool(tf.reduce_all(tf.math.is_finite(v)))
    ]


def epoch_problem(state: TrainState) -> str | None:
    """What went non-finite by the end of the epoch ``state`` is at: its mean training loss,
    else a trainable weight of ``state.model``; ``None`` when everything is finite."""
    loss = state.values.get("loss")
    if loss is not None and not np.isfinite(loss):
        return f"the training loss is {loss}"
    bad = non_finite_weights(state.model) if state.model is not None else []
    return f"the weights {bad[:3]} hold NaN/inf" if bad else None
