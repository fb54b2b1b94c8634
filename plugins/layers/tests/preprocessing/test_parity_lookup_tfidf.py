"""StringLookup and IntegerLookup in ``output_mode="tf_idf"`` against Keras 3 on the same data:
the same adapted (or given) idf weights, in the same index space, and the same outputs."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

DOCS = np.array(
    [["a", "b", "a"], ["c", "a", "d"], ["b", "b", "e"], ["f", "a", "c"], ["g", "h", "a"]]
)
PROBE = np.array([["a", "zzz", "h"], ["b", "b", "q"], ["", "c", "g"]])


def _close(ours, ref, value):
    got = tw.compile(ours)(value)
    want = np.asarray(ref(value))
    assert got.dtype.name == str(want.dtype) == "float32"
    assert got.shape == want.shape and tuple(ours.shape[1:]) == want.shape[1:]
    np.testing.assert_allclose(got.numpy(), want, atol=1e-6)


@pytest.mark.parametrize(
    "options",
    [{"max_tokens": 12}, {"max_tokens": 6}, {"max_tokens": 12, "num_oov_indices": 2},
     {"max_tokens": 12, "mask_token": ""}],
)  # fmt: skip
def test_an_adapted_string_lookup_learns_keras_idf_weights(options):
    ours = tw.layers["StringLookup.v1"](
        tw.Input(shape=(3,), dtype="string"), output_mode="tf_idf", **options
    )
    ours.adapt(DOCS)
    ref = keras.layers.StringLookup(output_mode="tf_idf", pad_to_max_tokens=True, **options)
    ref.adapt(DOCS)
    assert ours.get_vocabulary() == ref.get_vocabulary()
    np.testing.assert_allclose(
        ours.state.idf_weights.numpy(), np.asarray(ref.idf_weights), atol=1e-6
    )
    _close(ours, ref, PROBE)


def test_an_adapted_integer_lookup_learns_keras_idf_weights():
    docs = np.array([[3, 1, 3], [7, 3, 9], [1, 1, 4], [2, 3, 7]], "int64")
    ours = tw.layers["IntegerLookup.v1"](
        tw.Input(shape=(3,), dtype="int64"), output_mode="tf_idf", max_tokens=9
    )
    ours.adapt(docs)
    ref = keras.layers.IntegerLookup(output_mode="tf_idf", max_tokens=9, pad_to_max_tokens=True)
    ref.adapt(docs)
    assert ours.get_vocabulary() == ref.get_vocabulary()
    np.testing.assert_allclose(
        ours.state.idf_weights.numpy(), np.asarray(ref.idf_weights), atol=1e-6
    )
    _close(ours, ref, np.array([[3, 5, 3], [9, 9, 1]], "int64"))


@pytest.mark.parametrize("kind", ["String", "Integer"])
def test_given_idf_weights_match_keras(kind):
    vocab = ["a", "b", "c"] if kind == "String" else [4, 8, 15]
    weights = [0.5, 1.25, 2.0]
    dtype = "string" if kind == "String" else "int64"
    ours = tw.layers[f"{kind}Lookup.v1"](
        tw.Input(shape=(2,), dtype=dtype), vocabulary=vocab, idf_weights=weights,
        output_mode="tf_idf",
    )  # fmt: skip
    ref = getattr(keras.layers, f"{kind}Lookup")(
        vocabulary=vocab, idf_weights=weights, output_mode="tf_idf"
    )
    value = (
        np.array([["a", "a"], ["x", "c"], ["b", "q"]])
        if kind == "String"
        else np.array([[4, 4], [99, 15], [8, 0]], "int64")
    )
    _close(ours, ref, value)


def test_tf_idf_with_a_vocabulary_needs_its_idf_weights():
    x = tw.Input(shape=(2,), dtype="string")
    with pytest.raises(tw.ArgumentError, match="needs idf_weights"):
        tw.layers["StringLookup.v1"](x, vocabulary=["a"], output_mode="tf_idf")
    with pytest.raises(tw.ArgumentError, match="one per"):
        tw.layers["StringLookup.v1"](x, vocabulary=["a"], idf_weights=[1.0, 2.0],
                                     output_mode="tf_idf")  # fmt: skip
    with pytest.raises(tw.ArgumentError, match="idf_weights go with"):
        tw.layers["StringLookup.v1"](x, vocabulary=["a"], idf_weights=[1.0])


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count", "tf_idf"])
@pytest.mark.parametrize("kind", ["String", "Integer"])
def test_sparse_vector_outputs_equal_keras(kind, mode):
    vocab = ["a", "b", "c"] if kind == "String" else [4, 8, 15]
    extra = {"idf_weights": [0.5, 1.25, 2.0]} if mode == "tf_idf" else {}
    dtype = "string" if kind == "String" else "int64"
    width = 1 if mode == "one_hot" else 2
    ours = tw.layers[f"{kind}Lookup.v1"](
        tw.Input(shape=(width,), dtype=dtype), vocabulary=vocab, output_mode=mode, sparse=True,
        **extra,
    )  # fmt: skip
    # Keras 3.15's sparse tf_idf fails on a batch of rows (GatherNd on rank-1 weights): its
    # dense tf_idf is the reference there
    ref = getattr(keras.layers, f"{kind}Lookup")(
        vocabulary=vocab, output_mode=mode, sparse=mode != "tf_idf", **extra
    )
    value = (
        np.array([["a", "a"], ["x", "c"], ["b", "q"]])
        if kind == "String"
        else np.array([[4, 4], [99, 15], [8, 0]], "int64")
    )[:, :width]
    got, want = tw.compile(ours)(value), ref(value)
    want = want if isinstance(want, tf.SparseTensor) else tf.sparse.from_dense(want)
    assert ours.sparse and isinstance(got, tf.SparseTensor)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(tf.sparse.to_dense(got).numpy(), tf.sparse.to_dense(want).numpy(),
                               atol=1e-6)  # fmt: skip


def test_sparse_int_indices_are_refused():
    with pytest.raises(tw.ArgumentError, match="sparse=True"):
        tw.layers["StringLookup.v1"](tw.Input(shape=(2,), dtype="string"), vocabulary=["a"],
                                     sparse=True)  # fmt: skip
