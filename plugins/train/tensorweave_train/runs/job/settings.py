"""A job config's sections and plain settings, and the checks of a whole config.

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
  ``loop.distribute``); ``deterministic`` (TensorFlow's op determinism and every seed
  from ``seed``: the same config gives bit-equal weights on one CPU; ``runs.determinism``);
- ``callbacks``: a top-level list of callback promises, added to the job's own;
- ``[run]``: ``name`` (a plain name: no path separators or ``..``), ``dir`` (default a new
  ``runs/<name>-<time>``, never one that exists) and ``tensorboard``;
- other top-level tables hold plain values for ``${...}`` variables (``[dims]``); one that
  looks like a misspelled section or holds a component is refused.

``[train]`` and ``[run]`` are checked by the config's one resolver, as the parameters of
``TrainSettings`` and ``RunSettings`` (``JOB_SECTIONS``), with every other section.
``check_settings`` lists every problem of the plain settings and the layout, and
``validate_config`` checks the whole config (components, parameters, graph too) once,
before anything is built: its ``twc.Plan`` builds the job. Nothing here imports TensorFlow.

>>> for path, problem in check_settings({"train": {"epochs": "x", "bogus": 1}}):
...     print(f"{path}: {problem}")
train.epochs: expected int, got 'x'
train.bogus: unknown setting; settings: epochs, batch_size, seed, shuffle, limit, checkpoint_every, jit_compile, precision, strategy, devices, shard, deterministic
data: a job config needs a [data] section
model: a job config needs a [model] section
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import tensorweave as tw
import tensorweave.config as twc
from tensorweave.config.errors import join_path
from tensorweave_train.runs.directory import check_run_name
from tensorweave_train.runs.output_paths import output_params, output_path_problem

__all__ = [
    "JOB_SECTIONS",
    "SECTIONS",
    "SECTIONS_ALL",
    "TrainSettings",
    "RunSettings",
    "settings_of",
    "check_settings",
    "check_layout",
    "check_output_paths",
    "validate_config",
]

SECTIONS_ALL = ("data", "model", "optimizer", "train", "run", "callbacks", "trainer")


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
    deterministic: bool = False  # op determinism + every seed (runs.determinism)


@dataclass
class RunSettings:
    """The ``[run]`` section."""

    name: str = "run"
    dir: str | None = None
    tensorboard: bool = True  # TensorBoard event files in the run directory's tensorboard/


SECTIONS: dict[str, type] = {"train": TrainSettings, "run": RunSettings}


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


def _value_problem(path: str, value: Any) -> str | None:
    """What is wrong with a setting of the right type: a size that is not positive, a run
    name that is not plain, an unknown precision."""
    if path in _POSITIVE and value is not None and value <= 0:
        return f"must be a positive integer, got {value!r}"
    if path == "run.name":
        return check_run_name(value)
    if path == "train.precision" and value not in tw.Precision.NAMES:
        return f"unknown precision {value!r}; one of {_PRECISIONS}"
    return None


def _unknown_setting(section: str) -> Any:
    def unknown(key: str, known: list[str]) -> str:
        hint = _close(key, known) or _section_hint(key, section)
        return f"unknown setting;{hint} settings: {', '.join(known)}"

    return unknown


JOB_SECTIONS: dict[str, twc.Section] = {
    section: twc.Section(cls, check=_value_problem, unknown=_unknown_setting(section))
    for section, cls in SECTIONS.items()
}


def check_settings(cfg: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Problems in the plain sections (``[train]``, ``[run]``: types, positive sizes, a
    plain run name; checked by the config's resolver) and the job's layout
    (``check_layout``), by dotted path."""
    plain = {k: cfg[k] for k in SECTIONS if k in cfg}
    return list(twc.validate(plain, sections=JOB_SECTIONS)) + check_layout(cfg)


def settings_of(source: Mapping[str, Any] | twc.Plan, section: str) -> Any:
    """The ``[train]`` or ``[run]`` section as its settings dataclass: built from the
    ``twc.Plan`` of a validation (``validate_config``), or read from a config."""
    if isinstance(source, twc.Plan):
        built = twc.build(source, [section])
        return built[section] if section in built else SECTIONS[section]()
    return SECTIONS[section](**dict(source.get(section, {})))


def check_output_paths(
    plan: twc.Plan, run_dir: str | os.PathLike[str] | None = None
) -> list[tuple[str, str]]:
    """The options typed ``OutputPath`` (``CSVLogger.v1``'s ``filename``...) of the
    ``plan``'s blocks whose value would write outside the run directory (absolute, leaving
    it with ``..``, or, given the existing ``run_dir``, through a symbolic link), by
    dotted path.

    >>> plan = twc.validate({"callbacks": [{"@callbacks": "CSVLogger.v1", "filename": "../x.csv"}]})
    >>> for path, problem in check_output_paths(plan):
    ...     print(path, "->", problem.split(":")[0])
    callbacks[0].filename -> '../x.csv' leaves the run directory
    """
    errors: list[tuple[str, str]] = []
    for block in plan.blocks.values():
        for name in output_params(block.component):
            if name not in block.params:
                continue
            value = block.params[name]
            problem = output_path_problem(value, run_dir)
            if problem is not None:
                errors.append(
                    (
                        join_path(block.path, name),
                        f"{problem}: a config writes only inside its run directory (its "
                        f"paths are relative to it). Fix: a relative path such as "
                        f"{os.path.basename(os.fspath(value)) or 'out'!r}, or "
                        "--allow-paths-outside on the command line to let this config write "
                        "there",
                    )
                )
    return errors


def validate_config(
    cfg: Mapping[str, Any], parts: Sequence[str] | None = None, *, paths_outside: bool = False
) -> twc.Plan:
    """Validate a job config once: raise one ``ConfigError`` listing every problem
    (settings, components, parameters, graph, output paths), or return its ``twc.Plan``,
    from which ``build_data``, ``build_job``, ``build_model`` and ``twc.fill`` build and
    fill it with no second lookup or validation. ``parts`` limits the component check to
    those sections (``evaluate`` needs no callback's pack); the plan then holds those and
    the settings. An option typed ``OutputPath`` that would write outside the run
    directory is a problem (``check_output_paths``) unless ``paths_outside`` (the command
    line's ``--allow-paths-outside``: a config cannot say it of itself)."""
    chosen = (
        dict(cfg)
        if parts is None
        else {k: v for k, v in cfg.items() if k in parts or k in SECTIONS}
    )
    # [train] and [run] are checked with the rest, by the one resolver; the plan keeps the
    # plugin failures behind its problems, to chain
    plan = twc.validate(chosen, sections=JOB_SECTIONS).with_problems(check_layout(cfg), first=True)
    if not paths_outside:
        plan = plan.with_problems(check_output_paths(plan))
    if plan:
        raise twc.ConfigError(plan)
    return plan


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
