"""The Transformer blocks against keras_hub's ``TransformerEncoder``/``TransformerDecoder``
algorithm written with Keras 3 layers (``MultiHeadAttention``, ``LayerNormalization``,
``Dense``; keras_hub itself is not a dependency): with the block's weights copied in, the
same outputs and gradients (of the inputs and of every weight)."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers import FC, LayerNorm, Linear, MHAttention

RNG = np.random.default_rng(5)


class KerasBlock:
    """keras_hub's block: residual sub-layers of attention and a feed-forward network."""

    def __init__(self, block: tw.Module, normalize_first: bool):
        self.normalize_first = normalize_first
        nodes = block.inner_graph.nodes
        self.pairs: list[tuple[tf.Variable, tf.Variable]] = []
        self.attention = [self._mha(n) for n in nodes if isinstance(n, MHAttention)]
        self.norms = [self._norm(n) for n in nodes if isinstance(n, LayerNorm)]
        dense = [n.state.linear if isinstance(n, FC) else n for n in nodes]
        self.dense = [self._dense(n) for n in dense if isinstance(n, Linear)]

    def _mha(self, att):
        widths = [getattr(att, f"{r}_kernel").shape[0] for r in ("query", "key", "value")]
        ref = keras.layers.MultiHeadAttention(att.n_heads, att.head_dim)
        ref.build((None, None, widths[0]), (None, None, widths[2]), (None, None, widths[1]))
        for role in ("query", "key", "value", "output"):
            for kind in ("kernel", "bias"):
                self._copy(getattr(att, f"{role}_{kind}"), getattr(ref, f"_{role}_dense"), kind)
        return ref

    def _norm(self, norm):
        ref = keras.layers.LayerNormalization(epsilon=1e-5)
        ref.build((None, None, norm.gamma.shape[0]))
        self._copy(norm.gamma, ref, "gamma")
        self._copy(norm.beta, ref, "beta")
        return ref

    def _dense(self, linear):
        ref = keras.layers.Dense(linear.weights.shape[1])
        ref.build((None, None, linear.weights.shape[0]))
        self._copy(linear.weights, ref, "kernel")
        self._copy(linear.bias, ref, "bias")
        return ref

    def _copy(self, ours, layer, name):
        theirs = getattr(layer, name)
        theirs.assign(RNG.standard_normal(theirs.shape).astype("float32") * 0.5)
        ours.assign(theirs)
        self.pairs.append((ours, theirs))

    def _residual(self, x, body, norm):
        h = body(norm(x) if self.normalize_first else x) + x
        return h if self.normalize_first else norm(h)

    def __call__(self, x, context=None, mask=None):
        attention, norms = iter(self.attention), iter(self.norms)
        keys = None if mask is None else mask[:, None, :]
        causal = context is not None  # the decoder's self-attention
        mha = next(attention)
        x = self._residual(
            x, lambda h: mha(h, h, attention_mask=keys, use_causal_mask=causal), next(norms)
        )
        if context is not None:
            cross = next(attention)
            x = self._residual(x, lambda h: cross(h, context), next(norms))
        hidden, out = self.dense
        return self._residual(x, lambda h: out(tf.nn.relu(hidden(h))), next(norms))


def _run(fn, inputs, weights):
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        out = fn(*inputs)
        loss = tf.reduce_sum(tf.sin(2.0 * out))
    return [out, *tape.gradient(loss, [*inputs, *weights])]


def _assert_same(got, want):
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("normalize_first", [False, True])
def test_encoder_block_matches_keras_hubs_encoder(normalize_first):
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    mask = tw.Input(batch_shape=(None, None), dtype=tf.bool, name="mask")
    x.padding_mask = mask
    block = tw.layers["TransformerEncoderBlock.v1"](
        x, n_heads=2, intermediate_dim=6, normalize_first=normalize_first
    )
    assert block.inputs == (x, mask) and block.padding_mask is mask
    ref = KerasBlock(block, normalize_first)
    value = tf.constant(RNG.standard_normal((2, 5, 4)).astype("float32"))
    real = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    ours, theirs = zip(*ref.pairs, strict=True)
    run = tw.compile(block)
    _assert_same(
        _run(lambda v: run(v, real), [value], ours),
        _run(lambda v: ref(v, mask=real), [value], theirs),
    )


def test_decoder_block_matches_keras_hubs_decoder():
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    memory = tw.Input(batch_shape=(None, None, 6), name="memory")
    block = tw.layers["TransformerDecoderBlock.v1"](
        x, memory, n_heads=2, intermediate_dim=8, normalize_first=True
    )
    ref = KerasBlock(block, normalize_first=True)
    value = tf.constant(RNG.standard_normal((2, 4, 4)).astype("float32"))
    context = tf.constant(RNG.standard_normal((2, 3, 6)).astype("float32"))
    ours, theirs = zip(*ref.pairs, strict=True)
    _assert_same(
        _run(tw.compile(block), [value, context], ours),
        _run(lambda v, c: ref(v, context=c), [value, context], theirs),
    )
