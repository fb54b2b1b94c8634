"""TextVectorization against Keras 3: the same adapted vocabulary (Keras's order) and idf
weights, the same outputs, for each standardize, split, ngrams and output_mode; a given
vocabulary and idf weights; the state in a checkpoint; adapting from a dataset."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

TRAIN = np.array([
    "The cat sat on the mat.", "The dog ate my homework!", "A cat, a dog; a bird?",
    "the the THE cat", "Dogs & cats: friends (sometimes)", "émile's café, naïve",
])  # fmt: skip
NEW = np.array(["the cat ate a zebra", "", "Unknown words only", "café naïve émile's"])


def _ours(**options):
    return tw.layers["TextVectorization.v1"](tw.Input(shape=(), dtype="string"), **options)


CASES = [
    {},
    {"output_sequence_length": 5},
    {"standardize": "lower", "output_sequence_length": 4},
    {"standardize": None, "split": "character", "output_sequence_length": 12},
    {"standardize": "strip_punctuation", "ngrams": 2, "output_sequence_length": 8},
    {"ngrams": (1, 3), "max_tokens": 12, "output_sequence_length": 6},
    {"split": None, "output_sequence_length": 1},
    {"output_mode": "multi_hot", "max_tokens": 10},
    {"output_mode": "count", "max_tokens": 30, "ngrams": 2},
    {"output_mode": "tf_idf", "max_tokens": 16},
]


@pytest.mark.parametrize("options", CASES)
def test_adapted_text_vectorization_equals_keras(options):
    ours = _ours(**options)
    ours.adapt(TRAIN)
    theirs = keras.layers.TextVectorization(
        **options, **({"pad_to_max_tokens": True} if options.get("output_mode", "int") != "int"
                      else {})
    )  # fmt: skip
    theirs.adapt(TRAIN)
    assert ours.get_vocabulary() == theirs.get_vocabulary()
    got = tw.compile(ours)(NEW).numpy()
    # Keras takes whole strings as tokens (split=None) only as a column [batch, 1]
    expected = np.asarray(
        theirs(NEW[:, None] if "split" in options and not options["split"] else NEW)
    )
    if options.get("output_sequence_length") is None and options.get("output_mode", "int") == "int":
        expected = expected[:, : got.shape[1]]  # Keras pads to the longest row too
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    if options.get("output_mode") == "tf_idf":
        np.testing.assert_allclose(
            ours.state.idf_weights.numpy(), np.asarray(theirs.get_config()["idf_weights"] or
                                                       theirs._lookup_layer.idf_weights),
            rtol=1e-6,
        )  # fmt: skip


def test_a_given_vocabulary_and_idf_weights_equal_kerass():
    vocab, idf = ["the", "cat", "dog"], [0.5, 1.0, 2.0]
    ours = _ours(vocabulary=vocab, output_mode="tf_idf", idf_weights=idf, adapt=False)
    theirs = keras.layers.TextVectorization(vocabulary=vocab, output_mode="tf_idf",
                                            idf_weights=idf)  # fmt: skip
    np.testing.assert_allclose(tw.compile(ours)(NEW).numpy(), np.asarray(theirs(NEW)), rtol=1e-6)
    ints = _ours(vocabulary=vocab, output_sequence_length=3)
    assert tw.compile(ints)(["the zebra dog"]).numpy().tolist() == [[2, 1, 4]]
    assert not ints.adapt_from_config and _ours().adapt_from_config


def test_the_vocabulary_is_in_a_checkpoint_and_adapts_from_a_dataset(tmp_path):
    ours = _ours(output_sequence_length=4)
    ours.adapt(tf.data.Dataset.from_tensor_slices(TRAIN).batch(2))
    reference = _ours(output_sequence_length=4)
    reference.adapt(TRAIN)
    assert ours.get_vocabulary() == reference.get_vocabulary()
    path = tf.train.Checkpoint(layer=ours).write(str(tmp_path / "ckpt"))
    fresh = _ours(output_sequence_length=4)
    tf.train.Checkpoint(layer=fresh).read(path).assert_consumed()
    assert fresh.get_vocabulary() == ours.get_vocabulary()
    np.testing.assert_array_equal(tw.compile(fresh)(NEW).numpy(), tw.compile(ours)(NEW).numpy())


def test_text_vectorization_names_bad_options_and_inputs():
    with pytest.raises(tw.InputValueError, match="takes strings"):
        tw.layers["TextVectorization.v1"](tw.Input(n_units=2))
    with pytest.raises(tw.ArgumentError, match="max_tokens=N"):
        _ours(output_mode="multi_hot")
    with pytest.raises(tw.ArgumentError, match="idf_weights"):
        _ours(vocabulary=["a"], output_mode="tf_idf")
    with pytest.raises(tw.ArgumentError, match="output_sequence_length is for"):
        _ours(output_mode="count", max_tokens=4, output_sequence_length=3)
    with pytest.raises(tw.InputValueError, match="not strings"):
        _ours().adapt(np.zeros(3))
