"""``repeat = n`` on a module node: one template, ``n`` chained copies with their own
variables, the same network as one built by hand in a Python loop."""

from __future__ import annotations

import numpy as np
import pytest

import tensorweave as tw
from tensorweave import config
from tensorweave.config import ConfigError

ENCODER = {
    "inputs": ["a", "scale"],
    "output": "o",
    "nodes": {
        "n": {"@layers": "LayerNorm.v1", "inputs": ["a"]},
        "h": {"@layers": "FC.v1", "inputs": ["n"], "n_units": 8},
        "d": {"@layers": "Linear.v1", "inputs": ["h"], "n_units": 4},
        "s": {"@layers": "Op.v1", "function": "tf.math.multiply", "inputs": ["d", "scale"]},
        "o": {"@layers": "Op.v1", "function": "tf.math.add", "inputs": ["a", "s"]},
    },
}


def _stack(repeat: object = 8) -> dict:
    return {
        "nodes": {
            "x": {"input": [4]},
            "scale": {"input": [1]},
            "stack": {"inputs": ["x", "scale"], "repeat": repeat, "module": ENCODER},
        },
        "outputs": "stack",
    }


def _by_hand(x: tw.Layer, scale: tw.Layer) -> tw.Layer:
    h = x
    for _ in range(8):
        n = tw.layers["LayerNorm.v1"](h)
        d = tw.layers["Linear.v1"](tw.layers["FC.v1"](n, n_units=8), n_units=4)
        h = h + d * scale
    return h


def test_a_repeated_module_is_n_copies_each_with_its_own_variables() -> None:
    stack = config.resolve_graph(_stack(), "model")["stack"]
    copies = [n for n in stack.inner_graph.nodes if isinstance(n, tw.Module)]
    assert [c.name.rsplit("/", 1)[-1] for c in copies] == [f"layer_{i}" for i in range(8)]
    per_copy = [{id(v) for v in c.trainable_variables} for c in copies]
    assert all(len(s) == 6 for s in per_copy)
    assert len(set().union(*per_copy)) == 8 * 6  # no copy shares a variable


def test_a_repeated_module_equals_the_same_stack_built_by_hand() -> None:
    graph = config.resolve_graph(_stack(), "model")
    x, scale = tw.Input(n_units=4, name="x"), tw.Input(n_units=1, name="scale")
    hand = _by_hand(x, scale)
    made, mine = (
        graph["stack"].trainable_variables,
        tw.Graph.build(inputs=[x, scale], outputs=hand).trainable_variables,
    )
    assert [v.shape for v in made] == [v.shape for v in mine]
    for a, b in zip(mine, made, strict=True):
        a.assign(b)
    rng = np.random.default_rng(0)
    xs, ss = rng.normal(size=(5, 4)).astype("float32"), np.full((5, 1), 0.5, "float32")
    got = graph.graph().compute(xs, ss)
    want = tw.Graph.build(inputs=[x, scale], outputs=hand).compute(xs, ss)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("repeat", [0, 2.5, True, "8"])
def test_a_repeat_that_is_not_a_whole_number_is_refused_at_its_path(repeat: object) -> None:
    with pytest.raises(ConfigError) as info:
        config.resolve_graph(_stack(repeat), "model")
    assert info.value.errors[0][0] == "model.nodes.stack.repeat"


def test_a_misspelled_repeat_is_refused_with_the_closest_key() -> None:
    block = _stack()
    block["nodes"]["stack"] = {**block["nodes"]["stack"], "repeats": 8}
    del block["nodes"]["stack"]["repeat"]
    with pytest.raises(ConfigError, match="Did you mean 'repeat'"):
        config.resolve_graph(block, "model")


def test_the_vit_example_writes_its_eight_encoder_layers_once() -> None:
    from pathlib import Path

    path = Path(__file__).parents[3] / "examples" / "vit_digits" / "vit_digits.toml"
    block = config.load(path)["model"]
    encoder = config.resolve_graph(block, "model")["encoder"]
    copies = [n for n in encoder.inner_graph.nodes if isinstance(n, tw.Module)]
    assert len(copies) == 8
    variables = [{id(v) for v in c.trainable_variables} for c in copies]
    assert len(set().union(*variables)) == sum(len(v) for v in variables) > 8


def test_repeat_on_a_layer_node_says_to_wrap_it_in_a_module() -> None:
    block = {
        "nodes": {
            "x": {"input": [4]},
            "h": {"@layers": "Linear.v1", "inputs": ["x"], "n_units": 4, "repeat": 3},
        }
    }
    [(path, message)] = config.validate({"model": block})
    assert path == "model.nodes.h.repeat"
    assert "repeats a module node, not a layer" in message and "Fix:" in message


def test_repeat_3_builds_three_copies() -> None:
    stack = config.resolve_graph(_stack(3), "model")["stack"]
    assert sum(isinstance(n, tw.Module) for n in stack.inner_graph.nodes) == 3
