"""A job config built: ``build_model`` is the one place a config becomes a ``Model``, and
``build_job`` builds it with the data and the callbacks into a ``Job``, both from the
``twc.Plan`` of the config's one validation (``job.settings.validate_config``).

>>> from tensorweave_train.runs.job import build_model, load_config
>>> model = build_model(load_config("digits", ["--dims.hidden=4"]))
>>> [node.name for node in model.inputs]
['x']
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train.loop.model import Model
from tensorweave_train.runs.job.settings import (
    SECTIONS,
    RunSettings,
    TrainSettings,
    check_output_paths,
    settings_of,
    validate_config,
)
from tensorweave_train.runs.output_paths import output_params

__all__ = [
    "Job",
    "build_callbacks",
    "build_model",
    "build_data",
    "build_job",
    "in_run",
    "settings_dict",
]


@dataclass
class Job:
    """Everything built from a job config."""

    config: dict[str, Any]
    data: Any
    graph: Any
    model: Model
    settings: TrainSettings
    run: RunSettings
    callbacks: list[Any] = field(default_factory=list)

    def split(self, name: str) -> dict[str, np.ndarray]:
        """The ``train``/``valid`` arrays restricted to the model's feeds."""
        arrays = self.data[name] if isinstance(self.data, Mapping) else getattr(self.data, name)
        feeds = [f.name for f in self.model.feeds]
        missing = [f for f in feeds if f not in arrays]
        if missing:
            raise twc.ConfigError(
                [
                    (
                        "model",
                        f"the data has no field {m!r} for the node {m!r}; fields: {sorted(arrays)}",
                    )
                    for m in missing
                ]
            )
        out = {f: arrays[f] for f in feeds}
        if name == "train" and self.settings.limit:
            out = {k: v[: self.settings.limit] for k, v in out.items()}
        return out


_MODEL_PARTS = ("model", "optimizer", "trainer")


def build_model(
    source: Mapping[str, Any] | twc.Plan, built: Mapping[str, Any] | None = None
) -> Model:
    """The ``Model`` of a job config: its ``[model]`` graph, ``[optimizer]`` and
    ``[train] jit_compile`` and ``precision``. The one place a config becomes a model.
    ``source``: the config (its model parts validated here) or the ``twc.Plan`` of a
    validation (``validate_config``); ``built`` holds the sections already built
    (``build_job`` builds them with the data)."""
    plan = source if isinstance(source, twc.Plan) else None
    cfg: Mapping[str, Any] = source.config if isinstance(source, twc.Plan) else source
    settings = settings_of(source, "train")
    if "model" not in cfg:
        raise twc.ConfigError([("model", "a job config needs a [model] section")])
    if built is None:
        if plan is None:
            plan = twc.validate({k: cfg[k] for k in _MODEL_PARTS if k in cfg})
        if plan:
            raise twc.ConfigError(plan)
        tf.random.set_seed(settings.seed)
        np.random.seed(settings.seed)
        built = twc.build(plan, _MODEL_PARTS)
    graph = built["model"]
    jit = settings.jit_compile or None
    if not isinstance(graph, twc.ConfigGraph):
        raise twc.ConfigError([("model", "expected a graph block: a [model.nodes] table")])
    metrics = graph.section.get("metrics", {})
    if isinstance(metrics, (str, list)):
        metrics = {n: n for n in ([metrics] if isinstance(metrics, str) else metrics)}
    optimizer = built.get("optimizer")
    named = optimizer.items() if isinstance(optimizer, Mapping) else [("", optimizer)]
    for name, opt in named:
        if opt is not None and not hasattr(opt, "apply_gradients"):
            where = f"optimizer.{name}" if name else "optimizer"
            raise twc.ConfigError([(where, f"expected an optimizer, got {opt!r}")])
    trainer = built.get("trainer")
    if trainer is not None:  # a recipe (GANTrainer.v1) builds the model from the graph
        if not callable(getattr(trainer, "build_model", None)):
            raise twc.ConfigError(
                [("trainer", f"{trainer!r} is not a training recipe (it has no build_model)")]
            )
        model: Model = trainer.build_model(
            graph,
            optimizer=optimizer,
            metrics=_nodes(graph, metrics),
            jit_compile=jit,
            precision=settings.precision,
        )
        return model
    loss = graph.section.get("loss")
    section = graph.section
    try:
        return Model(
            inputs=graph.layers("inputs"),
            outputs=graph.layers("outputs"),
            targets=graph.layers("targets") if "targets" in section else None,
            loss=_nodes(graph, loss)
            if isinstance(loss, Mapping)
            else graph[loss]
            if loss
            else None,
            loss_weights=section.get("loss_weights"),
            metrics=_nodes(graph, metrics),
            optimizer=optimizer,
            trains={k: _nodes(graph, v) for k, v in section.get("trains", {}).items()} or None,
            jit_compile=jit,
            precision=settings.precision,
        )
    except (tw.TensorweaveError, TypeError, ValueError) as err:
        raise twc.ConfigError([("model", f"cannot make the model: {err}")]) from err


def build_data(source: Mapping[str, Any] | twc.Plan) -> Any:
    """The ``[data]`` section built alone (seeded as ``build_job`` seeds it), before anything
    else: a job builds its data before a multi-worker strategy starts TensorFlow's servers
    (a dataset's worker processes are forked before any server thread exists). ``source``:
    the config (validated here) or its ``twc.Plan`` (``validate_config``)."""
    plan = source if isinstance(source, twc.Plan) else validate_config(source)
    settings = settings_of(plan, "train")
    tf.random.set_seed(settings.seed)
    np.random.seed(settings.seed)
    return twc.build(plan, ["data"])["data"]


def _nodes(graph: Any, names: Any) -> Any:
    """The nodes ``names`` names: a name, a list of names or a table of them."""
    if isinstance(names, Mapping):
        return {k: _nodes(graph, v) for k, v in names.items()}
    if isinstance(names, list):
        return [graph[n] for n in names]
    return graph[names]


def in_run(
    plan: twc.Plan, run_dir: str | os.PathLike[str], *, paths_outside: bool = False
) -> twc.Plan:
    """``plan`` with the options typed ``OutputPath`` read relative to the run directory
    ``run_dir`` (an absolute one, allowed by ``paths_outside`` alone, stays as it is).
    ``run_dir`` exists: unless ``paths_outside``, a path that leaves it through a symbolic
    link is a ``ConfigError`` with its dotted path. The config stays as written (``fill``
    saves the relative paths: a resumed run reads them in its own directory)."""
    if not paths_outside:
        problems = check_output_paths(plan, run_dir)
        if problems:
            raise twc.ConfigError(problems)
    blocks = []
    for block in plan.blocks.values():
        names = [n for n in output_params(block.component) if n in block.params]
        moved = {
            n: os.path.join(run_dir, os.fspath(block.params[n]))
            for n in names
            if isinstance(block.params[n], str | os.PathLike)
        }
        blocks.append(
            dataclasses.replace(block, params={**block.params, **moved}) if moved else block
        )
    return twc.Plan(plan.config, blocks, list(plan), causes=plan.causes)


def build_callbacks(
    plan: twc.Plan, run_dir: str | os.PathLike[str], *, paths_outside: bool = False
) -> list[Any]:
    """The config's ``callbacks``, built with their output paths inside ``run_dir``
    (``in_run``)."""
    built = twc.build(in_run(plan, run_dir, paths_outside=paths_outside), ["callbacks"])
    return list(built.get("callbacks") or [])


def build_job(
    source: Mapping[str, Any] | twc.Plan,
    parts: Sequence[str] | None = None,
    *,
    data: Any = None,
    run_dir: str | os.PathLike[str] | None = None,
    paths_outside: bool = False,
) -> Job:
    """Build the data, the model and the callbacks of a job config (``source``, validated
    here with every problem at once) or of the ``twc.Plan`` of its validation
    (``validate_config``: nothing is validated again); ``parts`` limits what is built to
    those sections (default all); ``data``: the ``[data]`` section already built
    (``build_data``); ``run_dir``: the run directory the options typed ``OutputPath`` are
    relative to (``in_run``; default: as written)."""
    plan = (
        source
        if isinstance(source, twc.Plan)
        else validate_config(source, parts, paths_outside=paths_outside)
    )
    if run_dir is not None:
        plan = in_run(plan, run_dir, paths_outside=paths_outside)
    cfg = source if not isinstance(source, twc.Plan) else plan.config
    settings = settings_of(plan, "train")
    tf.random.set_seed(settings.seed)
    np.random.seed(settings.seed)
    ready = {} if data is None else {"data": data}
    wanted = [
        k
        for k in plan.config
        if k not in SECTIONS and k not in ready and (parts is None or k in parts)
    ]
    built = {**ready, **twc.build(plan, wanted)}
    model = build_model(plan, built)
    return Job(
        config=dict(cfg),
        data=built.get("data"),
        graph=built["model"],
        model=model,
        settings=settings,
        run=settings_of(plan, "run"),
        callbacks=list(built.get("callbacks") or []),
    )


def settings_dict(job: Job) -> dict[str, Any]:
    """The train settings as a dict (for summaries)."""
    return asdict(job.settings)
