"""Reading config files, applying ``--a.b.c=value`` overrides and ``${a.b}`` interpolation.

Configs are plain data: TOML (always), JSON, and YAML when PyYAML is installed. Nothing in
a file is executed; YAML is read with ``safe_load``.

- Overrides name a dotted path and a value written as in TOML: ``--train.epochs=3`` gives
  the int ``3``, ``--opt.lr=1e-3`` a float, ``--x.flag=true`` a bool, ``--x.dims=[1, 2]``
  a list, ``--x.name=relu`` a string (bare words that are not TOML values stay strings),
  ``--x.v=null`` gives ``None``; on a key the component does not take, ``null`` drops it
  (after switching a component: ``--init.@initializers=zeros --init.stddev=null``).
- ``${section.key}`` refers to another value: alone in a string it takes that value with
  its type; inside a longer string it is formatted in. References may chain; a cycle is
  reported.

>>> cfg = loads('[train]\\nepochs = 2\\n[log]\\nmsg = "epochs=${train.epochs}"\\nn = "${train.epochs}"')
>>> cfg = interpolate(apply_overrides(cfg, ["--train.epochs=5"]))
>>> cfg["train"]["epochs"], cfg["log"]["msg"], cfg["log"]["n"]
(5, 'epochs=5', 5)
"""

from __future__ import annotations

import copy
import difflib
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tensorweave.config.errors import ConfigError, join_path

__all__ = [
    "load",
    "loads",
    "parse_override",
    "parse_value",
    "apply_overrides",
    "interpolate",
    "get_path",
    "check_size",
    "FORMATS",
]

FORMATS = (".toml", ".json", ".yaml", ".yml")
_REF = re.compile(r"\$\{([^}]+)\}")

#: Limits that keep hostile or mistaken files from hanging or exhausting memory: the
#: file's size, the nesting depth, and the size of the config once YAML aliases and
#: ``${...}`` references are expanded (values counted one each, strings by length / 64).
MAX_FILE_BYTES = 10_000_000
MAX_DEPTH = 100
MAX_NODES = 200_000
MAX_CHARS = 10_000_000


def loads(text: str, fmt: str = "toml", *, source: str = "") -> dict[str, Any]:
    """Parse config ``text`` in ``fmt`` (``"toml"``, ``"json"`` or ``"yaml"``)."""
    fmt = fmt.lower().lstrip(".")
    try:
        if fmt == "toml":
            data: Any = tomllib.loads(text)
        elif fmt == "json":
            data = json.loads(text)
        elif fmt in ("yaml", "yml"):
            try:
                import yaml
            except ImportError as err:
                raise ConfigError(
                    [
                        (
                            "",
                            "YAML configs need PyYAML: pip install 'tensorweave[yaml]' (or use TOML)",
                        )
                    ],
                    source=source,
                ) from err
            data = yaml.safe_load(text)
        else:
            raise ConfigError(
                [("", f"unknown config format {fmt!r}; use {FORMATS}")], source=source
            )
    except ConfigError:
        raise
    except Exception as err:  # a syntax error of any of the parsers
        raise ConfigError([("", f"cannot parse {fmt.upper()}: {err}")], source=source) from err
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError([("", f"a config must be a table/mapping, got {type(data).__name__}")])
    check_size(data, source=source)
    return data


def _measure(value: Any) -> tuple[int, int]:
    """``(values, characters)`` in ``value`` (already bounded by ``check_size``)."""
    nodes = chars = 0
    stack = [value]
    while stack:
        node = stack.pop()
        nodes += 1
        if isinstance(node, str):
            chars += len(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return nodes, chars


def check_size(data: Any, *, source: str = "") -> None:
    """Raise ``ConfigError`` (with the path where a limit was crossed) when ``data`` nests
    deeper than ``MAX_DEPTH`` or expands (YAML aliases share nodes: each use counts) past
    ``MAX_NODES`` values or ``MAX_CHARS`` characters. Iterative, and stops at the limit, so
    a billion-laughs file is refused quickly.

    >>> a = ["x"] * 10
    >>> for _ in range(8):
    ...     a = [a] * 10
    >>> check_size({"lol": a})
    Traceback (most recent call last):
    ...
    tensorweave.config.errors.ConfigError: the config has 1 problem:
      lol[0][0][0][0][0]: the config expands to more than 200000 values (YAML aliases or ${...} references nested to multiply it?); refusing it
    """
    nodes = chars = 0
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH:
            raise ConfigError(
                [(path, f"the config nests deeper than {MAX_DEPTH} levels; refusing it")],
                source=source,
            )
        if nodes > MAX_NODES:
            raise ConfigError(
                [
                    (
                        path,
                        f"the config expands to more than {MAX_NODES} values (YAML aliases or "
                        "${...} references nested to multiply it?); refusing it",
                    )
                ],
                source=source,
            )
        if isinstance(node, str):
            chars += len(node)
            if chars > MAX_CHARS:
                raise ConfigError(
                    [(path, f"the config's strings exceed {MAX_CHARS} characters; refusing it")],
                    source=source,
                )
        elif isinstance(node, dict):
            stack.extend((v, join_path(path, str(k)), depth + 1) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, join_path(path, i), depth + 1) for i, v in enumerate(node))


def load(
    path: str | Path,
    overrides: Iterable[str] | Mapping[str, Any] | None = None,
    *,
    interpolate_refs: bool = True,
) -> dict[str, Any]:
    """Read a config file, apply ``overrides`` then interpolate ``${...}`` references.

    ``overrides`` is a list like ``["--train.epochs=3", "model.layers.h.n_units=8"]`` or a
    mapping ``{"train.epochs": 3}``. The format comes from the file's suffix.
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError([("", f"no config file at {str(p)!r}")], source=str(p))
    if p.suffix.lower() not in FORMATS:
        raise ConfigError([("", f"unknown config suffix {p.suffix!r}; use one of {FORMATS}")])
    if p.stat().st_size > MAX_FILE_BYTES:
        raise ConfigError(
            [("", f"{str(p)!r} is larger than {MAX_FILE_BYTES} bytes; not a config file?")],
            source=str(p),
        )
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(
            [("", f"{str(p)!r} is not UTF-8 text (byte {err.start}): is it a binary file?")],
            source=str(p),
        ) from err
    if "\x00" in text:
        raise ConfigError(
            [("", f"{str(p)!r} holds NUL bytes: is it a binary file?")], source=str(p)
        )
    cfg = loads(text, p.suffix, source=str(p))
    cfg = apply_overrides(cfg, overrides or [])
    return interpolate(cfg) if interpolate_refs else cfg


def parse_value(text: str) -> Any:
    """A command-line value, typed as TOML would (bare words stay strings).

    >>> parse_value("3"), parse_value("0.5"), parse_value("true"), parse_value("relu")
    (3, 0.5, True, 'relu')
    >>> parse_value("[1, 2]"), parse_value("null"), parse_value('"3"')
    ([1, 2], None, '3')

    A list's bare words are strings too (node names, as a shell passes them):

    >>> parse_value("[a, b]"), parse_value("[x, [1, 2.5], 'c, d']")
    (['a', 'b'], ['x', [1, 2.5], 'c, d'])
    """
    stripped = text.strip()
    if stripped.lower() in ("null", "none", "~"):
        return None
    try:
        return tomllib.loads(f"v = {stripped}")["v"]
    except tomllib.TOMLDecodeError:
        pass
    if stripped.startswith("[") and stripped.endswith("]"):
        items = _split_items(stripped[1:-1])
        if items is not None:
            return [parse_value(item) for item in items]
    if stripped.lower() in ("yes", "on"):
        return True
    if stripped.lower() in ("no", "off"):
        return False
    return text


def _split_items(body: str) -> list[str] | None:
    """The comma-separated items of a list's ``body`` (nested brackets and quotes kept
    whole), or ``None`` when the brackets or quotes do not match."""
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(body):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    if quote or depth:
        return None
    items.append(body[start:])
    items = [item.strip() for item in items]
    if items and not items[-1]:  # a trailing comma
        items.pop()
    return None if any(not item for item in items) else items


def parse_override(arg: str) -> tuple[str, Any]:
    """``"--a.b.c=value"`` -> ``("a.b.c", typed value)``.

    >>> parse_override("--train.epochs=3")
    ('train.epochs', 3)
    """
    body = arg[2:] if arg.startswith("--") else arg
    if "=" not in body:
        raise ConfigError([(body, f"override {arg!r} needs a value: --{body}=VALUE")])
    key, value = body.split("=", 1)
    key = key.strip()
    if not key or any(not part for part in key.split(".")):
        raise ConfigError([(key, f"override {arg!r} has an empty path segment")])
    return key, parse_value(value)


def apply_overrides(
    cfg: Mapping[str, Any], overrides: Iterable[str] | Mapping[str, Any]
) -> dict[str, Any]:
    """A copy of ``cfg`` with each dotted-path override set (missing tables are created)."""
    out = copy.deepcopy(dict(cfg))
    pairs = (
        list(overrides.items())
        if isinstance(overrides, Mapping)
        else [parse_override(a) for a in overrides]
    )
    errors = []
    for key, value in pairs:
        node: Any = out
        parts = key.split(".")
        done = ""
        for part in parts[:-1]:
            parent, done = done, join_path(done, part)
            child = node.get(part) if isinstance(node, dict) else None
            if child is None and parent.rpartition(".")[2] == "nodes" and node:
                errors.append((key, _no_node(part, parent, node)))
                break
            if child is None:
                child = node[part] = {}
            if not isinstance(child, dict):
                errors.append((key, f"cannot override inside {done!r}, which is {child!r}"))
                break
            node = child
        else:
            node[parts[-1]] = value
    if errors:
        raise ConfigError(errors)
    return out


def _no_node(name: str, where: str, nodes: Mapping[str, Any]) -> str:
    close = difflib.get_close_matches(name, [str(n) for n in nodes], n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    known = ", ".join(sorted(str(n) for n in nodes))
    return (
        f"no node {name!r} in {where!r} to override.{hint} Nodes: {known}. (A new node is "
        f"given whole: --{where}.{name}='{{ \"@layers\" = ..., inputs = [...] }}'.)"
    )


def get_path(cfg: Any, dotted: str) -> Any:
    """The value at ``dotted`` (``KeyError`` naming the missing part when absent)."""
    node = cfg
    done = ""
    for part in dotted.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise KeyError(f"{join_path(done, part)!r} is not in the config")
        done = join_path(done, part)
    return node


def interpolate(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Replace every ``${a.b}`` by the value it names; all problems reported at once.

    Each reference is expanded once (memoised), chains longer than ``MAX_DEPTH`` are
    refused, and the result is checked with ``check_size`` as it grows, so references that
    multiply each other end quickly with a ``ConfigError``.
    """
    root = copy.deepcopy(dict(cfg))
    errors: list[tuple[str, str]] = []
    memo: dict[str, Any] = {}
    budget = {"nodes": 0, "chars": 0}

    def value_of(ref: str, path: str, stack: tuple[str, ...]) -> Any:
        if ref in stack:
            errors.append((path, "interpolation cycle: " + " -> ".join([*stack, ref])))
            return None
        if len(stack) >= MAX_DEPTH:
            raise ConfigError([(path, f"references chain deeper than {MAX_DEPTH} levels")])
        if ref not in memo:
            try:
                target = get_path(root, ref)
            except KeyError as err:
                errors.append((path, f"${{{ref}}} refers to nothing: {err.args[0]}"))
                return None
            value = walk(target, ref, (*stack, ref))
            check_size(value)
            memo[ref] = (value, *_measure(value))
        value, nodes, chars = memo[ref]
        budget["nodes"] += nodes
        budget["chars"] += chars
        if budget["nodes"] > MAX_NODES or budget["chars"] > MAX_CHARS:
            raise ConfigError(
                [
                    (
                        path,
                        f"${{...}} references expand past {MAX_NODES} values or {MAX_CHARS} "
                        "characters (references nested to multiply each other?); refusing it",
                    )
                ]
            )
        return copy.deepcopy(value) if nodes > 1 else value

    def fmt(path: str, stack: tuple[str, ...], m: re.Match[str]) -> str:
        return str(value_of(m[1].strip(), path, stack))

    def walk(node: Any, path: str, stack: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            return {k: walk(v, join_path(path, k), stack) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, join_path(path, i), stack) for i, v in enumerate(node)]
        if isinstance(node, str) and "${" in node:
            whole = _REF.fullmatch(node.strip())
            if whole:
                return value_of(whole[1].strip(), path, stack)
            return _REF.sub(lambda m: fmt(path, stack, m), node)
        return node

    out = walk(root, "", ())
    if errors:
        raise ConfigError(list(dict.fromkeys(errors)))
    check_size(out)
    return out
