"""tensorweave-losses: losses, metrics and distances, as tensor functions and graph nodes.

Use them by registered name: ``tw.losses["categorical_cross_entropy.v1"]``,
``tw.metrics["accuracy.v1"]``, ``tw.metrics["streaming_auc.v1"]()``. Called on tensors a
loss computes (a scalar by default); called with any ``tw.Layer`` argument it returns a
``LossLayer`` node, so a training graph ends in its loss. This pack declares
the ``losses`` and ``metrics`` kinds (``tensorweave_losses.kinds``). Importing the package
is cheap: each name's module is imported when the name is first used.

>>> import tensorweave as tw
>>> labels = tw.Input(shape=(), dtype="int64", name="labels")
>>> logits = tw.Input(n_units=3, name="logits")
>>> loss = tw.losses["sparse_categorical_cross_entropy.v1"](labels, logits, from_logits=True)
>>> round(float(loss([2], [[0.0, 0.0, 0.0]])), 4)
1.0986
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:  # the lazily imported names, for type checkers
    from tensorweave_losses import auc, kinds, sinkhorn
    from tensorweave_losses.base import (
        LossLayer,
        LossValueError,
        ProbabilitiesAsLogitsWarning,
        graph_function,
    )
    from tensorweave_losses.classification import (
        accuracy,
        binary_accuracy,
        f1,
        precision,
        recall,
        sparse_accuracy,
        top_k_accuracy,
    )
    from tensorweave_losses.cross_entropy import (
        binary_cross_entropy,
        categorical_cross_entropy,
        sparse_categorical_cross_entropy,
    )
    from tensorweave_losses.distances import (
        cosine_distance,
        euclidean_distance,
        manhattan_distance,
        pairwise_euclidean_distance,
        sparse_cosine_distance,
        torus_l1_distance,
    )
    from tensorweave_losses.divergence import kl_divergence
    from tensorweave_losses.exact_match import sequence_exact_match
    from tensorweave_losses.margin import hinge
    from tensorweave_losses.regression import huber, mae, mse
    from tensorweave_losses.sampled import nce, sampled_softmax
    from tensorweave_losses.sequence import perplexity, sequence_cross_entropy
    from tensorweave_losses.sparsemax import sparsemax_loss
    from tensorweave_losses.streaming import (
        StreamingAccuracy,
        StreamingAUC,
        StreamingBinaryAccuracy,
        StreamingF1,
        StreamingMean,
        StreamingPerplexity,
        StreamingPrecision,
        StreamingRecall,
        StreamingSparseAccuracy,
        StreamingTopKAccuracy,
        mean,
    )

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first use (PEP 562): importing
# one submodule (an entry point's target, a hook module) never imports the whole pack.
_EXPORTS = {
    "LossLayer": "base",
    "LossValueError": "base",
    "ProbabilitiesAsLogitsWarning": "base",
    "graph_function": "base",
    "binary_cross_entropy": "cross_entropy",
    "categorical_cross_entropy": "cross_entropy",
    "sparse_categorical_cross_entropy": "cross_entropy",
    "mse": "regression",
    "mae": "regression",
    "huber": "regression",
    "hinge": "margin",
    "kl_divergence": "divergence",
    "sparsemax_loss": "sparsemax",
    "sinkhorn": "sinkhorn",
    "sequence_cross_entropy": "sequence",
    "nce": "sampled",
    "sampled_softmax": "sampled",
    "accuracy": "classification",
    "sparse_accuracy": "classification",
    "binary_accuracy": "classification",
    "top_k_accuracy": "classification",
    "precision": "classification",
    "recall": "classification",
    "f1": "classification",
    "auc": "auc",
    "perplexity": "sequence",
    "mean": "streaming",
    "StreamingAccuracy": "streaming",
    "StreamingSparseAccuracy": "streaming",
    "StreamingBinaryAccuracy": "streaming",
    "StreamingTopKAccuracy": "streaming",
    "StreamingPrecision": "streaming",
    "StreamingRecall": "streaming",
    "StreamingF1": "streaming",
    "StreamingAUC": "streaming",
    "StreamingPerplexity": "streaming",
    "StreamingMean": "streaming",
    "cosine_distance": "distances",
    "euclidean_distance": "distances",
    "pairwise_euclidean_distance": "distances",
    "manhattan_distance": "distances",
    "sparse_cosine_distance": "distances",
    "torus_l1_distance": "distances",
    "binary_focal_cross_entropy": "focal",
    "categorical_focal_cross_entropy": "focal",
    "dice": "overlap",
    "tversky": "overlap",
    "ctc": "ctc",
    "cosine_similarity": "distances",
    "log_cosh": "regression",
    "poisson": "regression",
    "msle": "regression",
    "mape": "regression",
    "squared_hinge": "margin",
    "categorical_hinge": "margin",
    "iou": "overlap",
    "mean_iou": "mean_iou",
    "dice_coefficient": "overlap",
    "mean_squared_error": "regression_metrics",
    "root_mean_squared_error": "regression_metrics",
    "mean_absolute_error": "regression_metrics",
    "r2_score": "regression_metrics",
    "fbeta": "fbeta",
    "true_positives": "counts",
    "false_positives": "counts",
    "true_negatives": "counts",
    "false_negatives": "counts",
    "precision_at_recall": "precision_recall",
    "recall_at_precision": "precision_recall",
    "sequence_exact_match": "exact_match",
    "StreamingMetric": "accumulators",
    "NodeMetric": "node_metric",
    "kinds": "kinds",
}

__all__ = [
    "LossLayer",
    "LossValueError",
    "ProbabilitiesAsLogitsWarning",
    "graph_function",
    "binary_cross_entropy",
    "categorical_cross_entropy",
    "sparse_categorical_cross_entropy",
    "mse",
    "mae",
    "huber",
    "hinge",
    "kl_divergence",
    "sparsemax_loss",
    "sinkhorn",
    "sequence_cross_entropy",
    "nce",
    "sampled_softmax",
    "accuracy",
    "sparse_accuracy",
    "binary_accuracy",
    "top_k_accuracy",
    "precision",
    "recall",
    "f1",
    "auc",
    "perplexity",
    "mean",
    "StreamingAccuracy",
    "StreamingSparseAccuracy",
    "StreamingBinaryAccuracy",
    "StreamingTopKAccuracy",
    "StreamingPrecision",
    "StreamingRecall",
    "StreamingF1",
    "StreamingAUC",
    "StreamingPerplexity",
    "StreamingMean",
    "cosine_distance",
    "euclidean_distance",
    "pairwise_euclidean_distance",
    "manhattan_distance",
    "sparse_cosine_distance",
    "torus_l1_distance",
    "binary_focal_cross_entropy",
    "categorical_focal_cross_entropy",
    "dice",
    "tversky",
    "ctc",
    "cosine_similarity",
    "log_cosh",
    "poisson",
    "msle",
    "mape",
    "squared_hinge",
    "categorical_hinge",
    "iou",
    "mean_iou",
    "dice_coefficient",
    "mean_squared_error",
    "root_mean_squared_error",
    "mean_absolute_error",
    "r2_score",
    "fbeta",
    "true_positives",
    "false_positives",
    "true_negatives",
    "false_negatives",
    "precision_at_recall",
    "recall_at_precision",
    "sequence_exact_match",
    "StreamingMetric",
    "NodeMetric",
    "kinds",
    "__version__",
]


__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
