"""The web views of runs and sweeps: ``tensorweave runs tensorboard`` (TensorBoard over the
chosen runs' logs) and ``tensorweave sweep dashboard`` (optuna-dashboard over the store's
Optuna studies). Each serves on ``--host`` (``127.0.0.1`` by default) and ``--port``, prints
its URL and stops on Ctrl-C or SIGTERM, exit code 0.

>>> unique_names(["digits", "digits", "chars"])
['digits', 'digits-2', 'chars']
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import tensorweave as tw

__all__ = [
    "ViewerMissingError",
    "board_runs",
    "link_trials",
    "start_dashboard",
    "board_view",
    "serve_until_stopped",
    "start_tensorboard",
    "unique_names",
]


class ViewerMissingError(tw.TensorweaveError):
    """The package a web view needs (``tensorboard``, ``optuna-dashboard``) is missing."""


def unique_names(names: Sequence[str]) -> list[str]:
    """``names`` with a ``-2``, ``-3``… added to repeats (TensorBoard shows runs by name)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}-{seen[name]}")
    return out


def _holds_profile(folder: Path) -> bool:
    return any(p.parent.name == "plugins" for p in folder.rglob("profile") if p.is_dir())


def _mirror(source: Path, target: Path) -> None:
    """``target`` shows ``source``: a link to each entry, real folders down to each
    ``plugins/profile`` (the Profile plugin does not follow a linked folder)."""
    target.mkdir()
    for entry in sorted(source.iterdir()):
        if entry.is_dir() and not entry.is_symlink() and _holds_profile(entry):
            _mirror(entry, target / entry.name)
        elif entry.is_dir() and entry.name == "profile" and source.name == "plugins":
            _mirror(entry, target / entry.name)  # its <time> folders are linked
        else:
            (target / entry.name).symlink_to(entry.absolute(), entry.is_dir())


def board_view(named: Sequence[tuple[str, Path]], where: Path) -> Path:
    """A folder ``where`` showing each run directory of ``named`` under its name, without a
    copy (links), for TensorBoard's ``--logdir``: each name is a top folder, so the runs
    appear as ``NAME/tensorboard``... on every page. (``--logdir_spec name:path`` would name
    them too, but the Profile page reads ``--logdir`` alone.) Made when the command starts:
    files a run writes later in a new log folder appear after a restart."""
    where.mkdir(parents=True, exist_ok=True)
    for name, path in named:
        _mirror(Path(path).resolve(), where / name)
    return where


def _event_files(folder: Path) -> Iterator[Path]:
    return folder.rglob("events.out.tfevents.*")


def board_runs(refs: Sequence[str], open_store: Callable[[], Any]) -> list[tuple[str, Path]]:
    """``(name, run directory)`` of each run ``refs`` names: a run directory (no store
    needed), or a run id or name recorded in the store ``open_store()`` opens; no
    ``refs``: every recorded run whose directory is still there. A run without TensorBoard
    logs is refused, saying why and how to write them."""
    from tensorweave_store.errors import StoreError

    chosen: list[tuple[str, Path]] = []
    store = None
    for ref in refs:
        path = Path(ref)
        if (path / "config.json").is_file():
            chosen.append((path.resolve().name, path.resolve()))
            continue
        store = store or open_store()
        run = store.run(ref)
        if not run.run_dir or not Path(run.run_dir).is_dir():
            raise StoreError(
                f"run {run.id} ({run.name}) has no run directory here ({run.run_dir}): "
                "TensorBoard reads the logs in it. Fix: run this on the machine that trained "
                "it, or pass a copy of its directory."
            )
        chosen.append((run.name, Path(run.run_dir)))
    if not refs:
        store = open_store()
        for run in reversed(store.runs()):  # oldest first, as TensorBoard lists them
            if run.run_dir and Path(run.run_dir).is_dir():
                chosen.append((run.name, Path(run.run_dir)))
        if not chosen:
            raise StoreError(
                f"no recorded run with its directory here in {store.display_url}. Fix: "
                "train one (tensorweave train), or name run directories: "
                "tensorweave runs tensorboard RUN_DIR..."
            )
    for name, path in chosen:
        if next(_event_files(path), None) is None:
            raise tw.TensorweaveError(
                f"run {name} ({path}) has no TensorBoard logs (no events.out.tfevents.* file "
                "in it). Fix: train with TensorBoard on (the default; not "
                "--run.tensorboard=false) or a TensorBoard.v1 callback in the config."
            )
    names = unique_names([name for name, _ in chosen])
    return [(n, p) for n, (_, p) in zip(names, chosen, strict=True)]


def start_tensorboard(view: Path, host: str, port: int) -> str:
    """Start TensorBoard (in this process, its server in a thread) over ``view`` (the
    runs' ``board_view``); its URL."""
    try:
        from tensorboard import program
    except ImportError as err:
        raise ViewerMissingError(
            "tensorweave runs tensorboard needs the tensorboard package. Fix: pip install "
            '"tensorweave-train[tensorboard]" (TensorBoard and its Profile page).'
        ) from err
    board = program.TensorBoard()
    board.configure(
        argv=[
            "tensorboard",
            "--logdir",
            str(view),
            "--host",
            host,
            "--port",
            str(port),
            "--reload_interval",
            "5",
        ]
    )
    try:
        return str(board.launch())
    except program.TensorBoardServerException as err:
        raise tw.TensorweaveError(
            f"TensorBoard could not serve on {host}:{port}: {err}. Fix: pick another "
            "--port (or stop what uses that one)."
        ) from err


def serve_until_stopped(what: str, url: str, out: Callable[[str], Any] = print) -> int:
    """Print ``url`` and wait until Ctrl-C or SIGTERM (the server runs in a thread); 0."""
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    out(f"{what} at {url}\n  (Ctrl-C to stop)")
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    out(f"stopped {what}")
    return 0


# -- the sweep dashboard ------------------------------------------------------------------------
_LINK = "**tensorweave run**"  # how a trial's note starts once it links its run


def link_trials(storage: Any, run_name: Callable[[Any], str | None]) -> int:
    """Give every trial of every study in ``storage`` that ran a tensorweave run (its
    ``run_dir`` user attribute) a dashboard note naming the run (``run_name(trial)``), its
    directory and the commands that open it; a trial whose note already does is left as
    it is. Notes are the study's attributes in the same database (optuna-dashboard's
    ``save_note``). Returns how many notes were written."""
    import optuna
    from optuna_dashboard import get_note, save_note

    written = 0
    for summary in optuna.get_all_study_summaries(storage, include_best_trial=False):
        study = optuna.load_study(study_name=summary.study_name, storage=storage)
        for frozen in study.get_trials(deepcopy=False):
            run_dir = frozen.user_attrs.get("run_dir")
            if not run_dir:
                continue
            trial = optuna.trial.Trial(study, frozen._trial_id)
            if get_note(trial).startswith(_LINK):
                continue
            name = run_name(frozen) or Path(str(run_dir)).name
            ref = frozen.user_attrs.get("store_run", run_dir)
            save_note(
                trial,
                f"{_LINK}: {name}\n\n- directory: `{run_dir}`\n"
                f"- `tensorweave runs show {ref}` · `tensorweave runs tensorboard {run_dir}`\n",
            )
            written += 1
    return written


def start_dashboard(storage: Any, host: str, port: int) -> tuple[str, Callable[[], None]]:
    """Serve optuna-dashboard over ``storage`` in a thread; its URL and how to stop it."""
    try:
        import optuna_dashboard
    except ImportError as err:
        raise ViewerMissingError(
            "tensorweave sweep dashboard needs optuna-dashboard. Fix: pip install "
            '"tensorweave-store[dashboard]".'
        ) from err
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    class Quiet(WSGIRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    try:
        server = make_server(host, port, optuna_dashboard.wsgi(storage), handler_class=Quiet)
    except OSError as err:
        raise tw.TensorweaveError(
            f"optuna-dashboard could not serve on {host}:{port}: {err.strerror or err}. Fix: "
            "pick another --port (or stop what uses that one)."
        ) from err
    threading.Thread(target=server.serve_forever, name="optuna-dashboard", daemon=True).start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return f"http://{host}:{server.server_port}/dashboard", stop
