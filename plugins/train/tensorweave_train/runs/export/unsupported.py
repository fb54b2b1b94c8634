"""The error of an export whose format cannot express an op: it names each layer emitting
the op (traced layer by layer), the layer's registered name and the plugin providing it."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import metadata
from typing import TYPE_CHECKING, Any

import tensorflow as tf

import tensorweave as tw
from tensorweave.graph.compile import trace
from tensorweave_train.runs.export.formats import ExportError, ExportRequest
from tensorweave_train.runs.export.model_json import installed_version

if TYPE_CHECKING:
    from tensorweave_train.loop.model import Model

__all__ = ["unsupported_error"]


def _layer_provider(layer: tw.Layer) -> str:
    """The distribution (and version) providing a layer's class, from its module."""
    top = type(layer).__module__.split(".", 1)[0]
    for dist in metadata.packages_distributions().get(top, []):
        return f"{dist} {installed_version(dist)}".strip()
    return top


def _registered_as(layer: tw.Layer) -> tuple[str, str]:
    """The registered name of a layer's class and its provider (``"", module's dist``)."""
    cls = type(layer)
    target = f"{cls.__module__}:{cls.__qualname__}"
    for info in tw.registry("layers").infos():
        if info.target == target:
            return info.name, f"{info.distribution} {info.version}".strip()
    return "", _layer_provider(layer)


def _ops_by_layer(model: Model, specs: list[tf.TensorSpec]) -> list[tuple[tw.Layer, set[str]]]:
    """The op types each layer of the inference graph emits, traced layer by layer."""
    graph = model.inference_graph
    found: list[tuple[tw.Layer, set[str]]] = []

    def traced(*args: Any) -> Any:
        values: dict[int, Any] = {id(i): a for i, a in zip(graph.inputs, args)}
        last = None
        for node in graph.nodes:
            if id(node) in values:
                continue
            fg = tf.compat.v1.get_default_graph()
            before = len(fg.get_operations())
            ins = [values[id(i)] for i in node.inputs if id(i) in values]
            values[id(node)] = last = node.compute(*ins) if node.inputs else node.compute()
            found.append((node, {op.type for op in fg.get_operations()[before:]}))
        return last

    try:
        trace(traced, *specs)  # the core's one way to trace (no autograph: a Python loop)
    except Exception:
        pass
    return found


def unsupported_error(
    model: Model, request: ExportRequest, err: BaseException, config: Any
) -> ExportError:
    """The one error of an op the format lacks: the layer, its op, the format, the plugin."""
    ops = list(getattr(err, "ops", []) or [])
    nodes = (config or {}).get("model", {}).get("nodes", {}) if isinstance(config, Mapping) else {}
    lines = []
    specs = [tf.TensorSpec(i.shape, i.dtype) for i in model.inputs]  # the model's own
    for layer, types in _ops_by_layer(model, specs):
        for op in ops:
            if op in types:
                short = layer.name.rsplit("/", 1)[-1]
                node = nodes.get(short, {}) if isinstance(nodes, Mapping) else {}
                registered, provider = _registered_as(layer)
                if isinstance(node, Mapping) and node.get("@layers"):
                    registered = str(node["@layers"])
                    provider = str(node.get("@provider") or provider)
                component = registered or type(layer).__name__
                lines.append(
                    f"  layer {short!r} ({component}, from {provider}) emits the TensorFlow op "
                    f"{op}, which the {request.format} converter cannot express"
                )
    if not lines:
        named = ", ".join(ops) or "an op"
        lines.append(f"  {named} (no single layer of the model emits it alone)")
    return ExportError(
        f"cannot export to {request.format}:\n" + "\n".join(dict.fromkeys(lines)) + "\n"
        f"Nothing was written. Fix: export to another format (tensorweave export --format "
        "lists them), or replace the layer with one the format supports (docs/deploy.md has "
        f"the table of layers and formats). Converter: {str(err).splitlines()[0][:300] if str(err) else type(err).__name__}"
    )
