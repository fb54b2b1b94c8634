"""``tw.config``: compose components by name in a config file, validated before building.

A config is plain data (TOML, JSON, or YAML with PyYAML). Tables with one ``"@kind"`` key
are *promises* of registered components, built depth-first through the registries only;
tables with a ``nodes`` table are layer graphs wired by node name. See the modules:

- ``loading``: ``load``, ``loads``, ``--a.b.c=value`` overrides and ``${a.b}`` references;
- ``resolve``: ``validate`` (a ``Plan``: every problem with its dotted path, every block
  looked up once) and ``build`` (from the plan) or ``resolve`` (both);
- ``resolver``: ``lookup``, the one place a registered name is looked up;
- ``graphs``: graph blocks (inputs, layers, reuse, modules);
- ``fill``: defaults, providers and versions written out (``fill``, ``save``);
- ``writing``: built objects written back as config (``graph_block``, ``promise_of``,
  ``registered_name``; ``Configurable`` objects remember their arguments).

>>> import tensorweave as tw
>>> from tensorweave import config
>>> cfg = config.loads('''
... [train]
... epochs = 2
... [model.nodes]
... x = { input = [3] }
... ''')
>>> built = config.resolve(config.apply_overrides(cfg, ["--train.epochs=4"]))
>>> built["train"]["epochs"], built["model"]["x"].shape
(4, (None, 3))
"""

from tensorweave.config.errors import ConfigError, Problems
from tensorweave.config.fill import fill, plain, save
from tensorweave.config.graphs import ConfigGraph, is_graph_block
from tensorweave.config.loading import (
    apply_overrides,
    get_path,
    interpolate,
    load,
    loads,
    parse_override,
    parse_value,
)
from tensorweave.config.promises import is_promise, promise_kind
from tensorweave.config.registered import registered_name
from tensorweave.config.resolve import build, resolve, resolve_graph, validate
from tensorweave.config.resolver import Block, CheckedStep, Plan, Section, lookup, registered
from tensorweave.config.schema import Param, check_type, params_of
from tensorweave.config.writing import Configurable, graph_block, promise_of

__all__ = [
    "Block",
    "CheckedStep",
    "ConfigError",
    "Plan",
    "Problems",
    "ConfigGraph",
    "Configurable",
    "Param",
    "Section",
    "apply_overrides",
    "build",
    "check_type",
    "fill",
    "get_path",
    "graph_block",
    "interpolate",
    "is_graph_block",
    "is_promise",
    "load",
    "loads",
    "lookup",
    "params_of",
    "plain",
    "parse_override",
    "parse_value",
    "promise_kind",
    "promise_of",
    "registered",
    "registered_name",
    "resolve",
    "resolve_graph",
    "save",
    "validate",
]
