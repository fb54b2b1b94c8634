"""The core conformance kit on loss and metric nodes: dense, integer, sequence, sparse inputs
and a node with variables (every other function is compiled in test_every_component)."""

from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401

_RANDOM = "negative classes are sampled at random on every call"
_SAMPLED_SKIPS = {
    "eager_equals_compiled": _RANDOM,
    "no_retrace": "builds fresh variables per case; covered in test_sampled",
    "reuse_shares_state": _RANDOM,
    "in_module": _RANDOM,
    "checkpoint": _RANDOM,
}


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
]
