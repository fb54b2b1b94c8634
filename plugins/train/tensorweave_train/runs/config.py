"""A job config: its sections and settings, checked as a whole, built into a ``Job``.

A job config (TOML, JSON or YAML; see ``configs/digits.toml``) has these sections:

- ``[data]``: a dataset promise (``"@datasets" = "digits.v1"``) giving ``train`` and
  ``valid`` arrays by field; the fields feed the model's input and target nodes of the
  same name;
- ``[model]``: a graph block (``nodes`` wired by name) naming its ``inputs``, ``targets``,
  ``outputs``, ``loss`` and ``metrics`` nodes; several losses are a table (``loss = { a =
  "loss_a", b = "loss_b" }``, with ``loss_weights = { b = 0.5 }``) and ``trains = { body =
  ["encoder"] }`` names what each of several optimizers updates (``loop.objectives``);
- ``[optimizer]``: an optimizer promise (default Adam), or several by name
  (``[optimizer.body]``, ``[optimizer.head]``);
- ``[trainer]``: a training recipe of the ``trainers`` kind that builds the model from the
  ``[model]`` graph (``"GANTrainer.v1"``: a GAN of two nodes; ``configs/dcgan.toml``);
- ``[train]``: ``epochs``, ``batch_size`` (the global batch, shared by every replica),
  ``seed``, ``shuffle``, ``limit`` (train on the first N examples, for smoke runs),
  ``checkpoint_every`` (epochs), ``jit_compile``, ``precision`` (``"float32"``,
  ``"mixed_bfloat16"``, ``"mixed_float16"``), and the distribution: ``strategy``
  (``default``, ``mirrored``, ``multi_worker``, ``parameter_server``: ``runs.strategy``),
  ``devices`` (``mirrored``'s) and ``shard`` (``auto``, ``data``, ``off``:
  ``loop.distribute``);
- ``callbacks``: a top-level list of callback promises, added to the job's own;
- ``[run]``: ``name`` (a plain name: no path separators or ``..``), ``dir`` (default a new
  ``runs/<name>-<time>``, never one that exists) and ``tensorboard``;
- other top-level tables hold plain values for ``${...}`` variables (``[dims]``); one that
  looks like a misspelled section or holds a component is refused.

``load_config`` reads a built-in or a file with overrides, ``check_settings`` lists every
problem of the plain settings and the layout, ``validate_config`` checks the whole config
before anything is built, ``build_model`` is the one place a config becomes a ``Model`` and
``build_job`` builds it with the data and the callbacks.

>>> sorted(DEFAULTS)
['chars', 'dcgan', 'digits']
>>> for path, problem in check_settings({"train": {"epochs": "x", "bogus": 1}}):
...     print(f"{path}: {problem}")
train.epochs: expected int, got 'x'
train.bogus: unknown setting; settings: epochs, batch_size, seed, shuffle, limit, checkpoint_every, jit_compile, precision, strategy, devices, shard
data: a job config needs a [data] section
model: a job config needs a [model] section
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train.loop.model import Model
from tensorweave_train.runs.directory import check_run_name

__all__ = [
    "DEFAULTS",
    "SECTIONS",
    "SECTIONS_ALL",
    "TrainSettings",
    "RunSettings",
    "Job",
    "config_path",
    "load_config",
    "check_settings",
    "check_layout",
    "validate_config",
    "build_model",
    "build_data",
    "build_job",
    "settings_dict",
]

SECTIONS_ALL = ("data", "model", "optimizer", "train", "run", "callbacks", "trainer")
DEFAULTS = {"digits": "digits.toml", "chars": "chars.toml", "dcgan": "dcgan.toml"}


@dataclass
class TrainSettings:
    """The ``[train]`` section."""

    epochs: int = 10
    batch_size: int = 32
    seed: int = 0
    shuffle: bool = True
    limit: int | None = None
    checkpoint_every: int = 1
    jit_compile: bool = False  # compile the steps with XLA (``Model(jit_compile=True)``)
    precision: str = "float32"  # "mixed_bfloat16": layers in bfloat16 (``Model(precision=)``)
    strategy: Literal["default", "mirrored", "multi_worker", "parameter_server"] = "default"
    devices: list[str] | None = None  # mirrored: the devices (default every GPU, else the CPU)
    shard: Literal["auto", "data", "off"] = "auto"  # how workers share data (loop.distribute)


@dataclass
class RunSettings:
    """The ``[run]`` section."""

    name: str = "run"
    dir: str | None = None
    tensorboard: bool = True  # TensorBoard event files in the run directory's tensorboard/


SECTIONS: dict[str, type] = {"train": TrainSettings, "run": RunSettings}


def config_path(name: str | None) -> Path:
    """A config file: ``None`` or a built-in name (``digits``, ``chars``, ``dcgan``), or a
    path."""
    if name is None or name in DEFAULTS:
        ref = resources.files("tensorweave_train") / "configs" / DEFAULTS[name or "digits"]
        return Path(str(ref))
    return Path(name)


def load_config(
    name: str | None, overrides: Sequence[str] | Mapping[str, Any] = ()
) -> dict[str, Any]:
    """The config (built-in or file), with overrides applied and ``${...}`` interpolated."""
    return twc.load(config_path(name), overrides=overrides)


_PRECISIONS = ", ".join(tw.Precision.NAMES)
_POSITIVE = {"train.epochs", "train.batch_size", "train.checkpoint_every", "train.limit"}


def _close(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


def _section_hint(key: str, section: str) -> str:
    """A hint for a top-level key written after a ``[section]`` header (TOML puts it in
    that table), e.g. ``callbacks = [...]`` under ``[train]``."""
    if key not in SECTIONS_ALL:
        return ""
    return (
        f" {key!r} is a top-level key, not a [{section}] setting: TOML puts every key after "
        f"a [{section}] header into [{section}]. Fix: move `{key} = ...` above the first "
        "[section] of the file."
    )


def check_settings(cfg: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Problems in the plain sections (``[train]``, ``[run]``: types, positive sizes, a
    plain run name) and the job's layout (``check_layout``), by dotted path."""
    errors: list[tuple[str, str]] = []
    for section, cls in SECTIONS.items():
        values = cfg.get(section, {})
        if not isinstance(values, Mapping):
            errors.append((section, f"expected a table, got {values!r}"))
            continue
        params = {p.name: p for p in twc.params_of(cls, skip=frozenset({"self"}))}
        for key, value in values.items():
            path = f"{section}.{key}"
            if key not in params:
                hint = _close(key, list(params)) or _section_hint(key, section)
                errors.append((path, f"unknown setting;{hint} settings: {', '.join(params)}"))
                continue
            problem = twc.check_type(value, params[key].hint)
            if problem:
                errors.append((path, problem))
            elif path in _POSITIVE and value is not None and value <= 0:
                errors.append((path, f"must be a positive integer, got {value!r}"))
            elif path == "run.name":
                why = check_run_name(value)
                if why:
                    errors.append((path, why))
            elif path == "train.precision" and value not in tw.Precision.NAMES:
                errors.append((path, f"unknown precision {value!r}; one of {_PRECISIONS}"))
    return errors + check_layout(cfg)


def _settings(cfg: Mapping[str, Any], section: str) -> Any:
    return SECTIONS[section](**dict(cfg.get(section, {})))


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


def validate_config(cfg: Mapping[str, Any], parts: Sequence[str] | None = None) -> None:
    """Raise one ``ConfigError`` listing every problem of a job config (settings,
    components, parameters, graph), or return when it can be built. ``parts`` limits the
    component check to those sections (``evaluate`` needs no callback's pack)."""
    chosen = cfg if parts is None else {k: v for k, v in cfg.items() if k in parts}
    problems = twc.validate(chosen)  # keeps the plugin failures behind them, to chain
    errors = twc.Problems(check_settings(cfg) + problems, causes=problems.causes)
    if errors:
        raise twc.ConfigError(errors)


def build_model(cfg: Mapping[str, Any], built: Mapping[str, Any] | None = None) -> Model:
    """The ``Model`` of a job config: its ``[model]`` graph, ``[optimizer]`` and
    ``[train] jit_compile`` and ``precision``. The one place a config becomes a model; ``built`` holds the
    sections already resolved (``build_job`` resolves them with the data)."""
    settings = _settings(cfg, "train")
    if "model" not in cfg:
        raise twc.ConfigError([("model", "a job config needs a [model] section")])
    if built is None:
        parts = {k: cfg[k] for k in ("model", "optimizer", "trainer") if k in cfg}
        errors = twc.validate(parts)
        if errors:
            raise twc.ConfigError(errors)
        tf.random.set_seed(settings.seed)
        np.random.seed(settings.seed)
        built = twc.resolve(parts)
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


def build_data(cfg: Mapping[str, Any]) -> Any:
    """The ``[data]`` section built alone (seeded as ``build_job`` seeds it), before anything
    else: a job builds its data before a multi-worker strategy starts TensorFlow's servers
    (a dataset's worker processes are forked before any server thread exists)."""
    validate_config(cfg)
    settings = _settings(cfg, "train")
    tf.random.set_seed(settings.seed)
    np.random.seed(settings.seed)
    return twc.resolve({"data": cfg["data"]})["data"]


def _nodes(graph: Any, names: Any) -> Any:
    """The nodes ``names`` names: a name, a list of names or a table of them."""
    if isinstance(names, Mapping):
        return {k: _nodes(graph, v) for k, v in names.items()}
    if isinstance(names, list):
        return [graph[n] for n in names]
    return graph[names]


def build_job(
    cfg: Mapping[str, Any], parts: Sequence[str] | None = None, *, data: Any = None
) -> Job:
    """Validate (all problems at once), then build the data, the model and the callbacks;
    ``parts`` limits what is built to those sections (default all); ``data``: the
    ``[data]`` section already built (``build_data``)."""
    validate_config(cfg, parts)
    settings = _settings(cfg, "train")
    tf.random.set_seed(settings.seed)
    np.random.seed(settings.seed)
    ready = {} if data is None else {"data": data}
    wanted = [
        k for k in cfg if k not in SECTIONS and k not in ready and (parts is None or k in parts)
    ]
    built = {**ready, **twc.resolve({k: cfg[k] for k in wanted})}
    model = build_model(cfg, built)
    return Job(
        config=dict(cfg),
        data=built.get("data"),
        graph=built["model"],
        model=model,
        settings=settings,
        run=_settings(cfg, "run"),
        callbacks=list(built.get("callbacks") or []),
    )


def settings_dict(job: Job) -> dict[str, Any]:
    """The train settings as a dict (for summaries)."""
    return asdict(job.settings)


def check_layout(cfg: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Problems in a job config's layout (not the ``[train]``/``[run]`` settings), by
    dotted path. Top-level tables other than the job's sections hold ``${...}`` variables
    (e.g. ``[dims]``); one that looks like a misspelled section, or holds a component, is
    refused."""
    errors: list[tuple[str, str]] = []
    for key, value in cfg.items():
        if key in SECTIONS_ALL:
            continue
        close = difflib.get_close_matches(str(key), SECTIONS_ALL, n=1, cutoff=0.7)
        if close or not isinstance(value, Mapping) or _holds_promise(value):
            hint = f" Did you mean [{close[0]}]?" if close else ""
            errors.append(
                (
                    str(key),
                    f"unknown section.{hint} A job config has {', '.join(SECTIONS_ALL)}; other "
                    "top-level tables may only hold plain values for ${...} variables",
                )
            )
    for key in ("data", "model"):
        if key not in cfg:
            errors.append((key, f"a job config needs a [{key}] section"))
    data = cfg.get("data")
    if "data" in cfg and not (isinstance(data, Mapping) and twc.is_promise(data)):
        errors.append(
            (
                "data",
                f'expected a dataset table such as {{"@datasets" = "digits.v1"}}, got {data!r}',
            )
        )
    optimizer = cfg.get("optimizer")
    if "optimizer" in cfg:
        errors += _optimizer_problems(optimizer)
    trainer = cfg.get("trainer")
    if "trainer" in cfg and not (isinstance(trainer, Mapping) and twc.is_promise(trainer)):
        errors.append(
            (
                "trainer",
                f'expected a trainer table such as {{"@trainers" = "GANTrainer.v1"}}, got {trainer!r}',
            )
        )
    if "callbacks" in cfg and not isinstance(cfg["callbacks"], list):
        errors.append(
            ("callbacks", f"expected a list of callback tables, got {cfg['callbacks']!r}")
        )
    model = cfg.get("model")
    if isinstance(model, Mapping):
        needed = ("inputs", "outputs") if "trainer" in cfg else ("inputs", "outputs", "loss")
        for key in needed:
            if key not in model:
                errors.append((f"model.{key}", "missing: name the node(s) in [model]"))
    elif "model" in cfg:
        errors.append(("model", f"expected a table with a [model.nodes] graph, got {model!r}"))
    return errors


def _optimizer_problems(optimizer: Any) -> list[tuple[str, str]]:
    """Problems of an ``[optimizer]`` section: one optimizer promise, or a table of them by
    name (several optimizers); a learning rate that is not a positive finite number."""
    if isinstance(optimizer, Mapping) and not twc.is_promise(optimizer) and optimizer:
        named = [(f"optimizer.{k}", v) for k, v in optimizer.items()]
    else:
        named = [("optimizer", optimizer)]
    errors: list[tuple[str, str]] = []
    for path, value in named:
        if not (isinstance(value, Mapping) and twc.is_promise(value)):
            errors.append(
                (
                    path,
                    'expected an optimizer table such as {"@optimizers" = "Adam.v1"} (or one '
                    f"such table per name: [optimizer.NAME]), got {value!r}",
                )
            )
            continue
        lr: Any = value.get("learning_rate")
        number = isinstance(lr, (int, float)) and not isinstance(lr, bool)
        if number and (not math.isfinite(lr) or lr <= 0):
            errors.append(
                (f"{path}.learning_rate", f"must be a positive finite number, got {lr!r}")
            )
    return errors


def _holds_promise(value: Any) -> bool:
    if isinstance(value, Mapping):
        return twc.is_promise(value) or any(_holds_promise(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_promise(v) for v in value)
    return False
