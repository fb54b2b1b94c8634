"""Every registered loss and metric function: as a node, compiled, equals the function (the
ones with a conformance case are compiled by the kit instead)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

DIST = "tensorweave-losses"
rng = np.random.default_rng(0)
B, C, T = 3, 4, 2
W = tf.Variable(rng.standard_normal((C, C)).astype("float32"), name="w")
BIAS = tf.Variable(np.zeros(C, "float32"), name="b")


def f32(*shape):
    return rng.standard_normal(shape).astype("float32")


def probs(*shape):
    return rng.random(shape).astype("float32")


def ids(*shape, high=C):
    return rng.integers(0, high, size=shape)


def onehot():
    return np.eye(C, dtype="float32")[ids(B)]


FIXED = (
    tf.constant([0, 1], tf.int64),
    tf.constant(np.full((B, 1), 0.5, "float32")),
    tf.constant([0.5, 0.5]),
)
# name -> (values, kwargs); inputs are built from the values' shapes (batch dynamic)
TABLE = {
    "losses": {
        "binary_cross_entropy.v1": ([probs(B, C).round(), f32(B, C)], {"from_logits": True}),
        "categorical_cross_entropy.v1": (
            [onehot(), f32(B, C)],
            {"label_smoothing": 0.1, "from_logits": True},
        ),
        "sparse_categorical_cross_entropy.v1": ([ids(B), f32(B, C)], {"from_logits": True}),
        "mse.v1": ([f32(B, C), f32(B, C)], {}),
        "mae.v1": ([f32(B, C), f32(B, C)], {}),
        "huber.v1": ([f32(B, C), f32(B, C)], {"delta": 0.5}),
        "hinge.v1": ([probs(B, C).round(), f32(B, C)], {}),
        "kl_divergence.v1": ([onehot(), f32(B, C)], {"from_logits": True}),
        "sparsemax_loss.v1": ([onehot(), f32(B, C)], {}),
        "sinkhorn.v1": ([f32(B, 2), f32(B, 2)], {"n_iter": 5}),
        "sequence_cross_entropy.v1": ([ids(B, T), f32(B, T, C)], {"reduction": "none"}),
        "nce.v1": (
            [ids(B, 1), f32(B, C)],
            {"weights": W, "biases": BIAS, "num_sampled": 2, "sampled_values": FIXED},
        ),
        "sampled_softmax.v1": (
            [ids(B, 1), f32(B, C)],
            {"weights": W, "biases": BIAS, "num_sampled": 2, "sampled_values": FIXED},
        ),
    },
    "metrics": {
        "accuracy.v1": ([onehot(), f32(B, C)], {}),
        "sparse_accuracy.v1": ([ids(B), f32(B, C)], {}),
        "binary_accuracy.v1": ([probs(B, C).round(), probs(B, C)], {}),
        "top_k_accuracy.v1": ([ids(B), f32(B, C)], {"k": 2}),
        "precision.v1": ([probs(B, C).round(), probs(B, C)], {}),
        "recall.v1": ([probs(B, C).round(), probs(B, C)], {}),
        "f1.v1": ([probs(B, C).round(), probs(B, C)], {}),
        "auc.v1": ([probs(B, C).round(), probs(B, C)], {}),
        "perplexity.v1": ([ids(B, T), f32(B, T, C)], {}),
        "mean.v1": ([f32(B, C)], {}),
        "cosine_distance.v1": ([f32(B, C), f32(B, C)], {}),
        "euclidean_distance.v1": ([f32(B, C), f32(B, C)], {}),
        "pairwise_euclidean_distance.v1": ([f32(B, C), f32(B + 1, C)], {}),
        "manhattan_distance.v1": ([f32(B, C), f32(B, C)], {}),
        "torus_l1_distance.v1": ([probs(B, C), probs(B, C)], {}),
    },
}
ROWS = [(kind, name) for kind, rows in TABLE.items() for name in rows]


def _conformance_cases() -> set[tuple[str, str]]:
    path = Path(__file__).with_name("test_conformance_cases.py")
    spec = importlib.util.spec_from_file_location("losses_conformance_cases", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {(case.kind, case.name) for case in module.TENSORWEAVE_CASES}


def test_the_table_and_the_conformance_cases_cover_every_function_this_pack_registers():
    cases = _conformance_cases()
    for kind in ("losses", "metrics"):
        mine = {
            n
            for n in tw.registry(kind).names()
            if DIST in tw.registry(kind).providers(n) and not n.startswith("streaming_")
        }
        covered = set(TABLE[kind]) | {name for k, name in cases if k == kind}
        assert mine == covered, kind
        assert set(TABLE[kind]) <= mine


@pytest.mark.parametrize(("kind", "name"), ROWS, ids=[n for _, n in ROWS])
def test_node_compiled_equals_function(kind, name):
    fn = tw.registry(kind)[f"{DIST}:{name}"]
    values, kwargs = TABLE[kind][name]
    inputs = [
        tw.Input(batch_shape=(None, *np.shape(v)[1:]), dtype=np.asarray(v).dtype.name)
        for v in values
    ]
    node = fn(*inputs, **kwargs)
    assert isinstance(node, tw.Layer) and node.function is fn.function
    want = fn(*values, **kwargs)
    graph = tw.Graph.build(inputs=inputs, outputs=node)
    got = tw.compile(graph)(*values)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert tuple(np.shape(got)) == tuple(want.shape)
