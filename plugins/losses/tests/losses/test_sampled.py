"""NCE and sampled softmax: the TF ops with fixed samples, numpy, sparse gradients, layers."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_losses import LossValueError
from tensorweave_losses.losses.sampled import nce, sampled_softmax

VOCAB, DIM, BATCH, SAMPLED = 30, 4, 5, 6


def _setup(seed=0):
    rng = np.random.default_rng(seed)
    w = tf.Variable(rng.standard_normal((VOCAB, DIM)).astype("float32"), name="w")
    b = tf.Variable(rng.standard_normal(VOCAB).astype("float32"), name="b")
    labels = rng.integers(0, VOCAB, size=(BATCH, 1))
    inputs = rng.standard_normal((BATCH, DIM)).astype("float32")
    sampled = rng.choice(VOCAB, SAMPLED, replace=False)
    true_expected = rng.random((BATCH, 1)).astype("float32") + 0.1
    sampled_expected = rng.random(SAMPLED).astype("float32") + 0.1
    values = (
        tf.constant(sampled, tf.int64),
        tf.constant(true_expected),
        tf.constant(sampled_expected),
    )
    return w, b, labels, inputs, values


def test_sampled_softmax_against_numpy_with_fixed_samples():
    w, b, labels, inputs, values = _setup()
    got = sampled_softmax(
        labels,
        inputs,
        weights=w,
        biases=b,
        num_sampled=SAMPLED,
        sampled_values=values,
        remove_accidental_hits=False,
        reduction="none",
    )
    sampled, true_exp, sampled_exp = (v.numpy() for v in values)
    W, B = w.numpy(), b.numpy()
    true_logit = (inputs * W[labels[:, 0]]).sum(-1) + B[labels[:, 0]] - np.log(true_exp[:, 0])
    sampled_logits = inputs @ W[sampled].T + B[sampled] - np.log(sampled_exp)
    logits = np.concatenate([true_logit[:, None], sampled_logits], 1).astype("float64")
    want = np.log(np.exp(logits).sum(1)) - logits[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-4)


def test_nce_against_numpy_with_fixed_samples():
    w, b, labels, inputs, values = _setup(1)
    got = nce(
        labels,
        inputs,
        weights=w,
        biases=b,
        num_sampled=SAMPLED,
        sampled_values=values,
        reduction="none",
    )
    sampled, true_exp, sampled_exp = (v.numpy() for v in values)
    W, B = w.numpy(), b.numpy()
    true_logit = (inputs * W[labels[:, 0]]).sum(-1) + B[labels[:, 0]] - np.log(true_exp[:, 0])
    sampled_logits = inputs @ W[sampled].T + B[sampled] - np.log(sampled_exp)

    def softplus(x):
        return np.logaddexp(0, x)

    want = softplus(-true_logit) + softplus(sampled_logits).sum(1)
    np.testing.assert_allclose(got, want, rtol=1e-4)


@pytest.mark.parametrize("loss", [nce, sampled_softmax])
def test_gradients_are_sparse_and_weights_reduce(loss):
    w, b, labels, inputs, _ = _setup(2)
    with tf.GradientTape() as tape:
        value = loss(
            labels[:, 0],
            inputs,
            weights=w,
            biases=b,
            num_sampled=SAMPLED,
            sample_weight=np.ones(BATCH),
        )
    grads = tape.gradient(value, [w, b])
    assert all(isinstance(g, tf.IndexedSlices) for g in grads)
    assert np.isfinite(value.numpy())
    zero = loss(
        labels, inputs, weights=w, biases=b, num_sampled=SAMPLED, sample_weight=np.zeros(BATCH)
    )
    assert float(zero) == 0.0


def test_bad_inputs_are_named():
    w, b, labels, inputs, _ = _setup()
    with pytest.raises(LossValueError, match=r"nce: labels must be class ids in \[0, 30\)"):
        nce(labels + VOCAB, inputs, weights=w, biases=b, num_sampled=2)
    with pytest.raises(tw.ShapeError, match=r"last axes \(3 vs 4\)"):
        sampled_softmax(labels, inputs[:, :3], weights=w, biases=b, num_sampled=2)
    with pytest.raises(tw.ShapeError, match="num_true=2"):
        nce(labels, inputs, weights=w, biases=b, num_sampled=2, num_true=2)
    with pytest.raises(TypeError, match="weights="):
        nce(labels, inputs, weights=None, biases=b, num_sampled=2)


def test_word2vec_graph_with_embedding_lookup_trains_and_stays_sparse():
    tf.random.set_seed(0)
    table = tf.Variable(tf.random.normal([VOCAB, DIM], stddev=0.1), name="table")
    out_w = tf.Variable(tf.random.normal([VOCAB, DIM], stddev=0.1), name="out_w")
    out_b = tf.Variable(tf.zeros([VOCAB]), name="out_b")
    words = tw.Input(shape=(), dtype="int64", name="words")
    context = tw.Input(shape=(1,), dtype="int64", name="context")
    embedded = tw.Lambda(lambda ids: tf.nn.embedding_lookup(table, ids), words, variables=[table])
    loss = sampled_softmax(context, embedded, weights=out_w, biases=out_b, num_sampled=8)
    graph = tw.Graph.build(inputs=[words, context], outputs=loss)
    variables = graph.trainable_variables
    assert {v.name for v in variables} == {"table:0", "out_w:0", "out_b:0"}
    x = tf.constant(np.arange(10) % VOCAB, tf.int64)
    y = tf.constant(((np.arange(10) + 1) % VOCAB)[:, None], tf.int64)

    @tf.function
    def train_step():
        with tf.GradientTape() as tape:
            value = graph(x, y)
        grads = tape.gradient(value, variables)
        for v, g in zip(variables, grads, strict=True):
            assert isinstance(g, tf.IndexedSlices)
            v.scatter_sub(tf.IndexedSlices(g.values * 0.5, g.indices, g.dense_shape))
        return value

    first = float(train_step())
    for _ in range(60):
        train_step()
    assert float(tw.compile(graph)(x, y)) < first / 2


def test_loss_node_keeps_its_variables_in_state_for_checkpoints(tmp_path):
    w, b, labels, inputs, values = _setup(3)
    ids, h = tw.Input(shape=(1,), dtype="int64"), tw.Input(n_units=DIM)
    node = nce(ids, h, weights=w, biases=b, num_sampled=SAMPLED, sampled_values=values)
    assert {id(v) for v in node.trainable_variables} == {id(w), id(b)}
    before = float(node(labels, inputs))
    path = tf.train.Checkpoint(loss=node).write(str(tmp_path / "ckpt"))
    w.assign_add(tf.ones_like(w))
    tf.train.Checkpoint(loss=node).read(path).assert_consumed()
    assert float(node(labels, inputs)) == pytest.approx(before, rel=1e-6)
