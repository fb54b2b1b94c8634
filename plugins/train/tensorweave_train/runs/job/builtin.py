"""Built-in jobs: job configs by name (``tensorweave train digits``), from the ``jobs`` kind.

A pack ships a job as a config file in its package and names it in the entry-point group
``tensorweave.jobs`` (``"transformer-chars" = "my_pack.configs:transformer_chars"``, the
attribute being ``importlib.resources.files(__name__) / "transformer_chars.toml"``); the
``jobs`` kind (``tensorweave_train.kinds``) refuses anything but such a file. This pack's
own jobs (``digits``, the default, ``chars``, ``dcgan``) are registered the same way.
``config_path`` turns a command's CONFIG, a job's name or a file's path, into the file;
looking a name up imports only the module of the pack that registers it, and no TensorFlow.

>>> from tensorweave_train.runs.job.builtin import config_path, job_names
>>> {"chars", "dcgan", "digits"} <= set(job_names()), config_path(None).name
(True, 'digits.toml')
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import tensorweave as tw
from tensorweave_train.kinds import JOB_SUFFIXES

__all__ = ["DEFAULT_JOB", "job_names", "config_path", "load_config", "unknown_job"]

DEFAULT_JOB = "digits"  # what ``tensorweave train`` with no CONFIG runs


def job_names() -> list[str]:
    """Every installed job's name, sorted (metadata only: nothing is imported)."""
    return tw.registry("jobs").names()


def config_path(name: str | None) -> Path:
    """The config file of ``name``: a job's name (``None``: ``digits``), or a file's path.

    A name no pack registers that does not look like a path (no folder, no config suffix)
    raises ``tw.UnknownComponentError`` listing the installed jobs and the closest one.
    """
    name = DEFAULT_JOB if name is None else name
    jobs = tw.registry("jobs")
    if name in jobs:
        return Path(str(tw.resolve("jobs", name, option="CONFIG")))
    path = Path(name)
    if path.exists() or os.sep in name or "/" in name or path.suffix.lower() in JOB_SUFFIXES:
        return path
    raise unknown_job(name)


def load_config(
    name: str | None, overrides: Sequence[str] | Mapping[str, Any] = ()
) -> dict[str, Any]:
    """The config (a job's or a file's), with overrides applied and ``${...}`` interpolated."""
    import tensorweave.config as twc  # TensorFlow: finding a job's file does not need it

    return twc.load(config_path(name), overrides=overrides)


def unknown_job(name: str) -> tw.UnknownComponentError:
    """The error for a CONFIG that is neither an installed job nor a file: the installed
    jobs by pack, the closest name and how to fix it.

    >>> print(unknown_job("digts"))  # doctest: +ELLIPSIS
    no built-in job or config file 'digts'. Did you mean 'digits'?
      Built-in jobs: chars, dcgan, digits (tensorweave-train 0.1.0)...
      Fix: ...
    """
    jobs = tw.registry("jobs")
    by_pack: dict[str, list[str]] = {}
    for info in jobs.infos():
        if info.name in jobs:  # blocked packs' jobs are left out
            by_pack.setdefault(f"{info.distribution} {info.version}".strip(), []).append(info.name)
    listed = "; ".join(f"{', '.join(names)} ({pack})" for pack, names in by_pack.items())
    close = difflib.get_close_matches(name, jobs.names(), n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return tw.UnknownComponentError(
        f"no built-in job or config file {name!r}.{hint}\n  Built-in jobs: {listed or 'none'}\n"
        f"  Fix: give a job's name, or the path of a config file ({', '.join(JOB_SUFFIXES)}); "
        "a job named in a pack's documentation comes with that pack (pip install it; "
        "`tensorweave plugins` lists the installed jobs)."
    )
