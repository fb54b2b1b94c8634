"""The losses and metrics the catalogue promises, each registered by this pack, labels first
then predictions, with a docstring example: the test fails when one is missing."""

import inspect

import pytest

import tensorweave as tw

DIST = "tensorweave-losses"
LOSSES = [
    "binary_focal_cross_entropy.v1",
    "categorical_focal_cross_entropy.v1",
    "dice.v1",
    "tversky.v1",
    "ctc.v1",
    "cosine_similarity.v1",
    "log_cosh.v1",
    "poisson.v1",
    "squared_hinge.v1",
    "categorical_hinge.v1",
    "msle.v1",
    "mape.v1",
]
METRICS = [
    "iou.v1",
    "mean_iou.v1",
    "dice.v1",
    "rmse.v1",
    "mae.v1",
    "mse.v1",
    "r2.v1",
    "fbeta.v1",
    "true_positives.v1",
    "false_positives.v1",
    "true_negatives.v1",
    "false_negatives.v1",
    "precision_at_recall.v1",
    "recall_at_precision.v1",
]
ROWS = [("losses", n) for n in LOSSES] + [("metrics", n) for n in METRICS]


@pytest.mark.parametrize(("kind", "name"), ROWS, ids=[f"{k}:{n}" for k, n in ROWS])
def test_registered_labels_first_and_documented(kind, name):
    registry = tw.registry(kind)
    assert name in registry.names(), f"{kind} {name} is not registered"
    assert DIST in registry.providers(name)
    component = registry[f"{DIST}:{name}"]
    params = list(inspect.signature(component.function).parameters)
    assert params[0] == "labels" and params[1] in ("predictions", "logits"), params
    assert "sample_weight" in params
    assert ">>>" in (component.__doc__ or ""), f"{name}: no docstring example"


def test_streaming_evaluation_covers_every_catalogue_metric():
    y, p = tw.Input(n_units=3), tw.Input(n_units=3)
    options = {
        "mean_iou.v1": {"num_classes": 3},
        "precision_at_recall.v1": {"recall": 0.5},
        "recall_at_precision.v1": {"precision": 0.5},
    }
    for name in METRICS:
        node = tw.metrics[name](y, p, **options.get(name, {}))
        assert node.streaming() is not None, name
