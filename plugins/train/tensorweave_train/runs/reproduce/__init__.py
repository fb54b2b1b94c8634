"""Reproduce a run: rebuild its recorded environment, re-run its config, compare the figures.

``reproduce(run)`` reads the run's ``environment.json`` (``runs.environment``), refuses a run
whose ``config.json`` changed since (``TamperedRunError``, exit 2) or that recorded no
environment (exit 2, saying what can still be compared), then:

1. makes a fresh virtual environment (``environments.make_env``: uv when on ``PATH``, else
   ``venv`` + pip) in a temporary folder (or ``keep_env``, kept), and installs every recorded
   distribution at its recorded version without resolving again (``--no-deps``), from
   ``source`` (``--find-links``/``--index-url``). With ``share_unchanged`` the third-party
   distributions installed here at the recorded version are linked in instead of installed
   (fast and offline; the tensorweave packs are always installed). With ``here`` no
   environment is made: the config re-runs in this one, as it is;
2. re-runs the recorded config (its seeds are in it) with the recorded numerics settings
   (``TF_ENABLE_ONEDNN_OPTS``, ``TF_DETERMINISTIC_OPS``...) into a NEW run directory
   beside the original (``<name>-reproduced-<time>``); the original is only read;
3. compares every recorded figure (``figures.compare``) and lists what differs between the
   two environments (``environment.differences``);
4. with ``bisect``, when a figure moved: for each pack whose version differs, an environment
   with everything as in the reproduction except that pack at its recorded version; the
   packs whose recorded version brings the figures back are named.

Interrupted (Ctrl-C, SIGTERM): the re-run is stopped, the temporary environment and the
half-written run are removed (a ``keep_env`` stays, and is named), and
``ReproduceInterrupted`` (exit 130) says so. Exit codes: 0 reproduced, ``EXIT_MOVED`` (5) a
figure moved beyond the tolerance, 1 an environment or re-run failed (a recorded version the
index lacks: ``MissingVersionError``), 2 a run that cannot be reproduced, 130 interrupted.

>>> EXIT_MOVED
5
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import tensorweave as tw
from tensorweave_train.runs.directory import new_run_dir, resolve_run
from tensorweave_train.runs.environment import (
    ENVIRONMENT_FILE,
    NUMERIC_ENV,
    check_config,
    providers_of,
    read_environment,
)
from tensorweave_train.runs.environment_report import differences, table
from tensorweave_train.runs.marker import CONFIG_FILE, remove_run_dir
from tensorweave_train.runs.reproduce.environments import (
    Env,
    EnvironmentBuildError,
    MissingVersionError,
    Source,
    install,
    make_env,
    share,
    shareable,
)
from tensorweave_train.runs.reproduce.figures import Row, compare, table_text

__all__ = [
    "EXIT_MOVED",
    "EnvironmentBuildError",
    "MissingVersionError",
    "NoEnvironmentError",
    "Outcome",
    "ReproduceError",
    "ReproduceInterrupted",
    "Source",
    "report",
    "reproduce",
]

EXIT_MOVED = 5  # a figure moved beyond the tolerance

Print = Callable[[str], None]


class ReproduceError(tw.TensorweaveError):
    """A run that cannot be reproduced as it is (unfinished, no summary): exit 2."""

    exit_code = 2


class NoEnvironmentError(ReproduceError):
    """The run recorded no environment (made before tensorweave recorded one): exit 2."""


class ReproduceInterrupted(tw.TensorweaveError):
    """A reproduction was interrupted; what it made was removed (or is named): exit 130."""

    exit_code = 130


@dataclass
class Outcome:
    """What a reproduction found."""

    run: Path
    new_run: Path | None
    rows: list[Row]
    differences: list[tuple[str, str, str, str]]
    culprits: list[str] = field(default_factory=list)
    bisected: list[tuple[str, str, bool]] = field(default_factory=list)
    env: Path | None = None

    @property
    def reproduced(self) -> bool:
        """Every figure within the tolerance."""
        return all(r.within for r in self.rows)

    @property
    def exit_code(self) -> int:
        """0 reproduced, ``EXIT_MOVED`` when a figure moved."""
        return 0 if self.reproduced else EXIT_MOVED


def no_environment_message(run: Path) -> str:
    """What to say about a run without ``environment.json``, and what can still be compared."""
    providers: dict[str, str] = {}
    try:
        providers = providers_of(json.loads((run / CONFIG_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        pass
    used = sorted(set(providers.values()))
    return (
        f"{run} has no {ENVIRONMENT_FILE}: it was made before tensorweave recorded the "
        "environment of every run, so its Python, TensorFlow, numpy, other distributions and "
        "CPU settings are unknown and it cannot be rebuilt. What can still be compared: the "
        "packs its config.json recorded as providers of its components"
        f"{': ' + ', '.join(used) if used else ' (none recorded)'}; and its figures, by "
        f"training its config.json again (tensorweave train {run / CONFIG_FILE}). Fix: "
        "install those pack versions and train it again: the new run records its environment."
    )


@contextmanager
def _terminate_raises() -> Iterator[None]:
    """SIGTERM raises ``KeyboardInterrupt`` (as Ctrl-C does) while reproducing."""
    try:
        previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _child_env(record: dict[str, Any], isolated: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in NUMERIC_ENV}
    env.update({k: str(v) for k, v in (record.get("env") or {}).items() if k in NUMERIC_ENV})
    if isolated:  # nothing from outside the new environment
        for k in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"):
            env.pop(k, None)
    return env


def _rerun(
    python: Path | str, run: Path, into: Path, record: dict[str, Any], isolated: bool
) -> dict[str, Any]:
    """Train ``run``'s config with ``python`` into the new directory ``into``; its summary."""
    command = [
        str(python), "-m", "tensorweave_train.commands", "train", str(run / CONFIG_FILE),
        "--run-dir", str(into), "--quiet",
    ]  # fmt: skip
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            env=_child_env(record, isolated),
        )
        try:
            code = proc.wait()
        except BaseException:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            raise
        log.seek(0)
        output = log.read()
    if code != 0 or not (into / "summary.json").is_file():
        raise EnvironmentBuildError(
            f"re-running {run / CONFIG_FILE} with {python} failed (exit {code}):\n"
            f"{output.strip()[-3000:]}"
        )
    summary: dict[str, Any] = json.loads((into / "summary.json").read_text())
    return summary


def _installed(path: list[str] | None = None) -> dict[str, metadata.Distribution]:
    found: dict[str, metadata.Distribution] = {}
    found_here = metadata.distributions() if path is None else metadata.distributions(path=path)
    for dist in found_here:
        name = str(dist.metadata["Name"] or "").lower().replace("_", "-").replace(".", "-")
        if name and name not in found:
            found[name] = dist
    return found


def _requirement(d: dict[str, Any]) -> str:
    return f"{d['name']} @ {d['vcs']}" if d.get("vcs") else f"{d['name']}=={d['version']}"


def _fill(
    env: Env, record: dict[str, Any], source: Source, share_unchanged: bool, out: Print
) -> None:
    """Install the recorded versions into ``env`` (linking unchanged third-party ones)."""
    here = _installed() if share_unchanged else {}
    linked, wanted = [], []
    for d in record["distributions"]:
        now = here.get(d["name"])
        same = now is not None and now.version == d["version"] and not d.get("vcs")
        if same and not d.get("pack") and not d.get("editable") and shareable(now):  # type: ignore[arg-type]
            linked.append(now)
        else:
            wanted.append(_requirement(d))
    if linked:
        share(env, linked)  # type: ignore[arg-type]
        out(f"  linked {len(linked)} unchanged third-party distributions from {sys.prefix}")
    editable = [d["name"] for d in record["distributions"] if d.get("editable")]
    if editable:
        out(
            f"  recorded as editable installs (their source may have changed since): "
            f"{', '.join(editable)}; installing their recorded versions from {source.describe()}"
        )
    out(f"  installing {len(wanted)} recorded versions from {source.describe()}")
    install(env, wanted, source)


def reproduce(
    reference: str | Path,
    *,
    python: str | None = None,
    source: Source | None = None,
    keep_env: str | Path | None = None,
    tolerance: float = 1e-6,
    bisect: bool = False,
    share_unchanged: bool = False,
    here: bool = False,
    run_dir: str | Path | None = None,
    out: Print = print,
) -> Outcome:
    """Reproduce the run ``reference`` names (see the module docstring)."""
    source = source or Source()
    run = resolve_run(reference)
    record = read_environment(run)
    if record is None:
        raise NoEnvironmentError(no_environment_message(run))
    check_config(run, record)
    if not (run / "summary.json").is_file():
        raise ReproduceError(
            f"{run} has no summary.json: the run did not finish, so it recorded no figures to "
            f"compare. Fix: finish it first (tensorweave resume {run})."
        )
    recorded = json.loads((run / "summary.json").read_text())
    if keep_env is not None and not here:
        _check_keep_env(Path(keep_env))
    work = Path(tempfile.mkdtemp(prefix="tensorweave-reproduce-"))
    kept = Path(keep_env) if keep_env is not None else None
    made: list[Path] = []  # new run directories, removed when interrupted
    env: Env | None = None
    try:
        with _terminate_raises():
            if here:
                python_exe: Path | str = sys.executable
                out(f"re-running {run} in this environment ({sys.prefix})")
            else:
                where = kept or work / "env"
                if kept is not None and (kept / "pyvenv.cfg").is_file():
                    env = _existing(kept)
                    out(f"reusing the environment {kept} (--keep-env)")
                else:
                    out(f"making a fresh environment in {where}")
                    env = make_env(where, python)
                _fill(env, record, source, share_unchanged, out)
                python_exe = env.python
            root = Path(run_dir).parent if run_dir else run.parent
            name = Path(run_dir).name if run_dir else f"{run.name}-reproduced"
            into = Path(run_dir) if run_dir else new_run_dir(root, name[:100])
            made.append(into)
            out(f"re-running the recorded config into {into}")
            summary = _rerun(python_exe, run, into, record, isolated=not here)
            rows = compare(recorded, summary, tolerance)
            other = read_environment(into) or {}
            outcome = Outcome(run, into, rows, differences(record, other), env=kept)
            if bisect and not outcome.reproduced:
                _bisect(outcome, run, record, recorded, env, source, tolerance, work, made, out)
            made.clear()  # finished: the new run stays
            return outcome
    except KeyboardInterrupt:
        removed = [str(p) for p in made if remove_run_dir(p)]
        note = (
            f"the environment {kept} stays (--keep-env)"
            if kept is not None
            else f"removed the temporary environment {work}"
        )
        raise ReproduceInterrupted(
            f"interrupted: {note}; "
            + (f"removed the half-written run {', '.join(removed)}; " if removed else "")
            + f"nothing was written into {run}"
        ) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _check_keep_env(path: Path) -> None:
    """``--keep-env DIR``: a new or empty folder, or an environment made there before."""
    if path.exists() and not path.is_dir():
        raise ReproduceError(f"--keep-env {path} is a file. Fix: name a folder.")
    if path.is_dir() and any(path.iterdir()) and not (path / "pyvenv.cfg").is_file():
        raise ReproduceError(
            f"--keep-env {path} holds files and is not a virtual environment (no pyvenv.cfg): "
            "refusing to install into it. Fix: name a new or empty folder, or one that an "
            "earlier --keep-env made."
        )


def _existing(path: Path) -> Env:
    exe = path / "bin" / "python"
    site = subprocess.run(
        [str(exe), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Env(path, exe, Path(site))


def _bisect(
    outcome: Outcome,
    run: Path,
    record: dict[str, Any],
    recorded: dict[str, Any],
    env: Env | None,
    source: Source,
    tolerance: float,
    work: Path,
    made: list[Path],
    out: Print,
) -> None:
    """For each differing pack: everything as in the reproduction, that pack as recorded."""
    packs = [d for d in outcome.differences if d[0] == "pack" and d[2] != "not installed"]
    if not packs:
        out("bisect: no pack differs from the record; what differs is listed above")
        return
    now = _installed([str(env.site)] if env is not None else None)
    for _, name, was, is_now in packs:
        out(f"bisect: {name} {is_now} -> {was} (recorded), everything else as reproduced")
        trial = make_env(work / f"bisect-{name}", None if env is None else str(env.python))
        share(trial, [d for n, d in now.items() if n != name])
        install(trial, [f"{name}=={was}"], source)
        into = new_run_dir(work, f"bisect-{name}")
        made.append(into)
        rows = compare(recorded, _rerun(trial.python, run, into, record, isolated=True), tolerance)
        back = all(r.within for r in rows)
        outcome.bisected.append((name, was, back))
        out(f"  {'reproduced: ' + name + ' moved the figures' if back else 'still moved'}")
        if back:
            outcome.culprits.append(f"{name} ({was} recorded, {is_now} now)")


def report(outcome: Outcome, tolerance: float) -> str:
    """The table, what differs, and the verdict, for people."""
    lines = [table_text(outcome.rows, tolerance)]
    if outcome.reproduced:
        lines.append(f"\nreproduced: every figure within {tolerance:g} (new run {outcome.new_run})")
    else:
        moved = [r.figure for r in outcome.rows if not r.within]
        lines.append(f"\nNOT reproduced: {len(moved)} figure(s) moved ({', '.join(moved)})")
    if outcome.differences:
        lines.append("\nwhat differs between the recorded environment and the reproduction's:")
        lines.append(
            table([["kind", "what", "recorded", "reproduction"], *map(list, outcome.differences)])
        )
    else:
        lines.append("the two environments record no difference")
    if outcome.bisected and not outcome.culprits:
        lines.append("bisect: no single pack set back to its recorded version brings them back")
    for culprit in outcome.culprits:
        lines.append(f"bisect: the figures moved with {culprit}")
    return "\n".join(lines)
