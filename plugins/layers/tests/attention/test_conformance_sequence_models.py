"""The attention, transformer, embedding, einsum and merging layers (and padding masks)
through the conformance kit: one case per component, built by registered name."""

import tensorweave as tw
from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401

SEQ = (None, None, 4)
IDS = InputSpec((None, None), "int64", maxval=6)
MASK = InputSpec((None, None), "bool")


def _reversed_logits(ids: tw.Layer, **options: object) -> tw.Layer:
    """Tied embeddings and output projection in one module: ids -> logits."""
    emb = tw.layers["ReversibleEmbedding.v1"](ids, **options)
    return tw.Module(ids, emb.reuse_with(emb * 2.0, reverse=True))


def _masked_mean(ids: tw.Layer, **options: object) -> tw.Layer:
    """Lookup(mask_zero) -> GlobalAvgPool, the mask wired by the layers themselves."""
    emb = tw.layers["Lookup.v1"](ids, vocab_size=6, n_units=3, mask_zero=True)
    return tw.Module(ids, tw.layers["GlobalAvgPool.v1"](emb, **options))


def _pool_with_mask(x: tw.Layer, mask: tw.Layer) -> tw.Layer:
    return tw.layers["GlobalMaxPool.v1"](x, mask=mask)


def _attention_with_masks(q: tw.Layer, v: tw.Layer, qm: tw.Layer, vm: tw.Layer) -> tw.Layer:
    """Attention given both masks by keyword, as a module of its four inputs."""
    att = tw.layers["Attention.v1"](q, v, query_mask=qm, key_mask=vm, use_scale=True)
    return tw.Module([q, v, qm, vm], att)


TENSORWEAVE_CASES = [
    Case(
        "EinsumDense.v1",
        {"equation": "abc,cde->abde", "output_shape": (None, 2, 3), "bias_axes": "de"},
        inputs=[SEQ],
    ),
    Case("Attention.v1", {"use_scale": True, "causal": True}, inputs=[SEQ, SEQ]),
    Case("Attention.v1", {"score_mode": "concat"}, inputs=[SEQ, SEQ, (None, None, 2)]),
    Case("Attention+masks", inputs=[SEQ, SEQ, MASK, MASK], factory=_attention_with_masks),
    Case("AdditiveAttention.v1", {"causal": True}, inputs=[SEQ, SEQ]),
    Case(
        "GroupQueryAttention.v1",
        {"n_heads": 4, "n_kv_heads": 2, "head_dim": 2},
        inputs=[(None, None, 8), (None, None, 6)],
    ),
    Case("PositionEmbedding.v1", {"seq_len": 5}, inputs=[SEQ]),
    Case("SinusoidalPositionEmbedding.v1", inputs=[SEQ]),
    Case("RotaryEmbedding.v1", inputs=[(None, None, 2, 4)]),
    Case("ReversibleEmbedding.v1", {"vocab_size": 6, "n_units": 4, "mask_zero": True}, [IDS]),
    Case(
        "ReversibleEmbedding.v1",
        {"vocab_size": 6, "n_units": 4, "tie_weights": False, "logit_soft_cap": 5.0},
        inputs=[IDS],
        factory=_reversed_logits,
    ),
    Case("TransformerEncoderBlock.v1", {"n_heads": 2, "intermediate_dim": 8}, inputs=[SEQ]),
    Case(
        "TransformerDecoderBlock.v1",
        {"n_heads": 2, "intermediate_dim": 8, "normalize_first": True},
        inputs=[SEQ, (None, None, 6)],
    ),
    Case("Dot.v1", {"axes": 2, "normalize": True}, inputs=[(None, 3, 4), (None, 5, 4)]),
    Case("Subtract.v1", inputs=[(None, 4), (None, 4)]),
    Case("Average.v1", inputs=[SEQ, SEQ, SEQ]),
    Case("Maximum.v1", inputs=[(None, 4), (None, 4)]),
    Case("Minimum.v1", inputs=[(None, 4), (None, 4)]),
    Case("Lookup+GlobalAvgPool(padding mask)", inputs=[IDS], factory=_masked_mean),
    Case("GlobalMaxPool+mask", inputs=[(None, None, 3), MASK], factory=_pool_with_mask),
]
