"""TransformerEncoderBlock: a Module of the pack's layers; padding masks, causal, reuse,
training, errors."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers import Dropout, MHAttention

Encoder = tw.layers["TransformerEncoderBlock.v1"]
RNG = np.random.default_rng(9)


def test_padded_steps_do_not_change_the_real_ones():
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    emb = tw.layers["Lookup.v1"](ids, vocab_size=9, n_units=4, mask_zero=True)
    block = Encoder(emb, n_heads=2, intermediate_dim=8)
    attention = [n for n in block.inner_graph.nodes if isinstance(n, MHAttention)]
    assert attention[0].inputs[-1] is emb.padding_mask and block.padding_mask is emb.padding_mask
    run = tw.compile(block)
    a = run(np.array([[3, 5, 0, 0]], "int64")).numpy()
    b = run(np.array([[3, 5, 0, 0, 0, 0]], "int64")).numpy()
    np.testing.assert_allclose(a[:, :2], b[:, :2], rtol=1e-5, atol=1e-6)


def test_causal_blocks_the_future_and_reuse_shares_every_weight():
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    block = Encoder(x, n_heads=1, intermediate_dim=4, causal=True, normalize_first=True)
    value = RNG.standard_normal((1, 5, 4)).astype("float32")
    changed = value.copy()
    changed[:, 3:] = 9.0
    a, b = block.compute(value).numpy(), block.compute(changed).numpy()
    np.testing.assert_allclose(a[:, :3], b[:, :3], rtol=1e-5, atol=1e-6)
    x2 = tw.Input(batch_shape=(None, None, 4), name="x2")
    for again in (
        block.reuse_with(x2),
        Encoder(x2, n_heads=1, intermediate_dim=4, share_state_with=block),
    ):
        assert {id(v) for v in again.variables} == {id(v) for v in block.variables}
        np.testing.assert_allclose(again.compute(value), a, rtol=1e-6)


def test_dropout_follows_training():
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    block = Encoder(x, n_heads=2, intermediate_dim=4, dropout=0.5)
    assert any(isinstance(n, Dropout) for n in block.inner_graph.nodes)
    quiet = block.reuse_with(x, training=False)
    value = RNG.standard_normal((2, 3, 4)).astype("float32")
    np.testing.assert_allclose(quiet.compute(value), quiet.compute(value))
    assert not np.allclose(block.compute(value), quiet.compute(value))


def test_errors():
    x = tw.Input(batch_shape=(None, None, 6), name="x")
    with pytest.raises(tw.ArgumentError, match=r"(?s)width 6 is not divisible by n_heads=4.*Fix"):
        Encoder(x, n_heads=4, intermediate_dim=8)
    with pytest.raises(tw.ShapeError, match="dense"):
        Encoder(tw.Input(n_units=6), n_heads=2, intermediate_dim=8)
    with pytest.raises(TypeError, match="a block"):
        Encoder(x, n_heads=2, intermediate_dim=8, share_state_with=tw.Input(n_units=2))
