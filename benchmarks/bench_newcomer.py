"""A newcomer's path to a working pack, timed: scaffold -> pip install -> tests green.

    python benchmarks/bench_newcomer.py            # what a newcomer types (build isolation on)
    python benchmarks/bench_newcomer.py --offline  # --no-build-isolation --no-deps, no index needed
    python benchmarks/bench_newcomer.py --json out.json  # also summary rows, as run_all.py reads

Each step runs as its own process, as typed at a shell: ``tensorweave new-plugin`` (or the
scaffold function when the command line does not offer it yet), ``pip install -e``, then
``pytest`` in the new pack. Also counts the files and lines a minimal pack needs. The pack
is uninstalled and deleted at the end, whatever happens. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # quiet when --json imports common.py
NAME = "newcomer-bench"
DIST = "tensorweave-newcomer-bench"
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "-1"}
SCAFFOLD = (
    "import sys; from pathlib import Path; from tensorweave.cli.scaffold import scaffold_plugin; "
    "scaffold_plugin(sys.argv[1], Path(sys.argv[2]))"
)


def _run(cmd: list[str], cwd: Path | None = None) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=ENV)
    return time.perf_counter() - start, done


def _must(step: str, done: subprocess.CompletedProcess[str]) -> None:
    if done.returncode != 0:
        sys.exit(
            f"{step} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )


def _scaffold(where: Path) -> tuple[float, str]:
    cli = shutil.which("tensorweave")
    if cli:
        seconds, done = _run([cli, "new-plugin", NAME, "--dir", str(where)])
        if done.returncode == 0:
            return seconds, "tensorweave new-plugin"
    seconds, done = _run([sys.executable, "-c", SCAFFOLD, NAME, str(where)])
    _must("scaffold", done)
    return seconds, "tensorweave.scaffold.scaffold_plugin (CLI not wired)"


def _installed() -> bool:
    """Whether the benchmark's pack is installed (asking costs far less than ``pip``)."""
    try:
        importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _is_code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def count(root: Path) -> list[tuple[str, int, int]]:
    """(file, lines, non-blank non-comment lines) for every file of the pack."""
    rows = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or any(
            p.endswith(".egg-info") or p == "__pycache__" for p in path.parts
        ):
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        rows.append((path.relative_to(root).as_posix(), len(lines), sum(map(_is_code, lines))))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offline", action="store_true", help="no build isolation, no deps")
    parser.add_argument("--quick", action="store_true", help="the same as --offline")
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON summary rows")
    args = parser.parse_args()
    args.offline = args.offline or args.quick
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "install", "-q", "-e"]
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        if _installed():  # a run killed half-way leaves the pack installed: start clean
            subprocess.run(
                [sys.executable, "-m", "pip", "uninstall", "-y", "-q", DIST], capture_output=True
            )
        try:
            t_scaffold, how = _scaffold(where)
            root = where / DIST
            rows = count(root)  # as scaffolded, before tools add caches
            target = str(root) if args.offline else f"{root}[test]"
            extra = ["--no-build-isolation", "--no-deps"] if args.offline else []
            t_install, done = _run([*pip, target, *extra])
            _must("pip install", done)
            t_test, done = _run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], root
            )
            _must("pytest", done)
            summary = done.stdout.strip().splitlines()[-1]
        finally:
            subprocess.run(
                [sys.executable, "-m", "pip", "uninstall", "-y", "-q", DIST],
                capture_output=True,
                env=ENV,
            )
    total = t_scaffold + t_install + t_test
    print(f"newcomer path ({'offline' if args.offline else 'pip with build isolation'}), seconds:")
    print(f"  scaffold      {t_scaffold:7.2f}   via {how}")
    print(f"  pip install   {t_install:7.2f}")
    print(f"  pytest green  {t_test:7.2f}   {summary}")
    print(f"  total         {total:7.2f}")
    print("\nfiles of the pack as scaffolded (lines / non-blank non-comment lines):")
    for name, lines, code in rows:
        print(f"  {name:<40} {lines:5d} {code:5d}")
    needed = [
        r
        for r in rows
        if r[0] == "pyproject.toml" or (r[0].endswith(".py") and "tests/" not in r[0])
    ]
    print(
        f"  {'all':<40} {sum(r[1] for r in rows):5d} {sum(r[2] for r in rows):5d}  ({len(rows)} files)"
    )
    print(
        f"  {'needed to install and resolve by name':<40} {sum(r[1] for r in needed):5d} "
        f"{sum(r[2] for r in needed):5d}  ({len(needed)} files: pyproject + package, no tests/README)"
    )
    if args.json:
        from common import summary_row, write_json  # benchmarks/common.py

        rows_out = [
            summary_row("newcomer: scaffold -> install -> tests green", total, None, unit="s"),
            summary_row("newcomer: pip install", t_install, None, unit="s"),
            summary_row("newcomer: pytest green", t_test, None, unit="s"),
            summary_row("minimal pack: files as scaffolded", len(rows), None),
            summary_row("minimal pack: lines needed to install", sum(r[1] for r in needed), None),
        ]
        write_json(args.json, {"summary": rows_out, "files": rows})


if __name__ == "__main__":
    main()
