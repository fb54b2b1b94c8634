"""Training a job validates its config once and looks each of its components up once: the
``twc.Plan`` of that one validation builds the data, the model and the callbacks and fills
the saved config."""

from __future__ import annotations

import importlib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import tensorweave as tw
import tensorweave.config as twc
import tensorweave_train as twt
from tensorweave.registries.registry import Registry

# the modules (the package's ``fill`` and ``resolve`` are its functions)
fill = importlib.import_module("tensorweave.config.fill")
resolve = importlib.import_module("tensorweave.config.resolve")
resolver = importlib.import_module("tensorweave.config.resolver")

TINY = ["--data.limit=80", "--train.epochs=1", "--train.batch_size=64", "--dims.hidden=4"]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Every whole-config validation (``twc.validate`` under each name it is imported as,
    and the resolver's walk from the root), every ``lookup`` by path and every registry
    lookup by ``(kind, name)``."""
    seen: dict[str, Any] = {"validate": 0, "walks": 0, "paths": Counter(), "registry": Counter()}
    plans: list[twc.Plan] = []

    real_validate = resolve.validate

    def validate(cfg: Any, **kwargs: Any) -> twc.Plan:
        seen["validate"] += 1
        plan = real_validate(cfg, **kwargs)
        plans.append(plan)
        return plan

    for module in (twc, resolve, fill):
        monkeypatch.setattr(module, "validate", validate)

    real_check = resolve.Resolver.check

    def check(self: resolve.Resolver, node: Any, path: str) -> None:
        if path == "":
            seen["walks"] += 1
        real_check(self, node, path)

    monkeypatch.setattr(resolve.Resolver, "check", check)

    real_lookup = resolver.lookup

    def lookup(kind: str, name: Any, path: str, *args: Any, **kwargs: Any) -> Any:
        seen["paths"][path] += 1
        return real_lookup(kind, name, path, *args, **kwargs)

    for module in (twc, resolve, resolver):
        monkeypatch.setattr(module, "lookup", lookup)

    real_get, real_item = Registry.get, Registry.__getitem__
    depth = [0]  # ``get`` calls ``[]``: one lookup

    def get(self: Registry[Any], name: str, *args: Any) -> Any:
        seen["registry"][self.kind, name] += 1
        depth[0] += 1
        try:
            return real_get(self, name, *args)
        finally:
            depth[0] -= 1

    def item(self: Registry[Any], name: str) -> Any:
        if not depth[0]:
            seen["registry"][self.kind, name] += 1
        return real_item(self, name)

    monkeypatch.setattr(Registry, "get", get)
    monkeypatch.setattr(Registry, "__getitem__", item)
    seen["plans"] = plans
    return seen


def test_training_a_job_validates_it_once_and_looks_each_component_up_once(
    tmp_path: Path, counted: dict[str, Any]
) -> None:
    tw.plugins.block("tensorweave-conflict-demo")  # a parallel test's second Linear.v1
    try:
        cfg = twt.load_config("digits", TINY)
        # pipeline steps ("@processors" blocks) are checked with the job, not again
        cfg["data"]["steps"] = [
            {"@processors": "normalize.v1", "field": "x", "std": 16.0},
            {"@processors": "cast.v1", "field": "x", "dtype": "float32"},
        ]
        twt.train_job(cfg, run_dir=tmp_path / "run", out=None)
    finally:
        tw.plugins.unblock("tensorweave-conflict-demo")
    assert counted["validate"] == 1 and counted["walks"] == 1
    (plan,) = counted["plans"]
    # [train] and [run], checked by the same resolver as the components
    assert plan.block("train").kind == plan.block("run").kind == "settings"
    blocks = {path: b for path, b in plan.blocks.items() if b.kind != "settings"}
    # the data, its steps, the six layer nodes and the optimizer: each looked up once
    assert {"data", "data.steps[0]", "data.steps[1]", "optimizer", "model.nodes.h1"} <= set(blocks)
    assert counted["paths"] == Counter({f"{path}.@{b.kind}": 1 for path, b in blocks.items()})
    wanted = Counter((b.kind, b.name) for b in blocks.values())
    looked = Counter({k: n for k, n in counted["registry"].items() if k in wanted})
    assert looked == wanted
