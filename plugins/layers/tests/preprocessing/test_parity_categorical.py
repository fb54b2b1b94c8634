"""StringLookup, IntegerLookup, CategoryEncoding and Hashing against Keras 3 on the same data:
the same vocabularies (in Keras's order), the same outputs and dtypes."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

WORDS = np.array(
    ["b", "a", "c", "a", "d", "b", "e", "a", "c", "f", "b", "g", "d", "h", "c"] * 3
).reshape(-1, 1)
PROBE = np.array([["a"], ["zzz"], ["h"], ["b"], [""], ["[UNK]"], ["g"]])


def _run(layer, value):
    return tw.compile(layer)(value)


def _same(ours, ref, value):
    got = _run(ours, value)
    want = np.asarray(ref(value))
    assert got.dtype.name == str(want.dtype), (got.dtype, want.dtype)
    assert got.shape == want.shape and tuple(ours.shape[1:]) == want.shape[1:]
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize(
    "options",
    [{}, {"max_tokens": 5}, {"num_oov_indices": 3}, {"mask_token": ""},
     {"mask_token": "", "num_oov_indices": 2, "max_tokens": 7}, {"num_oov_indices": 0, "max_tokens": 9}],
)  # fmt: skip
@pytest.mark.parametrize("batched", [False, True])
def test_string_lookup_adapts_the_vocabulary_keras_does(options, batched):
    data = tf.data.Dataset.from_tensor_slices(WORDS).batch(7) if batched else WORDS
    ours = tw.layers["StringLookup.v1"](tw.Input(shape=(1,), dtype="string"), **options)
    ours.adapt(data)
    ref = keras.layers.StringLookup(**options)
    ref.adapt(data)
    assert ours.get_vocabulary() == ref.get_vocabulary()
    assert ours.vocabulary_size() == ref.vocabulary_size()
    probe = PROBE if options.get("num_oov_indices", 1) else WORDS[:9]
    _same(ours, ref, probe)


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count"])
def test_string_lookup_output_modes_match_keras(mode):
    vocab = ["a", "b", "c"]
    ours = tw.layers["StringLookup.v1"](
        tw.Input(shape=(2,), dtype="string"), vocabulary=vocab, output_mode=mode
    )
    ref = keras.layers.StringLookup(vocabulary=vocab, output_mode=mode)
    if mode == "one_hot":
        ours = tw.layers["StringLookup.v1"](
            tw.Input(shape=(1,), dtype="string"), vocabulary=vocab, output_mode=mode
        )
        _same(ours, ref, np.array([["a"], ["x"], ["c"]]))
    else:
        _same(ours, ref, np.array([["a", "a"], ["x", "c"], ["b", "q"]]))


def test_an_adapted_vector_lookup_is_max_tokens_wide_as_keras_padded():
    ours = tw.layers["StringLookup.v1"](
        tw.Input(shape=(1,), dtype="string"), max_tokens=12, output_mode="multi_hot"
    )
    ours.adapt(WORDS)
    ref = keras.layers.StringLookup(max_tokens=12, output_mode="multi_hot", pad_to_max_tokens=True)
    ref.adapt(WORDS)
    _same(ours, ref, PROBE)


def test_a_given_vocabulary_and_a_vocabulary_file_match_keras(tmp_path):
    vocab = ["rome", "paris", "oslo"]
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(vocab) + "\n")
    probe = np.array(["paris", "berlin", "oslo", "rome"])
    ref = keras.layers.StringLookup(vocabulary=vocab)
    for given in (vocab, str(path), ["[UNK]", *vocab]):
        ours = tw.layers["StringLookup.v1"](tw.Input(shape=(), dtype="string"), vocabulary=given)
        assert ours.get_vocabulary() == ref.get_vocabulary()
        _same(ours, ref, probe)


@pytest.mark.parametrize(
    "options", [{}, {"mask_token": 0}, {"num_oov_indices": 2, "max_tokens": 6}]
)
def test_integer_lookup_adapts_and_looks_up_as_keras(options):
    data = np.array([7, 3, 7, 9, 3, 7, 12, 3, 9, 0, 5], "int64").reshape(-1, 1)
    ours = tw.layers["IntegerLookup.v1"](tw.Input(shape=(1,), dtype="int64"), **options)
    ours.adapt(data)
    ref = keras.layers.IntegerLookup(**options)
    ref.adapt(data)
    assert ours.get_vocabulary() == [int(v) for v in ref.get_vocabulary()]
    _same(ours, ref, np.array([[7], [4], [0], [12], [100], [-3]], "int64"))


@pytest.mark.parametrize("mode", ["one_hot", "multi_hot", "count"])
@pytest.mark.parametrize("shape", [(5,), (5, 1), (5, 3)])
def test_category_encoding_matches_keras(mode, shape):
    if mode == "one_hot" and shape == (5, 3):
        pytest.skip("Keras one-hot encodes each of the 3 entries: tested with (5, 1)")
    if mode != "one_hot" and shape == (5,):
        pytest.skip("Keras reads a bare (5,) array as one example; a layer input is a batch")
    ids = np.random.default_rng(0).integers(0, 6, shape).astype("int64")
    ours = tw.layers["CategoryEncoding.v1"](tw.Input(batch_shape=(None, *shape[1:]), dtype="int64"),
                                            num_tokens=6, output_mode=mode)  # fmt: skip
    _same(ours, keras.layers.CategoryEncoding(num_tokens=6, output_mode=mode), ids)


@pytest.mark.parametrize(
    ("options", "value"),
    [({"num_bins": 5}, np.array([["a"], ["b"], ["rome"], [""]])),
     ({"num_bins": 5, "mask_value": ""}, np.array([["a"], ["b"], ["rome"], [""]])),
     ({"num_bins": 7, "salt": 133}, np.array([["a"], ["b"], ["rome"]])),
     ({"num_bins": 4, "output_mode": "multi_hot"}, np.array([["a", "b"], ["c", "a"]])),
     ({"num_bins": 9}, np.array([[3], [-1], [40]], "int64")),
     ({"num_bins": 9}, np.array([[3.7], [-1.2]], "float32"))],
)  # fmt: skip
def test_hashing_matches_keras(options, value):
    x = tw.Input(
        shape=value.shape[1:], dtype=value.dtype.name if value.dtype.kind != "U" else "string"
    )
    _same(tw.layers["Hashing.v1"](x, **options), keras.layers.Hashing(**options), value)


@pytest.mark.parametrize(
    ("kind", "vocab", "extra"),
    [
        ("String", ["a", "b", "c"], {}),
        ("Integer", [7, 3, 9], {}),
        ("String", ["a", "b"], {"mask_token": "", "num_oov_indices": 2}),
    ],
)
def test_inverted_lookups_equal_keras(kind, vocab, extra):
    ours = tw.layers[f"{kind}Lookup.v1"](
        tw.Input(shape=(None,), dtype="int64"), vocabulary=vocab, invert=True, **extra
    )
    theirs = getattr(keras.layers, f"{kind}Lookup")(vocabulary=vocab, invert=True, **extra)
    idx = np.array([[0, 1, 2, 3, 4, 9], [1, 1, 0, -1, 2, 3]])
    assert tw.compile(ours)(idx).numpy().tolist() == np.asarray(theirs(idx)).tolist()


def test_an_inverted_lookup_undoes_an_adapted_one():
    tokens = np.array([["oslo", "rome"], ["rome", "lima"]])
    look = tw.layers["StringLookup.v1"](tw.Input(shape=(2,), dtype="string"))
    look.adapt(tokens)
    back = tw.layers["StringLookup.v1"](look, invert=True, share_state_with=look)
    assert tw.compile(back)(tokens).numpy().astype(str).tolist() == tokens.tolist()
    with pytest.raises(tw.InputValueError, match="invert=True"):
        tw.layers["StringLookup.v1"](tw.Input(shape=(), dtype="string"), invert=True)
