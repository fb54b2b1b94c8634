"""tensorweave-losses: losses, metrics and distances, as tensor functions and graph nodes.

Use them by registered name: ``tw.losses["categorical_cross_entropy.v1"]``,
``tw.metrics["accuracy.v1"]``, ``tw.metrics["streaming_auc.v1"]()``. Called on tensors a
loss computes (a scalar by default); called with any ``tw.Layer`` argument it returns a
``LossLayer`` node, so a training graph ends in its loss.

>>> import tensorweave as tw
>>> labels = tw.Input(shape=(None,), dtype="int64", name="labels")
>>> logits = tw.Input(n_units=3, name="logits")
>>> loss = tw.losses["sparse_categorical_cross_entropy.v1"](labels, logits)
>>> round(float(loss([2], [[0.0, 0.0, 0.0]])), 4)
1.0986
"""

from tensorweave_losses.base import LossLayer, LossValueError, ProbabilitiesAsLogitsWarning

__version__ = "0.1.0"
__all__ = ["LossLayer", "LossValueError", "ProbabilitiesAsLogitsWarning", "__version__"]
