"""CTC against a brute-force sum over every alignment; lengths, masks, padding and the blank
(parity with keras.losses.CTC: test_parity_losses)."""

import itertools

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_losses import LossValueError
from tensorweave_losses.losses.ctc import ctc


def _brute_force(label: list[int], logits: np.ndarray, blank: int = 0) -> float:
    """-log of the summed probability of every frame path that collapses to ``label``."""
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(logits.shape[-1]), repeat=len(logits)):
        merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
        if [c for c in merged if c != blank] == label:
            total += np.prod([probs[t, c] for t, c in enumerate(path)])
    return -np.log(total)


def test_equals_the_sum_over_every_alignment():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((2, 4, 3)).astype("float32")
    labels = np.array([[1, 2], [2, 2]])  # a repeat needs a blank between
    got = ctc(labels, logits, reduction="none").numpy()
    want = [_brute_force([1, 2], logits[0]), _brute_force([2, 2], logits[1])]
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_lengths_mask_and_padding_select_the_same_frames_and_labels():
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((2, 5, 4)).astype("float32")
    padded_with_blank = np.array([[3, 1, 0], [2, 0, 0]])
    padded_with_minus_one = np.array([[3, 1, -1], [2, -1, -1]])
    mask = np.array([[1, 1, 1, 1, 0], [1, 1, 1, 0, 0]], "float32")
    want = [_brute_force([3, 1], logits[0, :4]), _brute_force([2], logits[1, :3])]
    for labels in (padded_with_blank, padded_with_minus_one):
        got = ctc(labels, logits, mask=mask, reduction="none")
        np.testing.assert_allclose(got, want, rtol=1e-5)
    by_lengths = ctc(
        padded_with_blank, logits, label_length=[2, 1], logit_length=[4, 3], reduction="none"
    )
    np.testing.assert_allclose(by_lengths, want, rtol=1e-5)


def test_the_last_class_as_blank():
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((1, 4, 3)).astype("float32")
    last_blank = ctc([[0, 1]], logits, blank_index=-1)
    np.testing.assert_allclose(last_blank, _brute_force([0, 1], logits[0], blank=2), rtol=1e-5)


def test_gradient_flows_to_the_logits_in_a_compiled_graph():
    labels = tw.Input(batch_shape=(None, None), dtype="int64")
    logits = tw.Input(batch_shape=(None, None, 3))
    node = tw.losses["ctc.v1"](labels, logits)
    x = tf.Variable(np.zeros((1, 3, 3), "float32"))
    with tf.GradientTape() as tape:
        value = node.compute(tf.constant([[1, 2]], tf.int64), x)
    grad = tape.gradient(value, x).numpy()
    assert np.all(np.isfinite(grad)) and np.abs(grad).sum() > 0
    np.testing.assert_allclose(tw.compile(node)([[1, 2]], x.numpy()), value, rtol=1e-6)


def test_bad_shapes_ids_and_options_are_refused():
    logits = np.zeros((2, 3, 3), "float32")
    with pytest.raises(tw.ShapeError, match=r"ctc: labels must be \[batch, max_label_length\]"):
        ctc([1, 2], logits)
    with pytest.raises(tw.ShapeError, match=r"ctc.*same batch size"):
        ctc([[1, 2]], logits)
    with pytest.raises(LossValueError, match=r"ctc: labels must be class ids in \[0, 3\)"):
        ctc([[1, 5], [1, 2]], logits)
    with pytest.raises(tw.ArgumentError, match="mask= or logit_length="):
        ctc([[1], [2]], logits, mask=np.ones((2, 3)), logit_length=[3, 3])
