"""ReversibleEmbedding: the reverse direction reads the same table, untied weights, the
soft cap, the padding mask, errors."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

Reversible = tw.layers["ReversibleEmbedding.v1"]


def _ids():
    return tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")


def test_the_reverse_is_the_transposed_table_and_trains_it():
    emb = Reversible(_ids(), vocab_size=5, n_units=3, mask_zero=True)
    logits = emb.reuse_with(emb, reverse=True)
    ids = np.array([[1, 4, 0]], "int64")
    table = emb.embeddings.numpy()
    out = tw.compile(logits)(ids).numpy()
    np.testing.assert_allclose(out, table[ids] @ table.T, rtol=1e-5)
    assert logits.variables == emb.variables and logits.padding_mask is emb.padding_mask
    np.testing.assert_array_equal(emb.padding_mask.compute(ids), ids != 0)


def test_untied_weights_and_the_soft_cap():
    emb = Reversible(_ids(), vocab_size=5, n_units=3, tie_weights=False, logit_soft_cap=0.5)
    assert emb.reverse_embeddings.shape == (3, 5)
    logits = emb.reuse_with(tw.Input(shape=(3,)), reverse=True)
    out = logits.compute(tf.fill([2, 3], 10.0)).numpy()
    want = 0.5 * np.tanh(np.full((2, 3), 10.0) @ emb.reverse_embeddings.numpy() / 0.5)
    np.testing.assert_allclose(out, want, rtol=1e-5)
    assert np.all(np.abs(out) <= 0.5)


def test_errors():
    with pytest.raises(TypeError, match=r"(?s)integer ids.*reverse=True"):
        Reversible(tw.Input(shape=(3,)), vocab_size=5, n_units=3)
    with pytest.raises(tw.ShapeError, match="n_units=3"):
        Reversible(tw.Input(shape=(4,)), vocab_size=5, n_units=3, reverse=True)
    with pytest.raises(tw.ArgumentError, match="logit_soft_cap"):
        Reversible(_ids(), vocab_size=5, n_units=3, logit_soft_cap=0)
