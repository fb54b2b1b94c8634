"""``tensorweave upgrade CONFIG [-o NEW | --in-place]``: rewrite the component names their
packs declare moved, and show the change as a unified diff.

A pack declares a move in its registry (CONTRIBUTING.md, "Declaring a move"): an entry point
that is a ``tw.alias("Foo.v2")``, or ``superseded_by = "Foo.v2"`` on a component kept for
old configs (``tw.registries.supersede``). The names are found and rewritten by the config
layer (``tensorweave.config.upgrade``: as text, comments and layout kept, checked by parsing
the result again); this command prints each move and the diff, and writes only when asked:
without ``-o``/``--in-place`` nothing is written, ``-o NEW`` refuses an existing file,
``--in-place`` rewrites CONFIG. Exit codes: 0 nothing to upgrade or every name upgraded; 2
usage (no such file, an unreadable config, ``-o`` over an existing file); 3 a name no
installed pack offers, or whose pack fails to load (each reported, an unknown one with its
closest matches; nothing is written); 1 a
rewrite that did not come out exact (nothing is written).

>>> upgrade_parser().parse_args(["job.toml", "-o", "job.v2.toml"]).output
'job.v2.toml'
"""

from __future__ import annotations

import difflib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from tensorweave.cli.command import EXIT_COMPONENT, EXIT_OK, CommandParser, UsageError
from tensorweave.config.errors import ConfigError
from tensorweave.config.upgrade import upgrade_file
from tensorweave.errors import UnknownComponentError
from tensorweave_train.commands.arguments import base_parser

__all__ = ["cmd_upgrade", "upgrade_parser"]


def upgrade_parser() -> CommandParser:
    """The parser of ``tensorweave upgrade``."""
    p = base_parser(
        "upgrade",
        "CONFIG [-o NEW | --in-place]",
        "Rewrite the component names installed packs declare moved (Foo.v1 -> Foo.v2), "
        "printing a unified diff; nothing is written without -o NEW or --in-place (exit 0 "
        "upgraded or nothing to upgrade, 2 usage, 3 a name no installed pack offers).",
    )
    p.add_argument("config", nargs="?", help="a config file (.toml, .json, .yaml)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", metavar="NEW", help="write the upgraded config to NEW")
    where.add_argument("--in-place", action="store_true", help="rewrite CONFIG itself")
    return p


def _write(target: Path, text: str, *, replace: bool) -> None:
    """Write ``text`` to ``target`` at once (a temporary file renamed), never over an
    existing file unless ``replace`` (then its permissions are kept; a new file gets the
    usual ones)."""
    if not replace and (target.exists() or target.is_symlink()):
        raise UsageError(
            f"{target} exists: tensorweave upgrade never overwrites a file. Fix: -o a new "
            "file, or --in-place to rewrite the config itself."
        )
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        if replace:
            shutil.copymode(target, tmp)
            os.replace(tmp, target)
        else:
            umask = os.umask(0o022)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
            os.link(tmp, target)  # fails if the file appeared meanwhile
            os.unlink(tmp)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def cmd_upgrade(argv: list[str]) -> int:
    """``tensorweave upgrade``: print the moves and the diff; write with ``-o``/``--in-place``."""
    parser = upgrade_parser()
    args = parser.parse_args(argv)
    if args.help:
        parser.print_help()
        return EXIT_OK
    if args.config is None:
        raise UsageError("tensorweave upgrade: give the CONFIG file to upgrade")
    source = Path(args.config)
    if not source.is_file():
        raise UsageError(f"tensorweave upgrade: no config file at {str(source)!r}")
    output = Path(args.output) if args.output else None
    if output is not None and (output.exists() or output.is_symlink()):
        raise UsageError(  # before any work: refused, not after printing a diff
            f"{output} exists: tensorweave upgrade never overwrites a file. Fix: -o a new "
            "file, or --in-place to rewrite the config itself."
        )
    try:
        done = upgrade_file(source)
    except ConfigError as err:
        raise UsageError(f"tensorweave upgrade: cannot read {source}: {err}") from err
    for moved in done.moved:
        print(f"moved    {moved.describe()}")
    if done.new != done.old:
        sys.stdout.writelines(
            difflib.unified_diff(
                done.old.splitlines(keepends=True),
                done.new.splitlines(keepends=True),
                str(source),
                f"{args.output or source} (upgraded)",
            )
        )
    for path, problem in done.unknown:
        lines = str(problem).splitlines()
        close = [line.strip() for line in lines if "Close matches" in line]
        what = "unknown " if isinstance(problem, UnknownComponentError) else "failed  "
        print(f"{what} {path}: {lines[0]}", *close, file=sys.stderr)
    if done.unknown:
        print(
            f"{source}: {len(done.unknown)} name(s) could not be looked up (unknown, or their "
            "pack fails to load); nothing written. Fix: correct them (closest matches above), "
            "install or repair their pack (`tensorweave plugins`), then run again.",
            file=sys.stderr,
        )
        return EXIT_COMPONENT
    if not done.moved:
        print(f"{source}: nothing to upgrade (no installed pack declares a move of its names)")
        return EXIT_OK
    if args.in_place:
        _write(source.resolve(), done.new, replace=True)  # a link's file, not the link
        print(f"rewrote {source} ({len(done.moved)} name(s))")
    elif args.output:
        _write(Path(args.output), done.new, replace=False)
        print(f"wrote {args.output} ({len(done.moved)} name(s)); {source} is unchanged")
    else:
        print("nothing written: -o NEW to write the upgraded config, or --in-place")
    return EXIT_OK
