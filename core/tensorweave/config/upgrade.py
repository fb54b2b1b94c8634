"""Upgrade a config: rewrite the component names their packs declare moved, as text.

Every ``"@kind" = "Name"`` of a config is looked up (``tw.registries.moved_to``: a
``tw.alias`` entry point, or ``superseded_by`` on a component kept for old configs); a move is
followed to its end and a qualified ``"dist:Foo.v1"`` keeps its ``dist:``. The config is
rewritten as text, only those names, so its comments and layout stay (TOML, JSON, YAML); the
result is parsed again and must be exactly the config with those names changed, else
``UpgradeError`` (nothing is rewritten silently). A name no installed pack offers is
reported with the registry's error (its closest matches), not guessed.
``tensorweave upgrade CONFIG`` (the train pack) prints the diff and writes the file.

>>> import tensorweave as tw
>>> text = '[model.nodes.h]\\n"@doc_up" = "Foo.v1"  # hidden\\n'
>>> with tw.registry("doc_up").scoped() as reg:
...     reg.register("Foo.v2", lambda x: x)
...     reg.deprecate("Foo.v1", "Foo.v2")
...     done = upgrade_text(text, "toml")
<function <lambda> at ...>
>>> print(done.new, end="")
[model.nodes.h]
"@doc_up" = "Foo.v2"  # hidden
>>> [m.describe() for m in done.moved]
['model.nodes.h: doc_up Foo.v1 -> Foo.v2 (declared by local)']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tensorweave.config.errors import join_path
from tensorweave.config.loading import load, loads
from tensorweave.config.promises import promise_kind
from tensorweave.errors import RegistryError, TensorweaveError
from tensorweave.registries.moves import Move, moved_to

__all__ = [
    "MovedName",
    "Upgrade",
    "UpgradeError",
    "find_moves",
    "rewrite_text",
    "upgrade_file",
    "upgrade_text",
]


@dataclass(frozen=True)
class MovedName:
    """A name to rewrite: the promise at dotted ``path`` and its ``Move``."""

    path: str
    move: Move

    def describe(self) -> str:
        """``"model.nodes.h: layers Foo.v1 -> Foo.v2 (declared by my-pack 0.2): why"``."""
        return f"{self.path}: {self.move.describe()}"


@dataclass(frozen=True)
class Upgrade:
    """A config's text before (``old``) and after (``new``) the upgrade, the names
    rewritten, and the names no installed pack offers (``(dotted path, error)``)."""

    old: str
    new: str
    moved: list[MovedName] = field(default_factory=list)
    unknown: list[tuple[str, RegistryError]] = field(default_factory=list)


class UpgradeError(TensorweaveError):
    """A rewrite that did not come out exact (a layout the text rewrite does not handle)."""


def _promises(node: Any, path: str = "") -> Iterator[tuple[str, str, str]]:
    """``(dotted path, kind, name)`` of every promise in a config."""
    found = promise_kind(node)
    if found is not None and isinstance(found[1], str):
        yield path, found[0], found[1]
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _promises(value, join_path(path, str(key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _promises(value, join_path(path, i))


def find_moves(cfg: Any) -> tuple[list[MovedName], list[tuple[str, RegistryError]]]:
    """The declared moves of every promise in ``cfg``, and the names no installed pack
    offers (``(dotted path, error)``; the error names the closest matches)."""
    moved: list[MovedName] = []
    unknown: list[tuple[str, RegistryError]] = []
    for path, kind, name in _promises(cfg):
        try:
            move = moved_to(kind, name)
        except RegistryError as err:
            unknown.append((path, err))
            continue
        if move is not None:
            moved.append(MovedName(path, move))
    return moved, unknown


def _replaced(tree: Any, moved: Sequence[MovedName]) -> Any:
    """``tree`` with each move's name replaced at its path (what the rewrite must give)."""
    by_path = {m.path: m.move.new for m in moved}

    def walk(node: Any, path: str) -> Any:
        if isinstance(node, dict):
            out = {k: walk(v, join_path(path, str(k))) for k, v in node.items()}
            found = promise_kind(node)
            if found is not None and path in by_path:
                out["@" + found[0]] = by_path[path]
            return out
        if isinstance(node, list):
            return [walk(v, join_path(path, i)) for i, v in enumerate(node)]
        return node

    return walk(tree, "")


def _replacement(new: str) -> Callable[[re.Match[str]], str]:
    return lambda m: f"{m['key']}{m['q']}{new}{m['q']}"


def rewrite_text(text: str, fmt: str, moved: Sequence[MovedName]) -> str:
    """``text`` (a config in ``fmt``: ``"toml"``, ``"json"``, ``"yaml"``) with each moved
    name replaced where it is the value of its ``"@kind"`` key, every other character kept.
    Raises ``UpgradeError`` when the result does not parse to exactly the config with those
    names replaced.

    >>> m = MovedName("a", Move("layers", "Foo.v1", "Foo.v2"))
    >>> rewrite_text('{"a": {"@layers": "Foo.v1"}}', "json", [m])
    '{"a": {"@layers": "Foo.v2"}}'
    """
    out = text
    for kind, old, new in sorted({(m.move.kind, m.move.name, m.move.new) for m in moved}):
        key = rf"""(?P<key>(["']?)@{re.escape(kind)}\2\s*[=:]\s*)"""
        value = rf"""(?P<q>["']?){re.escape(old)}(?P=q)(?![\w.:-])"""
        out = re.sub(key + value, _replacement(new), out)
    if loads(out, fmt) != _replaced(loads(text, fmt), moved):
        raise UpgradeError(
            "the rewritten config does not read back as the original with only the moved "
            "names changed (a layout this rewrite does not handle); nothing was rewritten. "
            "Fix: change the names by hand: " + "; ".join(m.describe() for m in moved)
        )
    return out


def upgrade_text(text: str, fmt: str, *, source: str = "") -> Upgrade:
    """The ``Upgrade`` of config ``text`` in ``fmt`` (see the module docstring)."""
    moved, unknown = find_moves(loads(text, fmt, source=source))
    return Upgrade(text, rewrite_text(text, fmt, moved) if moved else text, moved, unknown)


def upgrade_file(path: str | Path) -> Upgrade:
    """The ``Upgrade`` of the config file at ``path`` (read with the loader's checks: it
    exists, its suffix, its size, it parses; ``ConfigError`` otherwise). Nothing is written."""
    p = Path(path)
    load(p, interpolate_refs=False)
    return upgrade_text(p.read_text(encoding="utf-8"), p.suffix, source=str(p))
