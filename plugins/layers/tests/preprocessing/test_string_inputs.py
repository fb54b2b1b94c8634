"""String inputs through a Graph: ``tw.Input(dtype="string")`` takes Python strings, numpy
``<U``/object arrays and JSON-decoded lists; a StringLookup's vocabulary (adapted or given)
travels in checkpoints and SavedModels; unseen strings get the OOV index, as Keras's."""

import json

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

VOCAB = ["red", "green", "blue"]


def _lookup(**options):
    return tw.layers["StringLookup.v1"](
        tw.Input(shape=(1,), dtype="string", name="colour"), **options
    )


@pytest.mark.parametrize(
    "value",
    [np.array([["blue"], ["pink"], ["red"]]),  # <U5
     np.array([["blue"], ["pink"], ["red"]], dtype=object),
     json.loads('[["blue"], ["pink"], ["red"]]'),
     [[b"blue"], [b"pink"], [b"red"]]],
)  # fmt: skip
def test_every_form_of_strings_is_looked_up(value):
    f = tw.compile(_lookup(vocabulary=VOCAB))
    assert f(value).numpy().tolist() == [[3], [0], [1]]  # "pink" is unseen: OOV index 0


def test_an_adapted_vocabulary_survives_a_checkpoint(tmp_path):
    look = _lookup()
    look.adapt(
        tf.data.Dataset.from_tensor_slices(np.array(["b", "a", "b", "c", "b", "a"])).batch(4)
    )
    path = tf.train.Checkpoint(layer=look).write(str(tmp_path / "ckpt"))
    fresh = _lookup()
    assert fresh.get_vocabulary() == ["[UNK]"]
    tf.train.Checkpoint(layer=fresh).read(path).assert_consumed()
    assert fresh.get_vocabulary() == ["[UNK]", "b", "a", "c"]
    assert tw.compile(fresh)(np.array([["c"], ["z"]])).numpy().tolist() == [[3], [0]]


def test_a_saved_model_looks_strings_up_with_the_adapted_vocabulary(tmp_path):
    x = tw.Input(shape=(), dtype="string", name="colour")
    look = tw.layers["StringLookup.v1"](x, max_tokens=5, output_mode="one_hot")
    look.adapt(np.array(["red", "red", "blue"]))
    f = tw.compile(look)
    holder = tf.Module()
    holder.graph = f.graph
    holder.serve = f.function
    tf.saved_model.save(holder, str(tmp_path / "model"))
    loaded = tf.saved_model.load(str(tmp_path / "model"))
    got = loaded.serve(tf.constant(["blue", "pink", "red"])).numpy().tolist()
    assert got == [[0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0]]


def test_reuse_shares_the_vocabulary():
    look = _lookup()
    other = look.reuse_with(tw.Input(shape=(1,), dtype="string", name="other"))
    look.set_vocabulary(["x", "y"])
    assert tw.compile(other)(np.array([["y"]])).numpy().tolist() == [[2]]


def test_lookup_then_encoding_in_one_graph():
    x = tw.Input(shape=(1,), dtype="string", name="colour")
    ids = tw.layers["StringLookup.v1"](x, vocabulary=VOCAB)
    onehot = tw.layers["CategoryEncoding.v1"](ids, num_tokens=4, output_mode="one_hot")
    out = tw.compile(onehot)(np.array([["green"], ["?"]]))
    assert out.numpy().tolist() == [[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]]


def test_errors_name_the_layer_and_the_fix(tmp_path):
    with pytest.raises(
        tw.ArgumentError, match=r"vocabulary file .*missing\.txt.* does not exist.*Fix"
    ):
        _lookup(vocabulary=str(tmp_path / "missing.txt"))
    with pytest.raises(tw.InputValueError, match=r"looks up strings.*tw\.Input\(dtype='string'\)"):
        tw.layers["StringLookup.v1"](tw.Input(n_units=1))
    with pytest.raises(tw.InputValueError, match="StringLookup"):
        tw.layers["CategoryEncoding.v1"](tw.Input(shape=(1,), dtype="string"), num_tokens=3)
    with pytest.raises(tw.ArgumentError, match="max_tokens=N"):
        _lookup(output_mode="multi_hot")
    with pytest.raises(tw.ArgumentError, match="repeats"):
        _lookup(vocabulary=["a", "a"])
    with pytest.raises(tw.InputValueError, match="not strings"):
        _lookup().adapt(np.array([[1.0]]))
    with pytest.raises(tw.InputValueError, match="looks up integers"):
        tw.layers["IntegerLookup.v1"](tw.Input(n_units=1))


def test_num_oov_indices_zero_refuses_an_unseen_string_at_run_time():
    f = tw.compile(_lookup(vocabulary=VOCAB, num_oov_indices=0))
    assert f(np.array([["red"]])).numpy().tolist() == [[0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_oov_indices=0"):
        f(np.array([["pink"]]))
