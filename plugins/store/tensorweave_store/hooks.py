"""The pack's pluggy plugin: records every training job in the store.

Implements the train pack's public hooks: ``tensorweave_job_started`` opens a run (config,
providers, versions, heartbeat), ``tensorweave_train_callbacks`` adds a ``RecordRun``
for that job's model (per-epoch values), ``tensorweave_job_ended`` stores the status
(``finished``, ``failed`` with the error, ``interrupted`` on Ctrl-C), the final figures and
the run's files and the data files it read (``data_manifest.json``, also for a run that
failed); ``tensorweave_resolve_run`` turns ``NAME@VERSION`` into a model directory
for ``tensorweave evaluate|predict`` and ``load_model``; ``tensorweave_data_recorded`` gives
``tensorweave data verify RUN`` a run's config and data manifest from the store's record
(its run directory may be gone); ``tensorweave_train_arguments`` and
``tensorweave_train_options`` give ``train``/``resume``/``evaluate``/``predict`` a
``--store URL`` option, the same as ``TENSORWEAVE_STORE=URL``. Light at import.

>>> tensorweave_resolve_run("not/a/ref") is None
True
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import tensorweave as tw

__all__ = [
    "tensorweave_job_started",
    "tensorweave_job_ended",
    "tensorweave_train_callbacks",
    "tensorweave_resolve_run",
    "tensorweave_train_arguments",
    "tensorweave_train_options",
    "tensorweave_data_recorded",
    "STORE_COMMANDS",
    "RECORD_ENV",
    "TAGS_ENV",
    "active",
]

RECORD_ENV = "TENSORWEAVE_STORE_RECORD"  # "0" turns recording off for jobs
TAGS_ENV = "TENSORWEAVE_STORE_TAGS"  # comma-separated tags for the jobs' runs

#: the train pack's commands that take ``--store URL`` (they record runs or resolve
#: ``NAME@VERSION``; ``export`` when the train pack has it)
STORE_COMMANDS = ("train", "resume", "evaluate", "predict", "export")

#: ``id(model) -> RunHandle`` of the jobs running in this process.
active: dict[int, Any] = {}


def _enabled() -> bool:
    return os.environ.get(RECORD_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


@tw.hookimpl
def tensorweave_job_started(job: Any, run_dir: Path, config: Any, kind: str) -> None:
    """Open the job's run in the store."""
    if not _enabled():
        return
    from tensorweave_store.store import open_store

    tags = [t.strip() for t in os.environ.get(TAGS_ENV, "").split(",") if t.strip()]
    handle = open_store().start_run(
        config,
        run_dir=run_dir,
        name=getattr(getattr(job, "run", None), "name", None),
        kind=kind,
        tags=tags,
        resume=kind == "resume",
    )
    active[id(job.model)] = handle


@tw.hookimpl
def tensorweave_train_callbacks(model: Any) -> list[Any]:
    """The recorder of the job that trains ``model``, if any."""
    handle = active.get(id(model))
    if handle is None:
        return []
    from tensorweave_store.runs.callback import RecordRun

    return [RecordRun(handle=handle)]


@tw.hookimpl
def tensorweave_job_ended(
    job: Any, run_dir: Path, kind: str, summary: Any, error: BaseException | None
) -> None:
    """Close the job's run: status, final figures, artifacts."""
    handle = active.pop(id(job.model), None)
    if handle is None:
        return
    from tensorweave_store.db.urls import redact

    if error is None:
        try:
            handle.record_artifacts(run_dir)
        except Exception as err:  # the run is done: keep its status even if files fail
            import warnings

            warnings.warn(
                f"tensorweave-store: run {handle.id} finished but its files were not stored "
                f"({redact(err)}); register it later from {run_dir}.",
                stacklevel=2,
            )
        handle.finish("finished", summary=summary)
        return
    try:  # a run that stopped still read its files (stored with the artifacts otherwise)
        handle.store.record_data(handle.id, run_dir)
    except Exception as err:  # its status matters more
        import warnings

        warnings.warn(
            f"tensorweave-store: run {handle.id} stopped and the data files it read were not "
            f"recorded ({redact(err)}); its {run_dir}/data_manifest.json still lists them.",
            stacklevel=2,
        )
    if isinstance(error, KeyboardInterrupt):
        handle.finish("interrupted", error="interrupted (Ctrl-C)")
    else:
        handle.finish("failed", error=redact(f"{type(error).__name__}: {error}"))


@tw.hookimpl
def tensorweave_resolve_run(reference: str) -> str | None:
    """``NAME@VERSION`` -> the model's local directory (fetched from the store)."""
    from tensorweave_store.db.urls import is_model_ref
    from tensorweave_store.names import exists

    if not is_model_ref(reference) or exists(reference):
        return None
    from tensorweave_store.store import open_store
    from tensorweave_store.versions.models import materialize

    return str(materialize(open_store(), reference))


@tw.hookimpl
def tensorweave_train_arguments(parser: Any, command: str) -> None:
    """``--store URL`` on the commands that record runs or resolve ``NAME@VERSION``."""
    if command in STORE_COMMANDS:
        parser.add_argument(
            "--store",
            metavar="URL",
            help="the store's database URL, e.g. sqlite:///runs/tensorweave-store.db or "
            "postgresql+psycopg://USER@HOST/DB (default: $TENSORWEAVE_STORE, else the SQLite "
            "file under the runs root) (tensorweave-store)",
        )


@tw.hookimpl
def tensorweave_train_options(options: Any, command: str) -> None:
    """``--store URL`` becomes this process's store (``None`` leaves the environment's)."""
    from tensorweave_store.db.urls import select

    select(getattr(options, "store", None))


@tw.hookimpl
def tensorweave_data_recorded(reference: str) -> dict[str, Any] | None:
    """The store's record of the run ``reference`` (id, name or run directory) for
    ``tensorweave data verify``: ``{"run", "config", "manifest"}`` (``manifest`` the data
    pack's JSON form, ``None`` when the run recorded none); ``None`` for a run the store
    (``TENSORWEAVE_STORE``) does not know."""
    import sqlalchemy as sa

    from tensorweave_store.db.urls import default_url
    from tensorweave_store.errors import RunNotFoundError
    from tensorweave_store.store import open_store

    url = sa.make_url(default_url(None))
    if url.get_backend_name() == "sqlite" and not Path(url.database or "").is_file():
        return None  # no store here: do not make one to look a reference up
    store = open_store(str(default_url(None)))
    try:
        run = store.run(reference)
    except RunNotFoundError:
        return None
    data = store.data(run.id)
    return {
        "run": f"run {run.id} ({run.name}) in {store.display_url}",
        "config": run.config,
        "manifest": data.to_json() if data is not None else None,
    }
