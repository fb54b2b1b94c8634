"""The names people know from Keras 3 and TensorLayer, and this pack's loss or metric for each.

Read by tensorweave only when a lookup fails (``categorical_crossentropy`` ->
``categorical_cross_entropy.v1``) or ``tensorweave describe`` asks; declared in
``pyproject.toml`` (``tensorweave.counterparts``). ``keras=`` names the Keras 3 API a
component's parity test compares it with; ``also=`` names others that mean the same. Keras's
class and function spellings both match (``MeanSquaredError``, ``mean_squared_error``).
Light on purpose: no TensorFlow.

>>> sorted({row.kind for row in COUNTERPARTS})
['losses', 'metrics']
"""

from __future__ import annotations

import tensorweave as tw
from tensorweave.registries.counterparts import Difference

__all__ = ["COUNTERPARTS"]


def _loss(component: str, keras: str = "", *also: str) -> tw.Counterpart:
    return tw.Counterpart(
        component, keras=f"keras.losses.{keras}" if keras else "", also=also, kind="losses"
    )


def _metric(
    component: str, keras: str = "", *also: str, differs: tuple[Difference, ...] = ()
) -> tw.Counterpart:
    return tw.Counterpart(
        component,
        keras=f"keras.metrics.{keras}" if keras else "",
        also=also,
        kind="metrics",
        differs=differs,
    )


COUNTERPARTS = (
    # losses
    _loss("binary_cross_entropy.v1", "BinaryCrossentropy", "tensorlayer.cost.binary_cross_entropy"),
    _loss("categorical_cross_entropy.v1", "CategoricalCrossentropy"),
    _loss(
        "sparse_categorical_cross_entropy.v1",
        "",
        "keras.losses.SparseCategoricalCrossentropy",
        "tensorlayer.cost.cross_entropy",
    ),
    _loss("mse.v1", "MeanSquaredError", "tensorlayer.cost.mean_squared_error"),
    _loss("mae.v1", "MeanAbsoluteError", "tensorlayer.cost.absolute_difference_error"),
    _loss("huber.v1", "Huber"),
    _loss("hinge.v1", "Hinge"),
    _loss("kl_divergence.v1", "KLDivergence", "keras.losses.kullback_leibler_divergence"),
    _loss("sequence_cross_entropy.v1", "", "tensorlayer.cost.cross_entropy_seq"),
    _loss("nce.v1", "", "tensorflow.nn.nce_loss"),
    _loss("sampled_softmax.v1", "", "tensorflow.nn.sampled_softmax_loss"),
    _loss("binary_focal_cross_entropy.v1", "BinaryFocalCrossentropy"),
    _loss("categorical_focal_cross_entropy.v1", "CategoricalFocalCrossentropy"),
    _loss("dice.v1", "Dice", "tensorlayer.cost.dice_coe"),
    _loss("tversky.v1", "Tversky"),
    _loss("ctc.v1", "CTC", "tensorflow.nn.ctc_loss"),
    _loss("cosine_similarity.v1", "CosineSimilarity"),
    _loss("log_cosh.v1", "LogCosh"),
    _loss("poisson.v1", "Poisson"),
    _loss("squared_hinge.v1", "SquaredHinge"),
    _loss("categorical_hinge.v1", "CategoricalHinge"),
    _loss("msle.v1", "MeanSquaredLogarithmicError"),
    _loss("mape.v1", "MeanAbsolutePercentageError"),
    # metrics
    _metric("accuracy.v1", "CategoricalAccuracy", "keras.metrics.Accuracy"),
    _metric("sparse_accuracy.v1", "SparseCategoricalAccuracy"),
    _metric("binary_accuracy.v1", "BinaryAccuracy"),
    _metric(
        "top_k_accuracy.v1",
        "SparseTopKCategoricalAccuracy",
        "keras.metrics.TopKCategoricalAccuracy",
    ),
    _metric("precision.v1", "Precision"),
    _metric("recall.v1", "Recall"),
    _metric("f1.v1", "", "keras.metrics.F1Score"),
    _metric(
        "auc.v1",
        "AUC",
        differs=(
            Difference(
                "num_thresholds",
                "None",
                "200",
                "None computes the exact ROC AUC of the batch; a number gives Keras's bucketed "
                "estimate (equal to keras.metrics.AUC(n))",
            ),
        ),
    ),
    _metric("mean.v1", "", "keras.metrics.Mean"),
    _metric("perplexity.v1", "", "keras_hub.metrics.Perplexity"),
    _metric("iou.v1", "IoU"),
    _metric("mean_iou.v1", "MeanIoU"),
    _metric("dice.v1", "", "tensorlayer.cost.dice_coe"),
    _metric("rmse.v1", "RootMeanSquaredError"),
    _metric("mae.v1", "MeanAbsoluteError"),
    _metric("mse.v1", "MeanSquaredError"),
    _metric("r2.v1", "R2Score"),
    _metric(
        "fbeta.v1",
        "FBetaScore",
        differs=(
            Difference(
                "threshold",
                "0.5",
                "None",
                "a training figure thresholds scores as the other classification metrics do; "
                "None gives Keras's row-maximum rule",
            ),
            Difference(
                "average",
                '"micro"',
                "None",
                "a figure the loop logs is a scalar; None (one score per class) is available",
            ),
        ),
    ),
    _metric("true_positives.v1", "TruePositives"),
    _metric("false_positives.v1", "FalsePositives"),
    _metric("true_negatives.v1", "TrueNegatives"),
    _metric("false_negatives.v1", "FalseNegatives"),
    _metric("precision_at_recall.v1", "PrecisionAtRecall"),
    _metric("recall_at_precision.v1", "RecallAtPrecision"),
    # sequence_exact_match.v1: no counterpart, Keras's accuracies count tokens, not sequences
)
