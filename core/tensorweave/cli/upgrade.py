"""``tensorweave upgrade CONFIG [-o NEW | --in-place]``: rewrite the component names that
their pack declares moved, and show the change as a unified diff.

A pack declares a move in its registry, in one of two ways (CONTRIBUTING.md, "Declaring a
move"):

- the old name is an alias: its entry point points at ``tw.alias("Foo.v2", reason=...)``
  (the pack dropped ``Foo.v1``; looking it up warns and gives ``Foo.v2``);
- the old component stays (old configs still compute what they computed) and says what
  replaces it: ``superseded_by = "Foo.v2"`` on the registered class or function (and
  optionally ``superseded_reason = "..."``).

Every ``"@kind" = "Name"`` of the config is looked up; a move is followed to its end
(``Foo.v1`` -> ``Foo.v2`` -> ``Foo.v3``), a qualified ``"dist:Foo.v1"`` keeps its ``dist:``.
The file is rewritten as text, only the names, so its comments and layout stay, and the
result is parsed again to check that exactly those names changed. Without ``-o`` or
``--in-place`` nothing is written (the diff only); ``-o`` refuses an existing file. A name
no installed pack offers is reported with the registry's closest matches, exit code 3, and
nothing is written.

>>> text = '[model.nodes.h]\\n"@layers" = "Foo.v1"  # hidden\\n'
>>> print(rewrite_text(text, "toml", [Move("model.nodes.h", "layers", "Foo.v1", "Foo.v2")]), end="")
[model.nodes.h]
"@layers" = "Foo.v2"  # hidden
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tensorweave.cli.command import EXIT_COMPONENT, UsageError
from tensorweave.config.errors import ConfigError
from tensorweave.config.loading import FORMATS, load, loads
from tensorweave.config.promises import promise_kind
from tensorweave.errors import RegistryError, TensorweaveError
from tensorweave.registries import registry
from tensorweave.registries.entries import split_qualified

__all__ = ["Move", "moved_to", "find_moves", "rewrite_text", "upgrade", "add_command", "run"]

_MAX_HOPS = 20  # a chain of moves longer than this is a cycle


@dataclass(frozen=True)
class Move:
    """One name to rewrite: at dotted ``path``, ``kind`` component ``old`` -> ``new``."""

    path: str
    kind: str
    old: str
    new: str
    reason: str = ""
    declared_by: str = ""

    def describe(self) -> str:
        why = f": {self.reason}" if self.reason else ""
        by = f" (declared by {self.declared_by})" if self.declared_by else ""
        return f"{self.path}: {self.kind} {self.old} -> {self.new}{by}{why}"


class UpgradeError(TensorweaveError):
    """A move that cannot be applied (a cycle, a rewrite that did not come out exact)."""


def _qualify(provider: str | None, name: str) -> str:
    return f"{provider}:{name}" if provider else name


def _one_step(kind: str, name: str) -> tuple[str, str, str] | None:
    """``(new name, reason, declared by)`` when the pack of ``kind`` component ``name``
    declares it moved, else ``None``; an unknown name raises the registry's error."""
    reg = registry(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # an alias: reported here instead
        obj = reg.get(name)
    bare = split_qualified(name)[1]
    provider = name.partition(":")[0] if ":" in name else None  # as written
    for entry in reg._offers(name)[2]:  # the registry's own record of an alias
        if entry.alias_of is not None:
            reason = "" if entry.target.startswith("deprecated alias") else entry.target
            return _qualify(provider, entry.alias_of), reason, entry.label()
    successor = getattr(obj, "superseded_by", None)
    if isinstance(successor, str) and successor and successor != bare:
        info = reg.info(name)
        label = info.distribution + (f" {info.version}" if info.version else "")
        return _qualify(provider, successor), str(getattr(obj, "superseded_reason", "")), label
    return None


def moved_to(kind: str, name: str) -> tuple[str, str, str] | None:
    """Where ``kind`` component ``name`` moved, following a chain of moves to its end:
    ``(new name, reasons, declared by)``, or ``None`` when it did not move. An unknown name
    raises ``UnknownComponentError`` (with the registry's closest matches)."""
    seen, current, reasons, by = [name], name, [], []
    for _ in range(_MAX_HOPS):
        step = _one_step(kind, current)
        if step is None:
            break
        current, reason, who = step
        if current in seen:
            raise UpgradeError(
                f"{kind} moves form a cycle: {' -> '.join([*seen, current])}. Fix: report it to "
                f"{who} (its aliases / superseded_by point back)."
            )
        seen.append(current)
        reasons += [reason] if reason else []
        by += [who] if who not in by else []
    return (current, "; ".join(reasons), ", ".join(by)) if current != name else None


def _promises(node: Any, path: str = "") -> Iterator[tuple[str, str, str]]:
    """``(dotted path, kind, name)`` of every promise in a config."""
    found = promise_kind(node)
    if found is not None and isinstance(found[1], str):
        yield path, found[0], found[1]
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _promises(value, f"{path}.{key}" if path else str(key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _promises(value, f"{path}[{i}]")


def find_moves(cfg: Any) -> tuple[list[Move], list[tuple[str, RegistryError]]]:
    """The moves of every promise in ``cfg``, and the names no installed pack offers
    (``(dotted path, error)``; the error names the closest matches)."""
    moves: list[Move] = []
    unknown: list[tuple[str, RegistryError]] = []
    for path, kind, name in _promises(cfg):
        try:
            target = moved_to(kind, name)
        except RegistryError as err:
            unknown.append((path, err))
            continue
        if target is not None:
            moves.append(Move(path, kind, name, *target))
    return moves, unknown


def _replaced(tree: Any, moves: Sequence[Move]) -> Any:
    """``tree`` with each move's name replaced at its path (what the rewrite must give)."""
    by_path = {m.path: m for m in moves}

    def walk(node: Any, path: str) -> Any:
        found = promise_kind(node)
        if isinstance(node, dict):
            out = {k: walk(v, f"{path}.{k}" if path else str(k)) for k, v in node.items()}
            if found is not None and path in by_path:
                out["@" + found[0]] = by_path[path].new
            return out
        if isinstance(node, list):
            return [walk(v, f"{path}[{i}]") for i, v in enumerate(node)]
        return node

    return walk(tree, "")


def _replacement(new: str) -> Callable[[re.Match[str]], str]:
    return lambda m: f"{m['key']}{m['q']}{new}{m['q']}"


def rewrite_text(text: str, fmt: str, moves: Sequence[Move]) -> str:
    """``text`` (a config in ``fmt``) with each move's name replaced where it is the value
    of its ``"@kind"`` key; every other character kept. Raises ``UpgradeError`` when the
    result does not parse to exactly the config with those names replaced (a layout this
    rewrite does not know: nothing is written)."""
    out = text
    for kind, old, new in sorted({(m.kind, m.old, m.new) for m in moves}):
        key = rf"""(?P<key>(["']?)@{re.escape(kind)}\2\s*[=:]\s*)"""
        value = rf"""(?P<q>["']?){re.escape(old)}(?P=q)(?![\w.:-])"""
        out = re.sub(key + value, _replacement(new), out)
    expected = _replaced(loads(text, fmt), moves)
    if loads(out, fmt) != expected:
        raise UpgradeError(
            "the rewritten config does not read back as the original with only the moved "
            "names changed (a layout this rewrite does not handle). Fix: change the names by "
            "hand: " + "; ".join(m.describe() for m in moves)
        )
    return out


def upgrade(path: str | Path) -> tuple[str, str, list[Move], list[tuple[str, RegistryError]]]:
    """``(old text, new text, moves, unknown names)`` of the config file at ``path``."""
    p = Path(path)
    load(p, interpolate_refs=False)  # the loader's checks: exists, suffix, size, parses
    text = p.read_text(encoding="utf-8")
    fmt = p.suffix.lower().lstrip(".")
    moves, unknown = find_moves(loads(text, fmt, source=str(p)))
    new = rewrite_text(text, fmt, moves) if moves else text
    return text, new, moves, unknown


def _write_new(target: Path, text: str, *, replace: bool) -> None:
    """Write ``text`` to ``target`` at once (a temporary file renamed), never over an
    existing file unless ``replace``."""
    if not replace and (target.exists() or target.is_symlink()):
        raise UsageError(
            f"{target} exists: tensorweave upgrade never overwrites a file. Fix: -o a new "
            "file, or --in-place to rewrite the config itself."
        )
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        if replace:
            os.replace(tmp, target)
        else:
            os.link(tmp, target)  # fails if the file appeared meanwhile
            os.unlink(tmp)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def add_command(subparsers: Any) -> None:
    """Add ``upgrade CONFIG [-o NEW | --in-place]``."""
    cmd = subparsers.add_parser(
        "upgrade",
        help="rewrite the component names packs declare moved (Foo.v1 -> Foo.v2), with a diff",
    )
    cmd.add_argument("config", help=f"a config file ({', '.join(FORMATS)})")
    where = cmd.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", help="write the upgraded config to this NEW file")
    where.add_argument("--in-place", action="store_true", help="rewrite CONFIG itself")
    cmd.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the diff of the upgrade of ``args.config``; write it with ``-o``/``--in-place``."""
    source = Path(args.config)
    if not source.is_file():
        raise UsageError(f"no config file at {str(source)!r}. Fix: give the path of a config.")
    try:
        old, new, moves, unknown = upgrade(source)
    except ConfigError as err:
        raise UsageError(f"cannot read {source}: {err}") from err
    for move in moves:
        print(f"moved  {move.describe()}")
    if old != new:
        sys.stdout.writelines(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"{source}",
                f"{args.output or source} (upgraded)",
            )
        )
    for path, problem in unknown:
        lines = str(problem).splitlines()
        close = [line.strip() for line in lines if "Close matches" in line]
        print(f"unknown  {path}: {lines[0]}", *close, file=sys.stderr)
    if unknown:
        print(
            f"{source}: {len(unknown)} name(s) no installed pack offers; nothing written. Fix: "
            "correct them (closest matches above) or install their pack, then run again.",
            file=sys.stderr,
        )
        return EXIT_COMPONENT
    if not moves:
        print(f"{source}: nothing to upgrade (no installed pack declares a move of its names)")
        return 0
    if args.in_place:
        _write_new(source, new, replace=True)
        print(f"rewrote {source} ({len(moves)} name(s))")
    elif args.output:
        _write_new(Path(args.output), new, replace=False)
        print(f"wrote {args.output} ({len(moves)} name(s)); {source} is unchanged")
    else:
        print("nothing written: -o NEW to write the upgraded config, or --in-place")
    return 0
