"""Arithmetic on nodes, ``tw.op``, indexing and a ``Lambda`` of a TensorFlow op are written
as ``Op.v1`` nodes by name and rebuilt from the config alone, constants as data, variables
as their shapes; an op that could run code or touch files is refused by name."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave import config
from tensorweave.config import ConfigError, graph_block, resolve_graph


def _rebuilt(block: dict) -> tw.Graph:
    block = json.loads(json.dumps(block))  # plain data only
    return resolve_graph(block, "model").graph()


def test_arithmetic_ops_and_indexing_round_trip_through_the_config() -> None:
    mean = np.array([0.5, -1.0, 2.0], "float32")
    x = tw.Input(n_units=3, name="x")
    z = (x - mean) / 4.0
    y = tw.op("tf.math.erfc")(-z * 2 + 1.0)
    out = tw.ops.reduce_sum(y[:, 1:] ** 2, axis=-1, keepdims=True)
    lam = tw.Lambda(tf.nn.gelu, out, approximate=True, name="gelu")
    block = graph_block({"inputs": [x], "outputs": [lam]})
    ops = {n["function"] for n in block["nodes"].values() if "function" in n}
    assert {"tf.math.subtract", "tf.math.erfc", "tw.getitem", "tf.nn.gelu"} <= ops
    assert block["nodes"]["subtract"]["args"][1] == {"array": mean.tolist(), "dtype": "float32"}
    xs = np.random.default_rng(0).normal(size=(5, 3)).astype("float32")
    want = tw.Graph.build(inputs=x, outputs=lam).compute(xs)
    got = _rebuilt(block).compute(xs)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_a_variable_in_an_op_is_written_as_its_shape() -> None:
    x = tw.Input(n_units=3, name="x")
    y = x @ tf.Variable(tf.ones((3, 2)))
    spec = graph_block({"outputs": y})["nodes"]["matmul"]
    assert spec["args"][1] == {"variable": [3, 2], "dtype": "float32", "trainable": True}
    rebuilt = _rebuilt(graph_block({"outputs": y}))
    assert [v.shape.as_list() for v in rebuilt.variables] == [[3, 2]]


def test_a_config_cannot_name_an_op_that_runs_code_or_touches_files() -> None:
    for function in ("tf.py_function", "tf.io.write_file", "tf.print", "os.system", "tf._x"):
        block = {
            "nodes": {
                "x": {"input": [2]},
                "y": {"@layers": "Op.v1", "inputs": ["x"], "function": function},
            }
        }
        [(path, message)] = config.validate({"model": block})  # before anything is built
        assert path == "model.nodes.y.function"
        assert "is not an op a config may name" in message or "no TensorFlow op" in message


def test_a_misspelled_op_gets_the_closest_name() -> None:
    block = {
        "nodes": {
            "x": {"input": [2]},
            "y": {"@layers": "Op.v1", "inputs": ["x"], "function": "tf.math.substract"},
        }
    }
    [(_, message)] = config.validate({"model": block})
    assert "Close matches: tf.math.subtract" in message


def test_a_python_function_still_has_no_config_form() -> None:
    x = tw.Input(n_units=2, name="x")
    with pytest.raises(ConfigError, match="applies <lambda>, which no installed pack"):
        graph_block({"outputs": tw.lift(lambda t: t * 2, x)})


def test_a_tf_function_a_config_may_not_name_says_so() -> None:
    x = tw.Input(n_units=2, name="x")
    y = tw.op("tf.debugging.check_numerics")(x, message="nan")  # not a config namespace
    with pytest.raises(ConfigError, match="a TensorFlow function a config may not name"):
        graph_block({"outputs": y})
