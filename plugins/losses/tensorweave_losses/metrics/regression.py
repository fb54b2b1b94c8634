"""Regression metrics: mean squared, root mean squared and mean absolute error, and R².

The errors are (weighted) means over examples of the per-example losses of ``regression``
(the mean over the last axis), as Keras's metrics: unlike the losses' ``"mean"`` reduction,
they divide by the total weight. R² accumulates per-output sums. Both are exact under
streaming evaluation: a figure over many batches equals the figure over all of them at once.

>>> from tensorweave_losses.metrics.regression import root_mean_squared_error, r2_score
>>> float(root_mean_squared_error([[0.0], [0.0]], [[3.0], [4.0]]))  # sqrt((9 + 16) / 2)
3.535533905029297
>>> float(r2_score([1.0, 2.0, 3.0], [1.0, 2.0, 4.0]))  # 1 - 1 / 2
0.5
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_losses.base import paired, weights_like
from tensorweave_losses.losses.regression import mae, mse
from tensorweave_losses.nodes import graph_function
from tensorweave_losses.streaming.accumulators import StreamingMetric, mean_parts, ratio
from tensorweave_losses.streaming.states import Maker, Shapes, last_axis, streams

__all__ = [
    "mean_squared_error",
    "root_mean_squared_error",
    "mean_absolute_error",
    "r2_score",
    "error_parts",
    "r2_parts",
    "r2_result",
    "CLASS_AGGREGATIONS",
    "StreamingError",
    "StreamingR2",
]

#: the per-example error of each error metric (a loss with ``reduction="none"``)
ERRORS: dict[str, Callable[..., tf.Tensor]] = {
    "mse": mse.function,
    "rmse": mse.function,
    "mae": mae.function,
}
#: how R² combines its outputs (``None``: one score per output)
CLASS_AGGREGATIONS = ("uniform_average", "variance_weighted_average", None)


def error_parts(
    metric: str, labels: Any, predictions: Any, *, sample_weight: Any = None
) -> tuple[tf.Tensor, tf.Tensor]:
    """(weighted sum, total weight) of the per-example errors of ``metric`` (``"mse"``,
    ``"rmse"`` or ``"mae"``)."""
    errors = ERRORS[metric](labels, predictions, reduction="none")
    return mean_parts(errors, sample_weight=sample_weight)


def error_result(metric: str, total: tf.Tensor, weight: tf.Tensor) -> tf.Tensor:
    """The weighted mean error (its square root for ``"rmse"``)."""
    mean = ratio(total, weight)
    return tf.sqrt(mean) if metric == "rmse" else mean


@graph_function
def mean_squared_error(labels: Any, predictions: Any, *, sample_weight: Any = None) -> tf.Tensor:
    """Weighted mean over examples of ``mean((y - p) ** 2)``, as
    ``keras.metrics.MeanSquaredError``.

    >>> float(mean_squared_error([[0.0], [0.0]], [[1.0], [3.0]], sample_weight=[3.0, 1.0]))
    3.0"""
    return error_result(
        "mse", *error_parts("mse", labels, predictions, sample_weight=sample_weight)
    )


@graph_function
def root_mean_squared_error(
    labels: Any, predictions: Any, *, sample_weight: Any = None
) -> tf.Tensor:
    """Square root of ``mean_squared_error`` over all examples (not a mean of per-batch
    roots), as ``keras.metrics.RootMeanSquaredError``.

    >>> float(root_mean_squared_error([[0.0], [0.0]], [[1.0], [3.0]], sample_weight=[3.0, 1.0]))
    1.7320507764816284"""
    parts = error_parts("rmse", labels, predictions, sample_weight=sample_weight)
    return error_result("rmse", *parts)


@graph_function
def mean_absolute_error(labels: Any, predictions: Any, *, sample_weight: Any = None) -> tf.Tensor:
    """Weighted mean over examples of ``mean(|y - p|)``, as ``keras.metrics.MeanAbsoluteError``.

    >>> float(mean_absolute_error([[0.0, 0.0]], [[1.0, -3.0]]))
    2.0"""
    return error_result(
        "mae", *error_parts("mae", labels, predictions, sample_weight=sample_weight)
    )


def r2_parts(
    labels: Any, predictions: Any, *, sample_weight: Any = None
) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor]:
    """Per output (``[outputs]``, the last axis; one for rank-1 inputs): weighted sums of
    ``y``, ``y²`` and ``(y - p)²`` and the total weight; and the number of entries."""
    labels, predictions = paired(
        "r2", labels, predictions, "labels must have the predictions' shape (one per output)."
    )
    if labels.shape.rank == 1:
        labels, predictions = labels[:, None], predictions[:, None]
    w = tf.ones_like(labels)
    if sample_weight is not None:
        w = tf.broadcast_to(weights_like("r2", sample_weight, labels), tf.shape(labels))
    outputs = tf.shape(labels)[-1]
    y, p, w = (tf.reshape(t, [-1, outputs]) for t in (labels, predictions, w))
    return (
        tf.reduce_sum(w * y, 0),
        tf.reduce_sum(w * y * y, 0),
        tf.reduce_sum(w * tf.square(y - p), 0),
        tf.reduce_sum(w, 0),
        tf.cast(tf.size(y), y.dtype),
    )


def r2_result(
    total: tf.Tensor,
    squares: tf.Tensor,
    residuals: tf.Tensor,
    weight: tf.Tensor,
    entries: tf.Tensor,
    *,
    class_aggregation: str | None = "uniform_average",
    num_regressors: int = 0,
) -> tf.Tensor:
    """R² ``1 - SS_res / SS_tot`` per output, aggregated; adjusted for ``num_regressors``
    when there are enough entries. An output with constant labels scores 1 if predicted
    exactly, else 0."""
    spread = squares - total * ratio(total, weight)  # SS_tot = sum(w y²) - (sum(w y))² / sum(w)
    perfect = tf.cast(tf.equal(residuals, 0.0), residuals.dtype)
    scores = tf.where(spread > 0.0, 1.0 - ratio(residuals, spread), perfect)
    if class_aggregation == "uniform_average":
        scores = tf.reduce_mean(scores)
    elif class_aggregation == "variance_weighted_average":
        scores = ratio(tf.reduce_sum(spread * scores), tf.reduce_sum(spread))
    if num_regressors:
        room = entries - float(num_regressors) - 1.0
        adjusted = 1.0 - (1.0 - scores) * ratio(entries - 1.0, room)
        scores = tf.where(room > 0.0, adjusted, scores)
    return scores


def _check_r2(class_aggregation: str | None, num_regressors: int) -> None:
    if class_aggregation not in CLASS_AGGREGATIONS:
        raise tw.ArgumentError(
            f"r2: unknown class_aggregation {class_aggregation!r}. Fix: 'uniform_average', "
            "'variance_weighted_average' or None (one score per output)."
        )
    if int(num_regressors) < 0:
        raise tw.ArgumentError(
            f"r2: num_regressors must be >= 0, got {num_regressors!r}. Fix: the number of "
            "independent variables of the model, or 0 for the plain R²."
        )


@graph_function
def r2_score(
    labels: Any,
    predictions: Any,
    *,
    class_aggregation: str | None = "uniform_average",
    num_regressors: int = 0,
    sample_weight: Any = None,
) -> tf.Tensor:
    """Coefficient of determination R² = ``1 - SS_res / SS_tot`` (1 is perfect, 0 is as good
    as predicting the mean, negative is worse), as ``keras.metrics.R2Score``.

    Args:
        labels: targets ``[batch, outputs]`` (or ``[batch]``).
        predictions: predictions of the labels' shape.
        class_aggregation: ``"uniform_average"`` (mean over outputs),
            ``"variance_weighted_average"`` (weighted by each output's variance) or ``None``
            (one score per output).
        num_regressors: the number of independent variables, for the adjusted R² (0: plain).
        sample_weight: weights per example (or per entry).

    >>> y, p = [[1.0, 0.0], [2.0, 1.0], [3.0, 2.0]], [[1.0, 0.5], [2.0, 1.0], [4.0, 1.5]]
    >>> r2_score(y, p, class_aggregation=None).numpy().tolist()  # 1 - 1/2, 1 - 0.5/2
    [0.5, 0.75]
    """
    _check_r2(class_aggregation, num_regressors)
    parts = r2_parts(labels, predictions, sample_weight=sample_weight)
    return r2_result(
        *parts, class_aggregation=class_aggregation, num_regressors=int(num_regressors)
    )


class StreamingError(StreamingMetric):
    """Running ``metric`` error (``"mse"``, ``"rmse"`` or ``"mae"``): a weighted mean."""

    def __init__(self, metric: str, *, name: str | None = None) -> None:
        self.metric = metric
        super().__init__(name=name or metric)

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return error_parts(self.metric, labels, predictions, sample_weight=sample_weight)

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return error_result(self.metric, *totals)


class StreamingR2(StreamingMetric):
    """Running ``r2_score`` of ``num_outputs`` outputs (accumulates per-output sums)."""

    def __init__(
        self,
        num_outputs: int,
        class_aggregation: str | None = "uniform_average",
        num_regressors: int = 0,
        *,
        name: str | None = None,
    ) -> None:
        _check_r2(class_aggregation, num_regressors)
        self.num_outputs = tw.positive_int(num_outputs, "num_outputs", "r2")
        self.class_aggregation, self.num_regressors = class_aggregation, int(num_regressors)
        super().__init__(name=name or "r2")

    def _shapes(self) -> Sequence[tuple[int, ...]]:
        return ((self.num_outputs,),) * 4 + ((),)

    def parts(
        self, labels: Any, predictions: Any, *, sample_weight: Any = None
    ) -> Sequence[tf.Tensor]:
        return r2_parts(labels, predictions, sample_weight=sample_weight)

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        return r2_result(
            *totals,
            class_aggregation=self.class_aggregation,
            num_regressors=self.num_regressors,
        )


def r2_state(opts: dict[str, Any], shapes: Shapes) -> StreamingMetric:
    """The streaming state of an ``r2_score`` node: one total per output."""
    return StreamingR2(last_axis("r2", shapes, "output"), **opts)


def error_state(metric: str) -> tuple[Maker, tuple[str, ...]]:
    """(make the ``StreamingError`` of ``metric``, no options)."""
    return (lambda opts, shapes: StreamingError(metric)), ()


streams(mean_squared_error, error_state("mse"))
streams(root_mean_squared_error, error_state("rmse"))
streams(mean_absolute_error, error_state("mae"))
streams(r2_score, (r2_state, ("class_aggregation", "num_regressors")))
