"""GroupQueryAttention: as many key/value heads as query heads is MHAttention; shared
key/value heads serve consecutive groups; errors."""

import numpy as np
import pytest

import tensorweave as tw

GQA = tw.layers["GroupQueryAttention.v1"]
RNG = np.random.default_rng(17)


def test_one_key_value_head_per_query_head_is_mhattention():
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    gqa = GQA(x, n_heads=2, n_kv_heads=2)
    mha = tw.layers["MHAttention.v1"](x, n_heads=2)
    for ours, theirs in zip(gqa.variables, mha.variables, strict=True):
        theirs.assign(ours)
    value = RNG.standard_normal((2, 3, 4)).astype("float32")
    np.testing.assert_allclose(
        gqa.compute(value, value, value), mha.compute(value, value, value), rtol=1e-6
    )


def test_a_shared_head_equals_its_copy_for_each_query_head():
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    gqa = GQA(x, n_heads=4, n_kv_heads=2, head_dim=2)
    mha = tw.layers["MHAttention.v1"](x, n_heads=4, head_dim=2)
    for name in ("query_kernel", "query_bias", "output_kernel", "output_bias"):
        getattr(mha, name).assign(getattr(gqa, name))
    for name in ("key_kernel", "key_bias", "value_kernel", "value_bias"):
        shared = getattr(gqa, name).numpy()
        getattr(mha, name).assign(np.repeat(shared, 2, axis=-2))  # heads 0, 0, 1, 1
    value = RNG.standard_normal((2, 3, 4)).astype("float32")
    np.testing.assert_allclose(
        gqa.compute(value, value, value), mha.compute(value, value, value), rtol=1e-5, atol=1e-6
    )


def test_reuse_keeps_the_heads_and_errors_name_the_fix():
    x = tw.Input(batch_shape=(None, None, 6), name="x")
    gqa = GQA(x, n_heads=6, n_kv_heads=3)
    again = gqa.reuse_with(tw.Input(batch_shape=(None, None, 6)), causal=True)
    assert again.n_kv_heads == 3 and again.causal and again.key_kernel is gqa.key_kernel
    with pytest.raises(tw.ArgumentError, match=r"(?s)not divisible by n_kv_heads=4.*Fix"):
        GQA(x, n_heads=6, n_kv_heads=4)
    with pytest.raises(tw.ArgumentError, match="n_kv_heads"):
        GQA(x, n_heads=6, n_kv_heads=0)
    with pytest.raises(TypeError):
        GQA(x, n_heads=2, n_kv_heads=1, bogus=1)
