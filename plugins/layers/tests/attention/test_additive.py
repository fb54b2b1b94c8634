"""AdditiveAttention: the additive score against numpy, without a scale, and its errors."""

import numpy as np
import pytest

import tensorweave as tw

AdditiveAttention = tw.layers["AdditiveAttention.v1"]


@pytest.mark.parametrize("use_scale", [True, False])
def test_additive_scores_match_numpy(use_scale):
    q, v = tw.Input(batch_shape=(None, None, 3)), tw.Input(batch_shape=(None, None, 3))
    att = AdditiveAttention(q, v, use_scale=use_scale)
    assert len(att.variables) == (1 if use_scale else 0)
    rng = np.random.default_rng(1)
    query, value = rng.standard_normal((1, 2, 3)), rng.standard_normal((1, 4, 3))
    scale = att.scale.numpy() if use_scale else np.ones(3)
    scores = (np.tanh(query[0][:, None] + value[0][None]) * scale).sum(-1)
    weights = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)
    got = att.compute(query.astype("float32"), value.astype("float32"), value.astype("float32"))
    np.testing.assert_allclose(got[0], weights @ value[0], rtol=1e-5)


def test_additive_attention_has_no_score_mode():
    x = tw.Input(batch_shape=(None, None, 3))
    with pytest.raises(tw.ArgumentError, match=r"(?s)no score_mode.*Fix"):
        AdditiveAttention(x, score_mode="concat")
    assert AdditiveAttention(x).reuse_with(x, causal=True).causal
