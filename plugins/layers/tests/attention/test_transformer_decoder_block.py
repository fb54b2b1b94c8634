"""TransformerDecoderBlock: causal self-attention, cross-attention with the context's
padding mask, decoder-only use."""

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers import MHAttention

Decoder = tw.layers["TransformerDecoderBlock.v1"]
RNG = np.random.default_rng(10)


def test_the_future_of_the_target_and_the_source_padding_are_hidden():
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    src = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="src")
    memory = tw.layers["Lookup.v1"](src, vocab_size=7, n_units=6, mask_zero=True)
    block = Decoder(x, memory, n_heads=2, intermediate_dim=8)
    assert block.inputs == (x, memory, memory.padding_mask)
    self_att, cross = (n for n in block.inner_graph.nodes if isinstance(n, MHAttention))
    assert self_att.causal and not cross.causal and cross.inputs[-1] is memory.padding_mask
    run = tw.compile(block)
    value = RNG.standard_normal((1, 4, 4)).astype("float32")
    changed = value.copy()
    changed[:, 2:] = 7.0
    ids = np.array([[2, 3, 0]], "int64")
    a, b = run(value, ids).numpy(), run(changed, ids).numpy()
    np.testing.assert_allclose(a[:, :2], b[:, :2], rtol=1e-5, atol=1e-6)
    longer = run(value, np.array([[2, 3, 0, 0, 0]], "int64")).numpy()
    np.testing.assert_allclose(longer, a, rtol=1e-5, atol=1e-6)


def test_without_context_it_is_a_decoder_only_block():
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    block = Decoder(x, n_heads=2, intermediate_dim=8)
    assert sum(isinstance(n, MHAttention) for n in block.inner_graph.nodes) == 1
    assert block.compute(np.ones((2, 3, 4), "float32")).shape.as_list() == [2, 3, 4]
