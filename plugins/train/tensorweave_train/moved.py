"""The module paths of earlier releases, kept working for one release with a warning.

The pack was one flat folder (``tensorweave_train.model``, ``.trainer``, ``.job``…); it is
now grouped by concept (``loop``, ``callbacks``, ``optimizers``, ``runs``, ``commands``)
behind the package root. ``from tensorweave_train.trainer import Trainer`` still works:
an import finder (installed by the package root, after the real modules) gives each old
module path a stand-in module whose names are looked up in their new homes, each with a
``DeprecationWarning`` that names the new import. Functions whose call changed with the
move (``job.evaluate(run_dir)`` is ``Run.open(run_dir).evaluate()`` now) keep their old
call here.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     from tensorweave_train.history import History
>>> History.__module__, str(caught[0].message).split(":")[0]
('tensorweave_train.loop.history', 'tensorweave_train.history.History is deprecated')
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["MOVED", "MovedModules", "deprecated_name", "install"]

_P = "tensorweave_train"
_L, _C, _R, _CMD = f"{_P}.loop", f"{_P}.callbacks", f"{_P}.runs", f"{_P}.commands"

# old module (under tensorweave_train) -> the modules its names live in now, searched in
# order; names whose call changed are in ``_COMPAT`` (this module's own functions)
MOVED: dict[str, tuple[str, ...]] = {
    "checkpoint": (f"{_L}.checkpoints", f"{_C}.checkpoint"),
    "clipping": (f"{_P}.optimizers.clipping",),
    "command_args": (f"{_CMD}.arguments",),
    "command_line": ("tensorweave.cli.command",),
    "config_help": (f"{_CMD}.config_help",),
    "data": (f"{_L}.data",),
    "ensemble": (f"{_R}.ensemble",),
    "evaluation": (f"{_L}.metrics",),
    "events": (f"{_L}.events",),
    "execution": (f"{_L}.execution",),
    "export": (f"{_R}.export",),
    "export_command": (f"{_CMD}.export",),
    "guards": (f"{_R}.job", f"{_R}.processors", f"{_R}.training", f"{_C}.interrupt"),
    "history": (f"{_L}.history",),
    "job": (f"{_R}.job", f"{_R}.processors", f"{_R}.training", f"{_R}.run"),
    "job_config": (f"{_R}.job",),
    "model": (f"{_L}.model", f"{_L}.metrics"),
    "optimizer": (f"{_P}.optimizers",),
    "plots": (f"{_CMD}.plots",),
    "progress": (f"{_C}.progress", f"{_L}.data"),
    "restore": (f"{_R}.run", f"{_R}.processors"),
    "rundir": (f"{_R}.directory",),
    "schedules": (f"{_P}.optimizers.schedules",),
    "steps": (f"{_L}.steps",),
    "summary": (f"{_L}.summary",),
    "trainer": (f"{_L}.trainer", f"{_L}.nonfinite"),
    "training": (f"{_R}.training",),
    "warm_start": (f"{_R}.warm_start",),
}

# (old module, name) -> "module:attribute" where the name changed
_RENAMED: dict[tuple[str, str], str] = {
    ("job", "train"): f"{_R}.training:train_job",
    ("training", "train"): f"{_R}.training:train_job",
    ("job", "validate_job"): f"{_R}.job:validate_config",
    ("job_config", "validate_job"): f"{_R}.job:validate_config",
    ("steps", "TrainSteps"): f"{_L}.steps:Steps",
    ("command_args", "parse"): f"{_CMD}.arguments:parse_command_line",
    ("training", "EpochPrinter"): f"{_C}.progress:Progress",
}
# names whose call changed: (old module, name) -> ("module:attribute", what to use)
_RUN = "tensorweave_train.Run"
_M = f"{_P}.moved"
_COMPAT: dict[tuple[str, str], tuple[str, str | None]] = {
    ("job", "evaluate"): (f"{_M}:evaluate", f"{_RUN}.open(run).evaluate(split, overrides)"),
    ("restore", "evaluate"): (f"{_M}:evaluate", f"{_RUN}.open(run).evaluate(split, overrides)"),
    ("job", "predict"): (f"{_M}:predict", f"{_RUN}.open(run).predict(raw, ...)"),
    ("restore", "predict"): (f"{_M}:predict", f"{_RUN}.open(run).predict(raw, ...)"),
    ("job", "resume"): (f"{_M}:resume", "tensorweave_train.resume_job"),
    ("training", "resume"): (f"{_M}:resume", "tensorweave_train.resume_job"),
    ("job", "load_model"): (f"{_M}:load_model", "tensorweave_train.load_model"),
    ("restore", "load_model"): (f"{_M}:load_model", "tensorweave_train.load_model"),
    ("restore", "load_run"): (f"{_M}:load_model", "tensorweave_train.load_model"),
    ("restore", "run_config"): (f"{_M}:run_config", f"{_RUN}(run_dir).config(overrides)"),
    ("restore", "restore_checked"): (f"{_M}:restore_checked", f"{_RUN}(run_dir).restore(model)"),
    ("job", "FILLED"): (f"{_R}.directory:CONFIG_FILE", f"{_RUN}.CONFIG"),
    ("job_config", "FILLED"): (f"{_R}.directory:CONFIG_FILE", f"{_RUN}.CONFIG"),
    ("guards", "StopOnNonFinite"): (
        f"{_M}:StopOnNonFinite",
        "tensorweave_train.StopOnNaN(every=None, at_epoch_end=True)",
    ),
    ("ensemble", "voters"): (f"{_M}:voters", 'tw.registry("voters")'),
    ("command_line", "EXIT_CODES"): ("tensorweave.cli.command:EXIT_CODES", None),
}


def deprecated_name(old: str, module: str, target: str, use: str | None = None) -> Any:
    """``target`` (an attribute path, ``Run.open``) of ``module``, with a warning that
    ``old`` is deprecated (``use``: what replaces it, default the new import)."""
    value: Any = importlib.import_module(module)
    for part in target.split("."):
        value = getattr(value, part)
    root = importlib.import_module(_P)
    if use is not None:
        use = f"use {use}"
    elif target in getattr(root, "__all__", ()):
        use = f"import {_P}.{target}"
    else:
        use = f"use {module}.{target}"
    warnings.warn(
        f"{old} is deprecated: {use} (the pack is grouped by concept now; the old path "
        "goes in the next release).",
        DeprecationWarning,
        stacklevel=3,
    )
    return value


def _stand_in(old: str) -> types.ModuleType:
    module = types.ModuleType(f"{_P}.{old}", f"Deprecated: see {_P}.moved.")
    homes = MOVED[old]

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        where = f"{_P}.{old}.{name}"
        if (old, name) in _RENAMED:
            home, target = _RENAMED[old, name].split(":")
            return deprecated_name(where, home, target)
        if (old, name) in _COMPAT:
            target, use = _COMPAT[old, name]
            home, attribute = target.split(":")
            return deprecated_name(where, home, attribute, use)
        for home in homes:
            if hasattr(importlib.import_module(home), name):
                return deprecated_name(where, home, name)
        raise AttributeError(f"module {where.rsplit('.', 1)[0]!r} has no attribute {name!r}")

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    return module


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old module paths of ``MOVED`` (after every real module: a module that
    exists is never shadowed) and makes their stand-ins."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, old = fullname.rpartition(".")
        if package != _P or old not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _stand_in(spec.name.rpartition(".")[2])

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the stand-in looks its names up when they are used."""


def install() -> None:
    """Add the finder to ``sys.meta_path`` once (the package root calls it)."""
    if not any(isinstance(f, MovedModules) for f in sys.meta_path):
        sys.meta_path.append(MovedModules())


# -- the old calls of names whose call changed ------------------------------------------------
Overrides = Sequence[str] | Mapping[str, Any]


def evaluate(run_dir: str | Path, *, split: str = "valid", overrides: Overrides = ()) -> Any:
    """``Run.open(run_dir).evaluate(split, overrides)``."""
    from tensorweave_train.runs.run import Run

    return Run.open(run_dir).evaluate(split, overrides)


def predict(run_dir: str | Path, raw: Any, *, generate: int = 0, postprocess: bool = True) -> Any:
    """``Run.open(run_dir).predict(raw, ...)``."""
    from tensorweave_train.runs.run import Run

    return Run.open(run_dir).predict(raw, generate=generate, postprocess=postprocess)


def resume(run_dir: str | Path, overrides: Overrides = (), **kw: Any) -> Any:
    """``resume_job(run_dir, overrides, ...)``."""
    from tensorweave_train.runs.training import resume_job

    return resume_job(run_dir, overrides, **kw)


def load_model(run: str | Path) -> Any:
    """``tensorweave_train.load_model(run)``."""
    from tensorweave_train.runs.run import load_model as load

    return load(run)


def run_config(where: Path, overrides: Overrides = ()) -> dict[str, Any]:
    """``Run(where).config(overrides)``."""
    from tensorweave_train.runs.run import Run

    return Run(where).config(overrides)


def restore_checked(job: Any, where: Path, overrides: Overrides) -> dict[str, Any] | None:
    """``Run(where).restore(job.model, overrides)``."""
    from tensorweave_train.runs.run import Run

    return Run(where).restore(job.model, overrides)


def StopOnNonFinite() -> Any:
    """``StopOnNaN(every=None, at_epoch_end=True)``: the NaN guard at epoch ends only."""
    from tensorweave_train.callbacks.stop_on_nan import StopOnNaN

    return StopOnNaN(every=None, at_epoch_end=True)


def voters() -> Any:
    """The voter registry (``tw.registry("voters")``)."""
    import tensorweave as tw

    return tw.registry("voters")


class JobFiles(Mapping[str, str]):
    """What ``runs.config.DEFAULTS`` was, ``{built-in job: its config file's name}``, read
    from the ``jobs`` registry (``tw.registry("jobs")[name]`` is the file now)."""

    def __getitem__(self, name: str) -> str:
        import tensorweave as tw

        jobs = tw.registry("jobs")
        if name not in jobs:
            raise KeyError(name)
        return str(jobs[name].name)

    def __iter__(self) -> Iterator[str]:
        import tensorweave as tw

        return iter(tw.registry("jobs").names())

    def __len__(self) -> int:
        import tensorweave as tw

        return len(tw.registry("jobs").names())


DEFAULTS = JobFiles()


@dataclass
class OpenRun:
    """What ``runs.open_run`` returned: a finished run, opened (``Run`` now)."""

    path: Path
    reference: str
    config: dict[str, Any]
    model: Any
    processors: dict[str, Any] = field(default_factory=dict)
    step: int = 0


def open_run(reference: str | Path) -> OpenRun:
    """``Run.open(reference)``, as the old ``OpenRun`` record."""
    from tensorweave_train.runs.run import Run

    run = Run.open(reference)
    p = run.processors
    processors = {"preprocess": p.preprocess, "postprocess": p.postprocess, "info": p.info}
    latest = run.checkpointer.latest()
    step = int(latest.name.split("-")[-1]) if latest is not None else 0
    return OpenRun(run.path, str(reference), run.config(), run.model(), processors, step)
