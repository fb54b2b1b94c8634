"""tensorweave: build, compile and train neural networks on TensorFlow 2, from plugins.

The core is small: ``Layer``, ``Input``, ``Graph``, ``Module``, ``compile`` and one registry
per component kind. Layers, cells, losses, optimizers and trainers come from installed
plugin packages and are composed by name.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> y = (x * 2.0 + 1.0)[:, :1]
>>> tw.compile(y)([[1.0, 5.0]]).numpy().tolist()
[[3.0]]
"""

from tensorweave import config, ops
from tensorweave.checks import ArgumentError, dimension, positive_int
from tensorweave.compile import CompiledGraph, compile
from tensorweave.discovery import CORE_VERSION as __version__
from tensorweave.errors import (
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
from tensorweave.graph import Graph
from tensorweave.hookspecs import hookimpl, hookspec
from tensorweave.input import Input
from tensorweave.lambda_layer import Lambda
from tensorweave.layer import Layer, LayerState
from tensorweave.module import Module
from tensorweave.naming import name_scope, reset_names
from tensorweave.ops import op
from tensorweave.plugins import plugins
from tensorweave.registries import (
    activations,
    callbacks,
    cells,
    initializers,
    kinds,
    layers,
    losses,
    metrics,
    optimizers,
    processors,
    registry,
    schedules,
    trainers,
)
from tensorweave.registry import Alias, ComponentInfo, Registry, alias

__all__ = [
    "__version__",
    "config",
    # graph building
    "Layer",
    "LayerState",
    "Input",
    "Lambda",
    "Graph",
    "Module",
    "compile",
    "CompiledGraph",
    "ops",
    "op",
    "name_scope",
    "reset_names",
    # registry and plugins
    "Registry",
    "ComponentInfo",
    "Alias",
    "alias",
    "registry",
    "kinds",
    "layers",
    "cells",
    "losses",
    "metrics",
    "optimizers",
    "schedules",
    "trainers",
    "callbacks",
    "initializers",
    "activations",
    "processors",
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
]
