"""Hooks the training pack publishes for third-party plugins.

A plugin module named in the ``tensorweave.plugins`` entry-point group implements::

    @tw.hookimpl
    def tensorweave_train_callbacks(model):
        return [MyCallback()]        # Callback objects or registered callback names

and every ``Model.train`` / ``Trainer`` then runs those callbacks too. The job hooks let a
plugin follow every ``tensorweave train``/``resume`` (``tensorweave_job_started`` /
``tensorweave_job_ended``, with the run directory and the filled config) and name runs its
own way (``tensorweave_resolve_run``: a reference such as ``NAME@VERSION`` -> a local run
directory, for ``evaluate``/``predict``/``load_model``). ``tensorweave_train_arguments`` lets
a plugin add options to the train pack's commands (``tensorweave train --store URL``) and
``tensorweave_train_options`` hands it their parsed values before the command runs.

>>> hasattr(tensorweave_train_callbacks, "tensorweave_spec")
True
"""

from __future__ import annotations

from typing import Any

import tensorweave as tw

__all__ = [
    "tensorweave_train_callbacks",
    "tensorweave_resolve_run",
    "tensorweave_job_started",
    "tensorweave_job_ended",
    "tensorweave_train_arguments",
    "tensorweave_train_options",
]


@tw.hookspec
def tensorweave_train_callbacks(model: Any) -> list[Any]:
    """Return callbacks (objects, names or ``(name, params)``) to add to ``model``'s training."""
    raise NotImplementedError  # a spec: never called


# tensorweave-store implements it: NAME@VERSION (a model version) -> a local directory
# with the run-directory layout.
@tw.hookspec(firstresult=True)
def tensorweave_resolve_run(reference: str) -> str | None:
    """Return a local run directory for ``reference`` (e.g. ``digits@3``), or ``None`` when
    this plugin does not know it. ``runs.directory.resolve_run`` asks the plugins, first answer wins."""
    raise NotImplementedError  # a spec: never called


@tw.hookspec
def tensorweave_job_started(job: Any, run_dir: Any, config: Any, kind: str) -> None:
    """A job starts training: ``kind`` is ``"train"`` or ``"resume"``, ``run_dir`` its
    directory (a ``Path``), ``config`` the filled config (defaults, providers, versions).
    Raising here stops the job before it trains."""
    raise NotImplementedError  # a spec: never called


@tw.hookspec
def tensorweave_job_ended(
    job: Any, run_dir: Any, kind: str, summary: Any, error: BaseException | None
) -> None:
    """A job ended: ``summary`` (the dict ``train_job`` returns) on success, else ``error`` (a
    ``KeyboardInterrupt`` when interrupted). Called once per ``tensorweave_job_started``."""
    raise NotImplementedError  # a spec: never called


# A plugin's own options on the train pack's commands (tensorweave-store's ``--store URL``).
@tw.hookspec
def tensorweave_train_arguments(parser: Any, command: str) -> None:
    """Add options to the ``argparse`` parser of ``tensorweave COMMAND`` (``command`` is
    ``"train"``, ``"resume"``, ``"evaluate"``, ``"predict"``…; a plugin picks the ones it
    serves). Options must be plain ``--name`` flags (no dots: those are config overrides).
    A plugin that raises here is skipped (``tw.plugins.call``) and the command goes on."""
    raise NotImplementedError  # a spec: never called


@tw.hookspec
def tensorweave_train_options(options: Any, command: str) -> None:
    """The parsed options of ``tensorweave COMMAND`` (an ``argparse.Namespace``; a plugin
    reads the ones it added with ``getattr(options, "name", None)``), before the command
    does anything. Called for every command that parses with the train pack's ``parse``."""
    raise NotImplementedError  # a spec: never called
