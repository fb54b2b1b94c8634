"""Graph blocks: input nodes in one example's shape, nodes passed by keyword to layer-typed
parameters (``lengths=``, ``mask=``...), and nodes of any kind whose component builds a layer
(a pack's whole architectures by name, as a module), refusing one that builds something else,
at its path."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave import config
from tensorweave.config import ConfigError


class Masked(tw.Layer):
    """Zero the entries where ``mask`` is False; ``extra`` layers are summed in."""

    def __init__(
        self,
        x: tw.Layer,
        *,
        mask: tw.Layer | None = None,
        extra: Sequence[tw.Layer] = (),
        label: str | tw.Layer | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        self.label = label
        self.n_extra = len(extra)
        inputs = (x, *([mask] if mask is not None else []), *extra)
        self.has_mask = mask is not None
        super().__init__(*inputs, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x: tf.Tensor, *rest: tf.Tensor) -> tf.Tensor:
        if self.has_mask:
            x, rest = tf.where(rest[0], x, tf.zeros_like(x)), rest[1:]
        return x + sum(rest) if rest else x


@pytest.fixture
def masked():
    with tw.layers.scoped():
        tw.layers.register("CfgMasked.v1", Masked)
        yield


def _block(**node):
    return {
        "nodes": {
            "x": {"input": [3]},
            "tokens": {"input": [3], "dtype": "int64"},
            "keep": {"@layers": "NotZero.v1", "inputs": ["tokens"]},
            "y": {"@layers": "CfgMasked.v1", "inputs": ["x"], **node},
        },
        "outputs": "y",
    }


@pytest.fixture
def not_zero(masked):
    with tw.layers.scoped():
        tw.layers.register("NotZero.v1", lambda t, name=None: tw.ops.not_equal(t, 0, name=name))
        yield


def test_a_layer_typed_parameter_takes_a_node_by_name(not_zero):
    g = config.resolve_graph(_block(mask="keep"))
    y = g["y"]
    assert y.inputs == (g["x"], g["keep"])
    g["x"].value = np.ones((1, 3), "float32")
    g["tokens"].value = np.array([[4, 0, 1]])
    assert y().numpy().tolist() == [[1.0, 0.0, 1.0]]


def test_nodes_given_by_keyword_are_ordered_as_dependencies(not_zero):
    block = _block(mask="keep", extra=["x2"])
    block["nodes"] = {"x2": {"input": [3]}, **dict(reversed(list(block["nodes"].items())))}
    g = config.resolve_graph(block)
    assert g["y"].inputs == (g["x"], g["keep"], g["x2"])


def test_an_unknown_node_by_keyword_is_reported_at_its_path(not_zero):
    errors = config.validate({"model": _block(mask="kept", extra=["x", "nope"])})
    text = "\n".join(f"{p}: {m}" for p, m in errors)
    assert "model.nodes.y.mask: unknown node 'kept'; did you mean 'keep'? nodes:" in text
    assert "model.nodes.y.extra: unknown node 'nope'" in text
    assert "expected" not in text  # no type error on top of the unknown name


def test_a_cycle_through_a_keyword_is_found(masked):
    block = {
        "nodes": {
            "x": {"input": [2]},
            "a": {"@layers": "CfgMasked.v1", "inputs": ["x"], "mask": "a"},
        }
    }
    with pytest.raises(ConfigError, match=r"cycle: a -> a"):
        config.resolve_graph(block)


def test_a_parameter_that_also_takes_strings_names_a_node_only_if_one_exists(not_zero):
    g = config.resolve_graph(_block(label="keep"))
    assert g["y"].label is g["keep"]
    g = config.resolve_graph(_block(label="just text"))
    assert g["y"].label == "just text"


def test_input_nodes_are_one_examples_shape_as_tw_input():
    g = config.resolve_graph(
        {
            "nodes": {
                "img": {"input": [8, 8, 1]},
                "seq": {"input": [-1, 4]},
                "ids": {"input": [None], "dtype": "int32"},
                "y": {"input": [], "dtype": "int64"},
            }
        }
    )
    assert g["img"].shape == tw.Input(shape=(8, 8, 1)).shape == (None, 8, 8, 1)
    assert g["seq"].shape == (None, None, 4) and g["ids"].shape == (None, None)
    assert g["y"].shape == (None,) and g["y"].dtype == tf.int64


def test_a_bad_input_dtype_is_a_config_error_with_the_choices():
    errors = config.validate({"model": {"nodes": {"x": {"input": [2], "dtype": "flaot32"}}}})
    assert errors[0][0] == "model.nodes.x.dtype"
    assert "Did you mean 'float32'?" in errors[0][1] and "Choices:" in errors[0][1]


class Double(tw.Layer):
    def __init__(self, x: tw.Layer, *, name: str | None = None, share_state_with=None) -> None:
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x: tf.Tensor) -> tf.Tensor:
        return 2.0 * x


def twice(x: tw.Layer, *, times: int = 2, name: str | None = None) -> tw.Module:
    """A builder of another kind: a module of ``times`` doublings."""
    h = x
    for _ in range(times):
        h = Double(h)
    return tw.Module(x, h, name=name)


@pytest.fixture
def nets() -> Iterator[tw.Registry]:
    with tw.registry("cfgtest_nets").scoped() as reg:
        reg.register("Twice.v1", twice)
        reg.register("Count.v1", lambda x, *, name=None: 3)
        yield reg


def test_a_node_of_any_kind_that_builds_a_module_is_a_layer_of_the_graph(nets) -> None:
    g = config.resolve_graph(
        {
            "nodes": {
                "x": {"input": [2]},
                "body": {"@cfgtest_nets": "Twice.v1", "inputs": ["x"], "times": 3},
                "again": {"reuse": "body", "inputs": ["x"]},
            },
            "outputs": "again",
        }
    )
    body = g["body"]
    assert isinstance(body, tw.Module) and body.name == "body" and body.inputs == (g["x"],)
    out = g.graph().compute(np.ones((1, 2), "float32")).numpy()
    np.testing.assert_allclose(out, [[8.0, 8.0]])


def test_a_node_whose_component_builds_no_layer_is_refused_at_its_path(nets) -> None:
    block = {
        "nodes": {
            "x": {"input": [2]},
            "n": {"@cfgtest_nets": "Count.v1", "inputs": ["x"]},
        }
    }
    with pytest.raises(ConfigError) as caught:
        config.resolve({"model": block})
    (path, message), *_ = caught.value.errors
    assert path == "model.nodes.n"
    assert "cfgtest_nets component Count.v1 built a int, not a layer" in message
    assert "Fix:" in message


def test_a_node_without_its_input_says_the_builder_needs_one(nets) -> None:
    errors = config.validate(
        {"model": {"nodes": {"x": {"input": [2]}, "body": {"@cfgtest_nets": "Twice.v1"}}}}
    )
    assert ("model.nodes.body", "Twice.v1 needs an input layer ('x')") in errors


def _problems(block: dict) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as caught:
        config.resolve_graph(block, "model")
    return caught.value.errors


def test_an_unknown_key_on_a_module_node_is_refused_at_its_path():
    inner = {"inputs": ["a"], "nodes": {"h": {"@layers": "Lambda.v1", "inputs": ["a"]}}}
    block = {
        "nodes": {
            "x": {"input": [2]},
            "b": {"inputs": ["x"], "trainabel": False, "module": {**inner, "output": "h"}},
        }
    }
    path, message = _problems(block)[0]
    assert path == "model.nodes.b.trainabel"
    assert "a module node does not take 'trainabel'" in message
    assert "Did you mean 'trainable'?" in message


def test_an_unknown_key_on_an_input_or_a_reuse_node_is_refused_with_the_closest_key():
    block = {
        "nodes": {
            "x": {"input": [2], "dtyp": "int32"},
            "h": {"@layers": "Linear.v1", "inputs": ["x"], "n_units": 2},
            "h2": {"reuse": "h", "inputs": ["x"], "transpose_weight": True},
        }
    }
    errors = dict(_problems(block))
    assert "Did you mean 'dtype'?" in errors["model.nodes.x.dtyp"]
    assert "Did you mean 'transpose_weights'?" in errors["model.nodes.h2.transpose_weight"]
    # what a reuse of Linear takes is still accepted
    ok = {**block["nodes"], "x": {"input": [2]}}
    ok["h2"] = {"reuse": "h", "inputs": ["x"], "transpose_weights": False}
    assert set(config.resolve_graph({"nodes": ok}, "model").nodes) == {"x", "h", "h2"}
