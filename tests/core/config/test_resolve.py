"""Promise blocks, validation with dotted paths, graphs and fill (tw.config)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave import config
from tensorweave.config import ConfigError


class Scale(tw.Layer):
    """A tiny layer with a typed option and one variable."""

    def __init__(
        self,
        x: tw.Layer,
        n_units: int,
        *,
        init: float = 1.0,
        mode: Literal["mul", "add"] = "mul",
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        self.n_out, self.init, self.mode = n_units, init, mode
        super().__init__(
            x, shape=(*x.shape[:-1], n_units), name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        width = self.inputs[0].shape[-1]
        self.state.w = tf.Variable(tf.fill([width, self.n_out], self.init))

    def compute(self, x: tf.Tensor) -> tf.Tensor:
        return tf.matmul(x, self.state.w)


class Sum(tw.Layer):
    def __init__(self, *inputs: tw.Layer, name: str | None = None, share_state_with=None):
        super().__init__(*inputs, shape=inputs[0].shape, name=name)

    def compute(self, *xs: tf.Tensor) -> tf.Tensor:
        return tf.add_n(list(xs))


@dataclass
class Cell:
    n_units: int
    activation: str = "tanh"


def rnn(cell: Cell, steps: int = 2, dropout: float | None = None) -> dict:
    return {"cell": cell, "steps": steps, "dropout": dropout}


def calls(log: list) -> object:
    def make(tag: str) -> str:
        log.append(tag)
        return tag

    return make


@pytest.fixture
def regs() -> Iterator[list]:
    log: list = []
    with (
        tw.layers.scoped(),
        tw.registry("cfgtest_cells").scoped() as cells,
        tw.registry("cfgtest_rnn").scoped() as rnns,
        tw.registry("cfgtest_log").scoped() as logs,
    ):
        tw.layers.register("CfgScale.v1", Scale)
        tw.layers.register("CfgSum.v1", Sum)
        cells.register("Cell.v1", Cell)
        rnns.register("RNN.v1", rnn)
        logs.register("Tag.v1", calls(log))
        yield log


def test_nested_promises_resolve_depth_first(regs: list) -> None:
    cfg = {
        "enc": {
            "@cfgtest_rnn": "RNN.v1",
            "cell": {"@cfgtest_cells": "Cell.v1", "n_units": 8},
            "steps": 3,
        },
        "order": [{"@cfgtest_log": "Tag.v1", "tag": "a"}, {"@cfgtest_log": "Tag.v1", "tag": "b"}],
        "plain": {"x": 1},
    }
    out = config.resolve(cfg)
    assert out["enc"] == {"cell": Cell(8, "tanh"), "steps": 3, "dropout": None}
    assert out["order"] == ["a", "b"] and regs == ["a", "b"]
    assert out["plain"] == {"x": 1}


def test_every_error_reported_with_dotted_path_before_building(regs: list) -> None:
    cfg = {
        "model": {
            "encoder": {
                "@cfgtest_rnn": "RNN.v1",
                "cell": {"@cfgtest_cells": "Cell.v1", "n_units": "abc", "activaton": "relu"},
                "steps": 2.5,
                "dropout": "high",
            },
        },
        "side": {"@cfgtest_log": "Tag.v1", "tag": "must-not-run"},
        "missing": {"@cfgtest_cells": "Cell.v1"},
    }
    with pytest.raises(ConfigError) as info:
        config.resolve(cfg)
    errors = dict(info.value.errors)
    assert errors["model.encoder.cell.n_units"] == "expected int, got 'abc'"
    assert "not a parameter" in errors["model.encoder.cell.activaton"]
    assert "Did you mean 'activation'" in errors["model.encoder.cell.activaton"]
    assert errors["model.encoder.steps"] == "expected int, got 2.5"
    assert errors["model.encoder.dropout"] == "expected float | None, got 'high'"
    assert "missing required" in errors["missing.n_units"]
    assert regs == []  # nothing was built
    assert "model.encoder.cell.n_units: expected int, got 'abc'" in str(info.value)
    assert isinstance(info.value, tw.TensorweaveError)


def test_unknown_component_names_distribution_and_close_matches(regs: list) -> None:
    errors = config.validate(
        {
            "a": {"@cfgtest_cells": "Cel.v1", "n_units": 1},
            "b": {"@optimizers": "NoSuchOptimizer.v1"},
            "c": {"@cfgtest_celss": "Cell.v1"},
        }
    )
    by_path = dict(errors)
    assert "close matches: Cell.v1" in by_path["a.@cfgtest_cells"]
    assert "unknown component kind" in by_path["c.@cfgtest_celss"]
    assert "Did you mean '@cfgtest_cells'" in by_path["c.@cfgtest_celss"]
    assert "b.@optimizers" in by_path
    with tw.registry("datasets").scoped():
        msg = dict(config.validate({"d": {"@datasets": "digits.v1"}})).get("d.@datasets", "")
        if "digits.v1" not in tw.registry("datasets"):
            assert "tensorweave-data" in msg


def test_a_config_cannot_run_code(regs: list, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    cfg = {
        "a": {"@layers": "os:system", "command": f"touch {marker}"},
        "b": {"@cfgtest_log": "Tag.v1", "tag": "__import__('os').system('true')"},
        "c": {"@cfgtest_log": "builtins:eval"},
    }
    errors = config.validate(cfg)
    assert {p for p, _ in errors} == {"a.@layers", "c.@cfgtest_log"}
    assert not marker.exists()
    # strings stay strings: nothing is evaluated
    assert config.resolve({"b": cfg["b"]})["b"] == "__import__('os').system('true')"


def test_graph_block_builds_wired_layers(regs: list) -> None:
    cfg = {
        "model": {
            "inputs": ["x"],
            "outputs": "y",
            "nodes": {
                "y": {"@layers": "CfgSum.v1", "inputs": ["h", "h2"]},
                "h": {"@layers": "CfgScale.v1", "inputs": ["x"], "n_units": 2, "init": 0.5},
                "h2": {"reuse": "h", "inputs": ["x2"]},
                "x": {"input": [3]},
                "x2": {"input": [3]},
            },
        }
    }
    g = config.resolve(cfg)["model"]
    assert isinstance(g, config.ConfigGraph)
    assert g["h2"].state is g["h"].state  # shared state
    assert g["x"].shape == (None, 3) and g["y"].shape == (None, 2)
    graph = g.graph()
    ones = np.ones((1, 3), "float32")
    out = graph.compute(feed={g["x"]: ones, g["x2"]: 2 * ones}).numpy()
    np.testing.assert_allclose(out, [[4.5, 4.5]])  # 1.5 + 3.0
    assert g.layers("inputs") == [g["x"]]


def test_graph_errors_collected(regs: list) -> None:
    cfg = {
        "model": {
            "outputs": ["nope"],
            "nodes": {
                "x": {"input": [3]},
                "a": {"@layers": "CfgScale.v1", "inputs": ["b"], "n_units": "2"},
                "b": {"@layers": "CfgScale.v1", "inputs": ["a"], "n_units": 2},
                "c": {"@layers": "CfgScale.v1", "inputs": ["zz"], "n_units": 2},
                "d": {"whatever": 1},
                "e": {"input": ["big"]},
            },
        }
    }
    errors = config.validate(cfg)
    text = "\n".join(f"{p}: {m}" for p, m in errors)
    assert "model.nodes.a.n_units: expected int, got '2'" in text
    assert "cycle" in text
    assert "a -> b -> a" in text or "b -> a -> b" in text
    assert "model.nodes.c.inputs: unknown node 'zz'" in text
    assert "model.nodes.d: a node needs" in text
    assert "model.nodes.e.input: expected a list of ints" in text
    assert "model.outputs: unknown node 'nope'" in text


def test_module_nodes_are_clusters_of_inner_layers(regs: list) -> None:
    cfg = {
        "nodes": {
            "x": {"input": [2]},
            "block": {
                "inputs": ["x"],
                "module": {
                    "inputs": ["a"],
                    "output": "o",
                    "nodes": {
                        "h": {"@layers": "CfgScale.v1", "inputs": ["a"], "n_units": 2},
                        "o": {"@layers": "CfgSum.v1", "inputs": ["h", "a"]},
                    },
                },
            },
        },
        "outputs": "block",
    }
    g = config.resolve({"m": cfg})["m"]
    assert isinstance(g["block"], tw.Module)
    out = g.graph().compute(np.ones((1, 2), "float32")).numpy()
    np.testing.assert_allclose(out, [[3.0, 3.0]])


def test_build_failure_names_the_node(regs: list) -> None:
    cfg = {"nodes": {"x": {"input": [3]}, "s": {"@layers": "CfgSum.v1", "inputs": []}}}
    with pytest.raises(ConfigError) as info:
        config.resolve({"m": cfg})
    assert info.value.errors[0][0] == "m.nodes.s"


def test_fill_writes_defaults_providers_versions_and_reproduces(regs: list, tmp_path: Path) -> None:
    cfg = {
        "enc": {"@cfgtest_rnn": "RNN", "cell": {"@cfgtest_cells": "Cell.v1", "n_units": 4}},
        "model": {
            "nodes": {
                "x": {"input": [3]},
                "h": {"@layers": "CfgScale.v1", "inputs": ["x"], "n_units": 2},
            }
        },
    }
    filled = config.fill(cfg)
    assert filled["enc"]["@cfgtest_rnn"] == "RNN.v1"
    assert filled["enc"]["steps"] == 2 and filled["enc"]["dropout"] is None
    assert filled["enc"]["cell"] == {
        "@cfgtest_cells": "Cell.v1",
        "n_units": 4,
        "activation": "tanh",
        "@provider": "local",
    }
    h = filled["model"]["nodes"]["h"]
    assert h["init"] == 1.0 and h["mode"] == "mul" and "x" not in h
    versions = filled["@versions"]
    assert versions["tensorweave"] == tw.__version__
    assert versions["tensorflow"] == tf.__version__.split("-")[0] or versions["tensorflow"]
    assert "python" in versions and isinstance(versions["plugins"], dict)
    path = config.save(filled, tmp_path / "run" / "config.json")
    again = config.load(path)
    assert again == json.loads(json.dumps(filled))
    assert config.resolve(again)["enc"] == config.resolve(cfg)["enc"]
    with pytest.raises(ConfigError, match="JSON"):
        config.save(filled, tmp_path / "x.toml")


def test_params_of_reads_dataclasses_and_unresolvable_hints() -> None:
    names = [(p.name, p.type_name, p.required) for p in config.params_of(Cell)]
    assert names == [("n_units", "int", True), ("activation", "str", False)]

    def f(a: NotDefinedAnywhere = 1, b: int = 2):  # type: ignore[name-defined]  # noqa: F821
        return a

    f.__annotations__ = {"a": "NotDefinedAnywhere", "b": "int"}
    assert [(p.name, p.type_name) for p in config.params_of(f)] == [("a", "Any"), ("b", "int")]


@pytest.mark.parametrize(
    ("value", "hint", "ok"),
    [
        (1, int, True),
        (True, int, False),
        (1, float, True),
        ([1, 2], tuple[int, ...], True),
        ([1, 2], tuple[int, int, int], False),
        ({"a": 1}, dict[str, int], True),
        ({"a": "x"}, dict[str, int], False),
        ("add", Literal["mul", "add"], True),
        ("sub", Literal["mul", "add"], False),
        (None, int | None, True),
        ("s", list[str], False),
    ],
)
def test_check_type(value: object, hint: object, ok: bool) -> None:
    assert (config.check_type(value, hint) is None) is ok


def test_an_uninstalled_component_names_the_distribution_the_config_recorded(
    regs: list,
) -> None:
    node = {"@cfgtest_cells": "Fancy.v2", "n_units": 3, "@provider": "tensorweave-fancy 1.4.0"}
    errors = dict(config.validate({"enc": node}))
    assert errors["enc.@cfgtest_cells"] == (
        "unknown cfgtest_cells component 'Fancy.v2'; Fancy.v2 was provided by "
        "tensorweave-fancy 1.4.0 when the config was saved: pip install 'tensorweave-fancy==1.4.0'"
    )
    msg = dict(config.validate({"e": {"@cfgtest_cells": "tensorweave:Gone.v1"}}))
    assert (
        "tensorweave 0.1.0 is installed but does not offer cfgtest_cells 'Gone.v1'"
        in (msg["e.@cfgtest_cells"])
    )


def test_trainable_false_freezes_a_node(regs: list) -> None:
    block = {
        "nodes": {
            "x": {"input": [2]},
            "h": {"@layers": "CfgScale.v1", "inputs": ["x"], "n_units": 2, "trainable": False},
            "body": {
                "inputs": ["x"],
                "trainable": False,
                "module": {
                    "inputs": ["a"],
                    "output": "o",
                    "nodes": {"o": {"@layers": "CfgScale.v1", "inputs": ["a"], "n_units": 2}},
                },
            },
            "y": {"@layers": "CfgSum.v1", "inputs": ["h", "body"]},
        },
        "outputs": "y",
    }
    g = config.resolve({"m": block})["m"]
    assert not g["h"].trainable and not g["body"].trainable
    assert g.graph().trainable_variables == ()
    block["nodes"]["h"]["trainable"] = "no"
    assert ("m.nodes.h.trainable", "expected true or false") in config.validate({"m": block})


def test_an_override_to_null_drops_a_key_the_new_component_does_not_take(regs: list) -> None:
    with tw.registry("cfgtest_inits").scoped() as inits:
        inits.register("normal.v1", lambda stddev=1.0: ("normal", stddev))
        inits.register("zeros.v1", lambda: ("zeros",))
        cfg = {"init": {"@cfgtest_inits": "normal.v1", "stddev": 0.1}}
        switched = config.apply_overrides(cfg, ["--init.@cfgtest_inits=zeros.v1"])
        assert "'stddev' is not a parameter" in dict(config.validate(switched))["init.stddev"]
        dropped = config.apply_overrides(switched, ["--init.stddev=null"])
        assert config.validate(dropped) == []
        assert config.resolve(dropped)["init"] == ("zeros",)
        assert "stddev" not in config.fill(dropped)["init"]
        kept = config.apply_overrides(cfg, ["--init.stddev=null"])  # a parameter keeps None
        assert config.resolve(kept)["init"] == ("normal", None)
