"""Whole-sequence exact match against numpy: scores or ids, padding and masks left out,
weights, the padding mask of a layer, streaming over batches."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses.metrics.exact_match import StreamingSequenceExactMatch, sequence_exact_match


def np_exact_match(labels, predicted, kept, weights):
    hit = np.all((labels == predicted) | ~kept, axis=1)
    return (hit * weights).sum() / weights.sum()


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.integers(2, 4), st.integers(0, 2**31 - 1))
def test_exact_match_against_numpy(batch, time, vocab, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, vocab, size=(batch, time))
    scores = rng.standard_normal((batch, time, vocab)).astype("float32")
    # make about half of the rows right everywhere
    right = rng.random(batch) < 0.5
    scores[right] += 10.0 * np.eye(vocab, dtype="float32")[labels[right]]
    predicted = scores.argmax(-1)
    weights = rng.random(batch).astype("float32") + 0.1
    lengths = rng.integers(0, time + 1, size=batch)
    in_length = np.arange(time)[None] < lengths[:, None]
    ones = np.ones(batch, "float32")

    want = np_exact_match(labels, predicted, labels != 0, ones)
    np.testing.assert_allclose(sequence_exact_match(labels, scores), want, rtol=1e-6)
    np.testing.assert_allclose(sequence_exact_match(labels, predicted), want, rtol=1e-6)
    want = np_exact_match(labels, predicted, in_length, weights)
    got = sequence_exact_match(
        labels, scores, lengths=lengths, ignore_class=None, sample_weight=weights
    )
    np.testing.assert_allclose(got, want, rtol=1e-5)
    got = sequence_exact_match(labels, scores, mask=in_length, ignore_class=None)
    np.testing.assert_allclose(got, np_exact_match(labels, predicted, in_length, ones), rtol=1e-6)


def test_padding_and_the_end_of_a_sequence_decide_a_match():
    labels = [[4, 5, 2, 0, 0]]
    assert float(sequence_exact_match(labels, [[4, 5, 2, 7, 7]])) == 1.0  # after: padding
    assert float(sequence_exact_match(labels, [[4, 5, 0, 0, 0]])) == 0.0  # the end missed
    assert float(sequence_exact_match(labels, [[4, 5, 2, 7, 7]], ignore_class=None)) == 0.0


def test_on_layers_the_scores_padding_mask_is_the_mask():
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    scores = tw.layers["Lookup.v1"](ids, vocab_size=4, n_units=4, mask_zero=True)
    node = tw.metrics["sequence_exact_match.v1"](ids, scores, ignore_class=None)
    assert node.inputs[-1] is scores.padding_mask


def test_the_streaming_state_equals_the_whole_set():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, size=(23, 4))
    predicted = np.where(rng.random((23, 4)) < 0.8, labels, 1)
    weights = rng.random(23).astype("float32")
    y = tw.Input(batch_shape=(None, 4), dtype="int64")
    p = tw.Input(batch_shape=(None, 4), dtype="int64")
    w = tw.Input(shape=(), name="w")
    state = tw.metrics["sequence_exact_match.v1"](y, p, sample_weight=w).streaming()
    assert isinstance(state.metric, StreamingSequenceExactMatch)
    for lo in range(0, 23, 5):
        state.update(labels[lo : lo + 5], predicted[lo : lo + 5], weights[lo : lo + 5])
    whole = sequence_exact_match(labels, predicted, sample_weight=weights)
    np.testing.assert_allclose(state.result(), whole, rtol=1e-6)


def test_shapes_that_do_not_fit_say_how_to_fix():
    with pytest.raises(tw.ShapeError, match=r"sequence_exact_match: labels must be .*sparse_acc"):
        sequence_exact_match([1, 2], [[0.1, 0.9], [0.8, 0.2]])
    with pytest.raises(tw.ShapeError, match="sequence_exact_match: labels of shape"):
        sequence_exact_match([[1, 2]], [[1, 2, 3]])
    with pytest.raises(tw.ArgumentError, match="mask= or lengths=, not both"):
        sequence_exact_match([[1]], [[1]], mask=[[1]], lengths=[1])
