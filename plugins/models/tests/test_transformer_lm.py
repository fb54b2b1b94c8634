"""TransformerLM: GPT-2's parameter count for its sizes, causality (a step's logits do not
depend on later tokens), tied embeddings, inference without dropout."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from twmodels_helpers import count, predict

import tensorweave as tw

SIZES = {"vocab_size": 40, "seq_len": 16, "n_units": 8, "n_heads": 2, "n_layers": 2}


def gpt_parameters(vocab, seq_len, width, layers, hidden):
    """GPT-2's count (keras_hub's GPT2Backbone): tied token table, position table, per
    block two layer norms, q/k/v/output projections with biases and a two-layer MLP, and a
    final layer norm."""
    block = (
        2 * 2 * width
        + 4 * (width * width + width)
        + (width * hidden + hidden)
        + (hidden * width + width)
    )
    return vocab * width + seq_len * width + layers * block + 2 * width


def test_the_parameters_are_gpt2s_for_the_same_sizes():
    lm = tw.models["TransformerLM.v1"]((None,), **SIZES, intermediate_dim=24)
    assert count(lm) == gpt_parameters(40, 16, 8, 2, 24)
    # GPT-2 small: 124,439,808 parameters at vocab 50257, 1024 positions, 768 wide, 12 layers
    assert gpt_parameters(50257, 1024, 768, 12, 3072) == 124_439_808


def test_the_output_projection_is_the_token_embedding_table():
    lm = tw.models["TransformerLM.v1"]((None,), **SIZES)
    logits = lm.output
    tokens = next(n for n in lm.inner_graph.nodes if n.name.endswith("token_embedding"))
    assert logits.embeddings is tokens.embeddings
    tables = [v for v in lm.variables if v.shape == (40, 8)]
    assert len(tables) == 1


@settings(max_examples=5, deadline=None)
@given(cut=st.integers(1, 5), seed=st.integers(0, 100))
def test_a_steps_logits_do_not_see_later_tokens(cut, seed):
    tw.reset_names()
    lm = tw.models["TransformerLM.v1"]((None,), **SIZES, dropout=0.0)
    rng = np.random.default_rng(seed)
    ids = rng.integers(1, 40, (2, 6))
    changed = ids.copy()
    changed[:, cut:] = rng.integers(1, 40, (2, 6 - cut))
    a, b = predict(lm, ids), predict(lm, changed)
    np.testing.assert_allclose(a[:, :cut], b[:, :cut], rtol=1e-5, atol=1e-5)
    assert not np.allclose(a[:, cut:], b[:, cut:])


def test_dropout_acts_in_training_only():
    lm = tw.models["TransformerLM.v1"]((None,), **SIZES, dropout=0.5)
    ids = np.ones((2, 5), "int64")
    infer = predict(lm, ids)
    np.testing.assert_array_equal(infer, predict(lm, ids))
    assert not np.allclose(lm.compute(ids), infer)


def test_sequences_longer_than_the_position_table_are_refused():
    with pytest.raises(tw.ShapeError, match="more than seq_len=16"):
        tw.models["TransformerLM.v1"]((20,), **SIZES)
