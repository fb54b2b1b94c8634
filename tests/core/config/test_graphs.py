"""Graph blocks take a node of any kind whose component builds a layer (a pack's whole
architectures by name, as a module), and refuse one that builds something else, at its
path."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave import config
from tensorweave.config import ConfigError


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
