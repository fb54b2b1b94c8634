"""The gallery's word2vec (examples/word2vec): the held-out split, the pair score at chance
and for an oracle, and one epoch on the first 12,000 words with finite held-out figures."""

from __future__ import annotations

import math

import numpy as np

from tests.examples.gallery import script


def test_held_out_blocks_and_the_pair_score() -> None:
    w2v = script("word2vec/word2vec.py")
    data = w2v.skip_gram_data(limit=20_000, subsample=None)
    train, valid = data["train"], data["valid"]
    assert len(valid["words"]) * 8 < len(train["words"]) < len(valid["words"]) * 10
    assert data["vocab"][0] == "self"  # ids by frequency rank: NCE's sampler assumes it
    assert train["context"].shape == (len(train["words"]), 1)
    n = len(data["vocab"])
    flat = np.zeros((n, 1)), np.zeros((n, 1)), np.zeros(n)
    assert w2v.pair_auc(*flat, data) == 0.5  # a score that knows nothing: chance
    # an oracle that knows the held-out co-occurrences scores true pairs above others
    counts = np.zeros((n, n))
    np.add.at(counts, (valid["words"], valid["context"][:, 0]), 1.0)
    assert w2v.pair_auc(np.eye(n), np.log1p(counts), np.zeros(n), data) > 0.8


def test_word2vec_script_trains_one_epoch() -> None:
    figures = script("word2vec/word2vec.py").main(epochs=1, limit=12_000)
    assert math.isfinite(figures["valid_nce_loss"]) and figures["valid_nce_loss"] > 0.0
    assert 0.0 < figures["valid_pair_auc"] < 1.0
    assert figures["neighbours"] and all(len(n) == 5 for n in figures["neighbours"].values())
