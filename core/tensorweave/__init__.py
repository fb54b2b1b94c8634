"""tensorweave: build, compile and train neural networks on TensorFlow 2, from plugins.

The core is small: ``Layer``, ``Input``, ``Graph``, ``Module``, ``compile`` (the graph
kernel, in ``tensorweave.graph``), and one registry per component kind (in
``tensorweave.registries``, which imports no TensorFlow). Layers, cells, losses, optimizers,
trainers and the kinds themselves come from installed plugin packs, composed by name:
``tw.layers["Linear.v1"]``, ``tw.registry("datasets")``.

``import tensorweave`` is cheap: TensorFlow is imported the first time a graph name
(``tw.Layer``, ``tw.Input``…) or a component is used, so listing plugins stays fast.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> y = (x * 2.0 + 1.0)[:, :1]
>>> tw.compile(y)([[1.0, 5.0]]).numpy().tolist()
[[3.0]]
"""

import importlib as _importlib
import typing as _typing

from tensorweave.checks import dimension, positive_int
from tensorweave.errors import (
    ArgumentError,
    BlockedPluginError,
    ComponentConflictError,
    GraphError,
    IncompatiblePluginError,
    InputValueError,
    InvalidComponentError,
    PluginLoadError,
    RegistryError,
    ShapeError,
    TensorweaveError,
    UnknownComponentError,
)
from tensorweave.keywords import check_keywords, checks_keywords
from tensorweave.lazy import lazy_exports
from tensorweave.registries import CORE_VERSION as __version__
from tensorweave.registries import (
    Alias,
    ComponentInfo,
    Counterpart,
    Kind,
    Registry,
    alias,
    catalog,
    declare_kind,
    hookimpl,
    hookspec,
    kinds,
    plugins,
    registry,
    resolve,
)

if _typing.TYPE_CHECKING:  # the lazily imported names, for type checkers
    from tensorweave import config
    from tensorweave.drawing.picture import draw
    from tensorweave.drawing.summarize import summary
    from tensorweave.graph import (
        CompiledGraph,
        Graph,
        Input,
        Lambda,
        Layer,
        LayerState,
        Lifted,
        Module,
        Precision,
        Stateful,
        compile,
        lift,
        name_scope,
        op,
        ops,
        regularization_loss,
        reset_names,
        takes_option,
        with_options,
    )

# Names that need TensorFlow, imported from tensorweave.graph on first use.
_GRAPH_NAMES = frozenset(
    {
        "CompiledGraph",
        "Graph",
        "Input",
        "Lambda",
        "Layer",
        "LayerState",
        "Lifted",
        "Module",
        "Precision",
        "Stateful",
        "compile",
        "lift",
        "name_scope",
        "op",
        "ops",
        "regularization_loss",
        "reset_names",
        "takes_option",
        "with_options",
    }
)
# Names from tensorweave.drawing (pictures and the table of layers), imported on first use.
_DRAW_NAMES = {"draw": "tensorweave.drawing.picture", "summary": "tensorweave.drawing.summarize"}
_SUBPACKAGES = frozenset({"config", "graph", "testing", "cli"})


def __getattr__(name: str) -> _typing.Any:
    """Import graph names and subpackages on first use; ``tw.<kind>`` is that kind's registry."""
    if name in _GRAPH_NAMES:
        value = getattr(_importlib.import_module("tensorweave.graph"), name)
    elif name in _DRAW_NAMES:
        value = getattr(_importlib.import_module(_DRAW_NAMES[name]), name)
    elif name in _SUBPACKAGES:
        value = _importlib.import_module(f"tensorweave.{name}")
    elif not name.startswith("_") and name in kinds():
        return registry(name)  # not cached: kinds come and go with installs
    else:
        raise AttributeError(
            f"module 'tensorweave' has no attribute {name!r}. If it is a component kind, no "
            f"installed pack declares it: `tensorweave plugins` lists the kinds, and "
            f"tw.registry({name!r}) makes a registry for a new one."
        )
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | _GRAPH_NAMES | set(_DRAW_NAMES) | _SUBPACKAGES | set(kinds()))


__all__ = [
    "__version__",
    "config",
    # graph building
    "Layer",
    "LayerState",
    "Lifted",
    "Stateful",
    "Input",
    "Lambda",
    "Graph",
    "Module",
    "compile",
    "CompiledGraph",
    "Precision",
    "draw",
    "summary",
    "lift",
    "ops",
    "op",
    "name_scope",
    "reset_names",
    "regularization_loss",
    "takes_option",
    "with_options",
    # registry and plugins
    "Registry",
    "ComponentInfo",
    "Counterpart",
    "Kind",
    "Alias",
    "alias",
    "registry",
    "kinds",
    "declare_kind",
    "resolve",
    "catalog",
    "plugins",
    "hookimpl",
    "hookspec",
    # errors
    "TensorweaveError",
    "RegistryError",
    "UnknownComponentError",
    "ComponentConflictError",
    "PluginLoadError",
    "InvalidComponentError",
    "IncompatiblePluginError",
    "BlockedPluginError",
    "GraphError",
    "ShapeError",
    "InputValueError",
    "ArgumentError",
    # argument checks for components
    "positive_int",
    "dimension",
    "check_keywords",
    "checks_keywords",
    # for packs
    "lazy_exports",
]
