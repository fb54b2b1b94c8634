"""Fresh virtual environments for ``tensorweave reproduce``: made, filled, shared, removed.

``make_env(where, python)`` creates one (``uv venv`` when uv is on ``PATH``, else
``python -m venv --without-pip``, filled by this process's pip through ``pip --python``);
``install(env, requirements, source)`` installs pinned requirements without their
dependencies (the record lists every distribution: nothing is resolved again), and turns
pip's "no such version" into ``MissingVersionError`` naming ``dist==version`` and
``--find-links``; ``share(env, dists)`` links installed distributions into the environment
instead of installing them (what ``--share-unchanged`` and ``--bisect`` use: a distribution's
files, listed in its ``RECORD``, are linked into the new ``site-packages``).

>>> Source(find_links="wheels", no_index=True).pip_options()
['--no-index', '--find-links', 'wheels']
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import tensorweave as tw

__all__ = [
    "Env",
    "EnvironmentBuildError",
    "MissingVersionError",
    "Source",
    "install",
    "make_env",
    "share",
    "shareable",
]


class EnvironmentBuildError(tw.TensorweaveError):
    """A reproduction environment could not be made or filled (exit 1)."""

    exit_code = 1


class MissingVersionError(EnvironmentBuildError):
    """The package index has no wheel of a recorded version (exit 1)."""


@dataclass(frozen=True)
class Source:
    """Where recorded versions are installed from (pip's options)."""

    find_links: str | None = None
    index_url: str | None = None
    no_index: bool = False

    def pip_options(self) -> list[str]:
        """The pip options of this source."""
        out = ["--no-index"] if self.no_index else []
        if self.find_links:
            out += ["--find-links", self.find_links]
        if self.index_url:
            out += ["--index-url", self.index_url]
        return out

    def describe(self) -> str:
        """In words, for messages."""
        parts = [f"--find-links {self.find_links}"] if self.find_links else []
        parts += [f"--index-url {self.index_url}"] if self.index_url else []
        return " ".join(parts) + (" (no index)" if self.no_index else "") or "the default index"


@dataclass(frozen=True)
class Env:
    """A virtual environment: its directory, its python and its ``site-packages``."""

    path: Path
    python: Path
    site: Path


def _run(command: list[str], what: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise EnvironmentBuildError(
            f"{what} failed (exit {done.returncode}): {' '.join(command)}\n"
            f"{(done.stderr or done.stdout).strip()[-2000:]}"
        )
    return done


def make_env(where: Path, python: str | None = None) -> Env:
    """A new, empty virtual environment at ``where`` for ``python`` (default: this one's)."""
    base = python or getattr(sys, "_base_executable", None) or sys.executable
    uv = shutil.which("uv")
    if uv:
        _run([uv, "venv", "--quiet", "--python", base, str(where)], "uv venv")
    else:
        _run([base, "-m", "venv", "--without-pip", str(where)], f"{base} -m venv")
    exe = where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = _run(
        [str(exe), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        "reading the new environment's site-packages",
    ).stdout.strip()
    return Env(where, exe, Path(site))


_MISSING = re.compile(
    r"(?:No matching distribution found for|Could not find a version that satisfies the "
    r"requirement|Because .*? was not found|No solution found)\s*([A-Za-z0-9_.\-]+==[^\s;,)]+)?"
)


def install(env: Env, requirements: list[str], source: Source) -> None:
    """Install the pinned ``requirements`` into ``env`` without their dependencies."""
    if not requirements:
        return
    uv = shutil.which("uv")
    if uv:
        command = [uv, "pip", "install", "--python", str(env.python), "--no-deps"]
    else:
        command = [
            sys.executable, "-m", "pip", "--python", str(env.python), "install",
            "--no-deps", "--disable-pip-version-check", "--no-warn-script-location",
        ]  # fmt: skip
    done = subprocess.run(
        [*command, *source.pip_options(), *requirements], capture_output=True, text=True
    )
    if done.returncode == 0:
        return
    text = (done.stderr or "") + (done.stdout or "")
    found = _MISSING.search(text)
    if found:
        missing = found.group(1) or next(
            (r for r in requirements if r.split("==")[0].lower() in text.lower()), "?"
        )
        raise MissingVersionError(
            f"cannot install the recorded {missing}: {source.describe()} has no wheel of it "
            f"(pip: {found.group(0).strip()}). Fix: --find-links DIR with a wheel of {missing} "
            "(build one from that version's source: python -m build --wheel), or --index-url "
            "URL of an index that still has it."
        )
    raise EnvironmentBuildError(
        f"installing the recorded versions failed (exit {done.returncode}): "
        f"{' '.join(command[:3])} ... {' '.join(requirements[:5])}{' ...' if len(requirements) > 5 else ''}\n"
        f"{text.strip()[-2000:]}"
    )


def shareable(dist: metadata.Distribution) -> bool:
    """Whether ``dist`` lists its files (``RECORD``), so that it can be linked elsewhere."""
    return bool(dist.files)


def share(env: Env, dists: list[metadata.Distribution]) -> list[str]:
    """Link the files of the installed ``dists`` into ``env``'s ``site-packages`` (their
    top-level packages, modules, ``.pth`` files and metadata; scripts stay out); returns
    the names of the distributions linked."""
    linked: list[str] = []
    for dist in dists:
        if not dist.files:
            continue
        base = Path(str(dist.locate_file("")))
        tops = {Path(str(f)).parts[0] for f in dist.files if Path(str(f)).parts}
        for top in sorted(t for t in tops if t not in ("..", "__pycache__")):
            src, dst = base / top, env.site / top
            if src.exists() and not (dst.exists() or dst.is_symlink()):
                dst.symlink_to(src)
        linked.append(str(dist.metadata["Name"]))
    return linked
