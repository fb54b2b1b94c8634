"""Naming: unique readable names, nested scopes, reset, and per-thread scopes."""

from __future__ import annotations

import threading

import tensorflow as tf

import tensorweave as tw
from tensorweave.graph.naming import NameScope, current_scope, unique_name
from tests.strategies import Add


class LSTMCell(tw.Layer):
    def __init__(self, x, *, name=None, share_state_with=None):
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x):
        return x


def test_names_come_from_the_class_and_are_unique():
    x = tw.Input(n_units=2)
    assert x.name == "input"
    assert [Add(x).name for _ in range(3)] == ["add", "add_1", "add_2"]
    assert LSTMCell(x).name == "lstm_cell"
    assert tw.Input(n_units=1).name == "input_1"


def test_lambda_names_come_from_the_function():
    x = tw.Input(n_units=2)
    assert tw.Lambda(tf.nn.relu, x).name == "relu"
    assert tw.Lambda(tf.nn.relu, x).name == "relu_1"
    assert tw.Lambda(lambda t: t, x).name == "lambda"
    assert (x + 1.0).name == "add"


def test_explicit_names_are_kept_and_not_handed_out_again():
    x = tw.Input(n_units=2, name="add_1")
    assert x.name == "add_1"
    scope = NameScope()
    assert [scope.unique("add"), scope.unique("add_1"), scope.unique("add")] == [
        "add",
        "add_1",
        "add_2",
    ]


def test_name_scopes_nest():
    with tw.name_scope("encoder"):
        x = tw.Input(n_units=2)
        with tw.name_scope("block") as scope:
            a = Add(x)
            assert scope.prefix == "encoder/block"
        b = Add(x)
    c = Add(x)
    assert (x.name, a.name, b.name, c.name) == (
        "encoder/input",
        "encoder/block/add",
        "encoder/add",
        "add",
    )


def test_sibling_scopes_of_the_same_name_are_told_apart():
    names = []
    for _ in range(2):
        with tw.name_scope("block"):
            names.append(unique_name("dense"))
    assert names == ["block/dense", "block_1/dense"]


def test_scoped_names_still_give_valid_module_names():
    with tw.name_scope("my encoder!"):
        layer = Add(tw.Input(n_units=1))
    assert layer.name == "my_encoder_/add"
    assert layer.state.name.isidentifier() and "/" not in tf.Module.name.fget(layer)


def test_reset_names_starts_again():
    assert unique_name("thing") == "thing"
    assert unique_name("thing") == "thing_1"
    tw.reset_names()
    assert unique_name("thing") == "thing"


def test_scope_is_restored_after_an_error():
    try:
        with tw.name_scope("failing"):
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert current_scope().prefix == ""
    assert unique_name("after") == "after"


def test_threads_do_not_share_scopes():
    inside = threading.Event()
    done = threading.Event()
    seen: dict[str, str] = {}

    def scoped_worker():
        with tw.name_scope("worker"):
            inside.set()
            seen["scoped"] = unique_name("op")
            done.wait(5)

    thread = threading.Thread(target=scoped_worker)
    thread.start()
    assert inside.wait(5)
    # while the other thread is inside its scope, this thread and a third are not
    other = threading.Thread(target=lambda: seen.setdefault("other", unique_name("op2")))
    other.start()
    other.join()
    mine = unique_name("op3")
    done.set()
    thread.join()
    assert seen["scoped"] == "worker/op"
    assert seen["other"] == "op2"
    assert mine == "op3"


def test_names_are_unique_across_threads():
    names: list[str] = []
    lock = threading.Lock()

    def work():
        made = [unique_name("node") for _ in range(2000)]
        with lock:
            names.extend(made)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(names)) == len(names) == 8000
