"""The core conformance kit on loss and metric nodes: dense, integer, sequence, sparse inputs
and a node with variables; every loss and metric of the catalogue (every other function is
compiled in test_every_component)."""

from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401

_RANDOM = "negative classes are sampled at random on every call"
_SAMPLED_SKIPS = {
    "eager_equals_compiled": _RANDOM,
    "no_retrace": "builds fresh variables per case; covered in test_sampled",
    "reuse_shares_state": _RANDOM,
    "in_module": _RANDOM,
    "checkpoint": _RANDOM,
}


def _poisson(counts, log_rates):
    import tensorflow as tf

    import tensorweave as tw

    return tw.losses["poisson.v1"](counts, tw.lift(tf.exp, log_rates))


def _nce(labels, inputs):
    import tensorflow as tf

    import tensorweave as tw

    w = tf.Variable(tf.random.normal([20, 4]), name="nce_w")
    b = tf.Variable(tf.zeros([20]), name="nce_b")
    return tw.losses["nce.v1"](labels, inputs, weights=w, biases=b, num_sampled=3)


TENSORWEAVE_CASES = [
    Case(
        "categorical_cross_entropy.v1",
        {"from_logits": True},
        kind="losses",
        inputs=[(None, 4), (None, 4)],
    ),
    Case(
        "sparse_categorical_cross_entropy.v1",
        {"reduction": "none", "from_logits": True},
        kind="losses",
        inputs=[InputSpec((None,), "int64", maxval=4), (None, 4)],
    ),
    Case(
        "sequence_cross_entropy.v1",
        kind="losses",
        inputs=[InputSpec((None, None), "int64", maxval=5), (None, None, 5)],
    ),
    Case(
        "nce.v1",
        kind="losses",
        inputs=[InputSpec((None, 1), "int64", maxval=20), (None, 4)],
        factory=_nce,
        skip=_SAMPLED_SKIPS,
    ),
    Case(
        "sparse_cosine_distance.v1",
        kind="metrics",
        inputs=[InputSpec((None, 4), sparse=True), (None, 4)],
    ),
    *[
        Case(name, kwargs, kind="losses", inputs=[(None, 4), (None, 4)])
        for name, kwargs in [
            ("binary_focal_cross_entropy.v1", {"from_logits": True, "gamma": 1.5}),
            ("categorical_focal_cross_entropy.v1", {"from_logits": True}),
            ("dice.v1", {"from_logits": True, "axis": -1}),
            ("tversky.v1", {"from_logits": True, "axis": -1, "alpha": 0.3, "beta": 0.7}),
            ("cosine_similarity.v1", {}),
            ("log_cosh.v1", {}),
            ("squared_hinge.v1", {"reduction": "none"}),
            ("categorical_hinge.v1", {}),
            ("msle.v1", {}),
            ("mape.v1", {"reduction": "sum"}),
        ]
    ],
    Case(
        "poisson.v1",
        kind="losses",
        inputs=[(None, 4), (None, 4)],
        factory=_poisson,
        skip={
            "reuse_shares_state": "reuse_with on the loss node bypasses the exp that keeps "
            "the case's rates positive (checked on the loss in test_every_component)"
        },
    ),
    Case(
        "ctc.v1",
        kind="losses",
        inputs=[InputSpec((None, 2), "int64", maxval=4), (None, None, 4)],
    ),
    *[
        Case(name, kwargs, kind="metrics", inputs=[(None, 4), (None, 4)])
        for name, kwargs in [
            ("iou.v1", {"threshold": 0.0}),
            ("dice.v1", {}),
            ("rmse.v1", {}),
            ("mae.v1", {}),
            ("mse.v1", {}),
            ("r2.v1", {}),
            ("fbeta.v1", {"beta": 2.0, "average": "macro"}),
            ("true_positives.v1", {"thresholds": [0.0, 0.5]}),
            ("false_positives.v1", {}),
            ("true_negatives.v1", {}),
            ("false_negatives.v1", {}),
            ("precision_at_recall.v1", {"recall": 0.5}),
            ("recall_at_precision.v1", {"precision": 0.5}),
        ]
    ],
    Case(
        "mean_iou.v1",
        {"num_classes": 4},
        kind="metrics",
        inputs=[InputSpec((None,), "int64", maxval=4), (None, 4)],
    ),
    Case(
        "sequence_exact_match.v1",
        {},
        kind="metrics",
        inputs=[InputSpec((None, 3), "int64", maxval=2), (None, 3, 2)],
    ),
]
