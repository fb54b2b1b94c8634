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

import tensorweave as tw

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first use (PEP 562): importing
# one submodule (an entry point's target, a hook module) never imports the whole pack.
_EXPORTS = {
    "LossLayer": "nodes",
    "LossValueError": "base",
    "ProbabilitiesAsLogitsWarning": "base",
    "graph_function": "nodes",
    "binary_cross_entropy": "losses.cross_entropy",
    "categorical_cross_entropy": "losses.cross_entropy",
    "sparse_categorical_cross_entropy": "losses.cross_entropy",
    "mse": "losses.regression",
    "mae": "losses.regression",
    "huber": "losses.regression",
    "hinge": "losses.margin",
    "kl_divergence": "losses.divergence",
    "sparsemax_loss": "losses.sparsemax",
    "sinkhorn": "losses.sinkhorn",
    "sequence_cross_entropy": "losses.sequence",
    "nce": "losses.sampled",
    "sampled_softmax": "losses.sampled",
    "accuracy": "metrics.classification",
    "sparse_accuracy": "metrics.classification",
    "binary_accuracy": "metrics.classification",
    "top_k_accuracy": "metrics.classification",
    "precision": "metrics.classification",
    "recall": "metrics.classification",
    "f1": "metrics.classification",
    "auc": "metrics.auc",
    "perplexity": "metrics.perplexity",
    "mean": "metrics.mean",
    "StreamingAccuracy": "metrics.classification",
    "StreamingSparseAccuracy": "metrics.classification",
    "StreamingBinaryAccuracy": "metrics.classification",
    "StreamingTopKAccuracy": "metrics.classification",
    "StreamingPrecision": "metrics.classification",
    "StreamingRecall": "metrics.classification",
    "StreamingF1": "metrics.classification",
    "StreamingAUC": "metrics.auc",
    "StreamingPerplexity": "metrics.perplexity",
    "StreamingMean": "metrics.mean",
    "cosine_distance": "distances",
    "euclidean_distance": "distances",
    "pairwise_euclidean_distance": "distances",
    "manhattan_distance": "distances",
    "sparse_cosine_distance": "distances",
    "torus_l1_distance": "distances",
    "binary_focal_cross_entropy": "losses.focal",
    "categorical_focal_cross_entropy": "losses.focal",
    "dice": "losses.overlap",
    "tversky": "losses.overlap",
    "ctc": "losses.ctc",
    "cosine_similarity": "distances",
    "log_cosh": "losses.regression",
    "poisson": "losses.regression",
    "msle": "losses.regression",
    "mape": "losses.regression",
    "squared_hinge": "losses.margin",
    "categorical_hinge": "losses.margin",
    "iou": "metrics.overlap",
    "mean_iou": "metrics.mean_iou",
    "dice_coefficient": "metrics.overlap",
    "mean_squared_error": "metrics.regression",
    "root_mean_squared_error": "metrics.regression",
    "mean_absolute_error": "metrics.regression",
    "r2_score": "metrics.regression",
    "fbeta": "metrics.fbeta",
    "true_positives": "metrics.counts",
    "false_positives": "metrics.counts",
    "true_negatives": "metrics.counts",
    "false_negatives": "metrics.counts",
    "precision_at_recall": "metrics.precision_recall",
    "recall_at_precision": "metrics.precision_recall",
    "sequence_exact_match": "metrics.exact_match",
    "StreamingMetric": "streaming.accumulators",
    "NodeMetric": "streaming.states",
    "kinds": "kinds",
}

__all__ = [*_EXPORTS, "__version__"]


__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
