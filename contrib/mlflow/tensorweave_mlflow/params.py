"""A filled config as MLflow params and tags: plain strings, MLflow's key and value limits.

MLflow params are flat ``key -> string`` pairs: a key of letters, digits and ``_ - . / :``
and spaces (at most 250 characters), a value of at most 500 characters on servers before
MLflow 2 (later ones take 6000; this pack keeps to 500 so every server takes its params).
``flatten`` turns the filled config (``config.json`` of a run) into them: nested tables
become dotted keys, list items their index, a block's ``"@layers"`` key ``:layers`` (``@``
is not allowed in a key), and a longer value is cut with a note saying how much was left
out (the full config is the run's ``config.json`` artifact). ``provider_tags`` lists the
distributions that provided the config's components (its ``"@provider"`` entries).

>>> params = flatten({"model": {"nodes": {"h": {"@layers": "FC.v1", "n_units": 64}}},
...                   "train": {"epochs": 2, "devices": None, "lr": [0.1, 0.01]}})
>>> for key, value in params.items():
...     print(f"{key} = {value}")
model.nodes.h:layers = FC.v1
model.nodes.h.n_units = 64
train.epochs = 2
train.devices = None
train.lr.0 = 0.1
train.lr.1 = 0.01
>>> len(flatten({"x": "a" * 600})["x"])
500
>>> provider_tags({"h": {"@layers": "FC.v1", "@provider": "tensorweave-layers 0.1.0"}})
{'tensorweave.provider.tensorweave-layers': '0.1.0'}
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = [
    "PARAM_VALUE_LIMIT",
    "KEY_LIMIT",
    "flatten",
    "param_value",
    "provider_tags",
    "mlflow_key",
]

PARAM_VALUE_LIMIT = 500  # MLflow < 2's limit; later servers take 6000
KEY_LIMIT = 250  # MLflow's limit on param, metric and tag keys
_BAD = re.compile(r"[^\w\-./: ]")


def mlflow_key(key: str) -> str:
    """``key`` as MLflow takes it: other characters become ``_``, at most 250 characters.

    >>> mlflow_key("val_loss"), mlflow_key("a@b[0]")
    ('val_loss', 'a_b_0_')
    """
    return _BAD.sub("_", key)[:KEY_LIMIT]


def param_value(value: Any, limit: int = PARAM_VALUE_LIMIT) -> str:
    """``value`` as a param's string (JSON for tables and lists), cut to ``limit``
    characters with a note of how many were left out.

    >>> param_value(True), param_value(0.5), param_value({"a": 1})
    ('True', '0.5', '{"a": 1}')
    >>> param_value("x" * 60, limit=40)
    'xxxxxxxxxxxx... (+48 chars: config.json)'
    """
    text = value if isinstance(value, str) else _text(value)
    if len(text) <= limit:
        return text
    for keep in range(limit, -1, -1):  # the note's width depends on how much is cut
        cut = f"{text[:keep]}... (+{len(text) - keep} chars: config.json)"
        if len(cut) <= limit:
            return cut
    return text[:limit]


def _text(value: Any) -> str:
    if isinstance(value, Mapping | list | tuple):
        return json.dumps(value, default=str)
    return str(value)


def _items(value: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, Mapping) and value:
        for key, item in value.items():
            key = str(key)
            if key == "@provider":
                continue  # a tag (provider_tags), not a parameter
            if key.startswith("@"):
                yield f"{prefix}:{key[1:]}" if prefix else key[1:], item
                continue
            yield from _items(item, f"{prefix}.{key}" if prefix else key)
    elif (
        isinstance(value, list | tuple)
        and value
        and any(isinstance(v, Mapping | list | tuple) for v in value)
    ):
        for index, item in enumerate(value):
            yield from _items(item, f"{prefix}.{index}")
    elif isinstance(value, list | tuple) and value:
        for index, item in enumerate(value):
            yield f"{prefix}.{index}", item
    else:
        yield prefix, value


def flatten(config: Mapping[str, Any], limit: int = PARAM_VALUE_LIMIT) -> dict[str, str]:
    """The config as MLflow params: dotted keys (``mlflow_key``), string values of at most
    ``limit`` characters (``param_value``). Keys that coincide after cleaning keep the
    first value."""
    params: dict[str, str] = {}
    for key, value in _items(config, ""):
        params.setdefault(mlflow_key(key or "config"), param_value(value, limit))
    return params


def provider_tags(config: Any) -> dict[str, str]:
    """``{"tensorweave.provider.<distribution>": version}`` for every ``"@provider"`` of the
    config (``"tensorweave-layers 0.1.0"``)."""
    tags: dict[str, str] = {}

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            provider = value.get("@provider")
            if isinstance(provider, str) and provider.strip():
                name, _, version = provider.strip().partition(" ")
                tags[mlflow_key(f"tensorweave.provider.{name}")] = version.strip() or "?"
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    walk(config)
    return dict(sorted(tags.items()))
