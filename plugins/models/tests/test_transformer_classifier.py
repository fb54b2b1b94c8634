"""TransformerClassifier: its parameters, padding left out with ``mask_zero``, probabilities
per class."""

from __future__ import annotations

import numpy as np
from twmodels_helpers import count, predict

import tensorweave as tw

SIZES = {"vocab_size": 30, "seq_len": 12, "n_units": 8, "n_heads": 2, "classes": 3}


def test_the_parameters_are_embeddings_encoder_blocks_and_the_classifier():
    net = tw.models["TransformerClassifier.v1"]((None,), **SIZES, n_layers=2, intermediate_dim=16)
    width, hidden = 8, 16
    block = (
        4 * (width * width + width)
        + 2 * 2 * width
        + width * hidden
        + hidden
        + hidden * width
        + width
    )
    assert count(net) == 30 * width + 12 * width + 2 * block + width * 3 + 3


def test_with_mask_zero_padding_does_not_change_the_prediction():
    net = tw.models["TransformerClassifier.v1"]((None,), **SIZES, mask_zero=True)
    ids = np.array([[5, 3, 9, 2]], "int64")
    padded = np.array([[5, 3, 9, 2, 0, 0, 0]], "int64")
    np.testing.assert_allclose(predict(net, ids), predict(net, padded), rtol=1e-5, atol=1e-6)


def test_it_gives_class_probabilities():
    net = tw.models["TransformerClassifier.v1"]((None,), **SIZES)
    probs = predict(net, np.ones((4, 7), "int64"))
    assert probs.shape == (4, 3)
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-5)
