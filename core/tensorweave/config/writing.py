"""Built objects written back as config: ``graph_block`` (layers wired by node name) and
``promise_of`` (one registered component with the arguments it was made with), so that
something built in Python saves as a config that rebuilds it through the registries alone
(what a training pack's ``save`` of a whole model writes).

Layers remember the arguments they were made with; other classes a config should name
subclass ``Configurable`` (an optimizer, a schedule). A node is written as:

- an ``Input``: ``{input = [sizes but the batch's], dtype = ...}``;
- a layer of a registered class: a promise with its ``inputs`` and the other arguments
  it was given;
- a node sharing the state of an earlier one (``reuse_with``): ``{reuse = "first",
  inputs = [...]}`` and the options it changed;
- a ``Module``: a module node, its inner layers written the same way;
- a registered function applied to layers (a loss or a metric, through ``tw.lift``): a
  promise of that function;
- arithmetic on layers (``(x - mean) / std``, ``-x``, ``x[:, :2]``), ``tw.op``/``tw.ops``
  and a ``Lambda`` of a TensorFlow op: an ``Op.v1`` node naming the op
  (``function = "tf.math.subtract"``, see ``tensorweave.graph.ops.apply_op``), its
  constants written as data (a number, ``{array = [...], dtype = ...}``) and a variable as
  its shape (its value is in the checkpoint);
- a frozen layer gets ``trainable = false``.

A layer passed by keyword to a parameter typed as a layer (``mask=``, ``lengths=``) is
written as the node's name, as a config node passes it. A layer whose arguments are not
all plain data may give its config form itself (``config_arguments()``: ``KerasLayer.v1``
writes its Keras layer as Keras serializes it). Anything else has no config form: a
``Lambda`` of a Python function, a class or function no installed pack registers, an
argument that is not plain data, a layer passed by keyword to any other parameter.
All of them are reported at once, in one ``ConfigError`` naming each node.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> graph_block({"outputs": (x - 1.0) / 2.0})["nodes"]["truediv"]
{'@layers': 'Op.v1', 'function': 'tf.math.truediv', 'inputs': ['subtract'], 'args': [{'input': 0}, 2.0]}
>>> y = tw.Lambda(lambda t: t**2, x, name="y")
>>> try:
...     graph_block({"outputs": y})
... except ConfigError as err:
...     print(err.errors[0][0], "|", err.errors[0][1][:48])
model.nodes.y | Lambda 'y' applies <lambda>, which no installed
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import numpy as np
import tensorflow as tf

from tensorweave.config.errors import ConfigError, join_path
from tensorweave.config.graph_nodes import layer_keywords
from tensorweave.config.registered import NO_CONFIG_FORM_FIX, registered_name
from tensorweave.config.writing_ops import lambda_op_node, lifted_node
from tensorweave.errors import TensorweaveError
from tensorweave.graph import Input, Lambda, Layer, Lifted, Module

__all__ = ["Configurable", "promise_of", "graph_block"]


class Configurable:
    """A class whose instances remember the arguments they were made with, so that
    ``promise_of`` writes one back as a config (a ``Layer`` does it already).

    >>> class Step(Configurable):
    ...     def __init__(self, size, *, decay=0.5):
    ...         self.size, self.decay = size, decay
    >>> Step(2, decay=0.1).init_arguments
    ((2,), {'decay': 0.1})
    """

    _tw_init_args: tuple[tuple[Any, ...], dict[str, Any]]

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # the arguments go on to a base's own ``__new__`` (``tw.Stateful`` checks the
        # keywords), not to ``object.__new__``, which takes none
        following = super().__new__
        obj = following(cls) if following is object.__new__ else following(cls, *args, **kwargs)
        obj._tw_init_args = (args, kwargs)
        return obj

    @property
    def init_arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The positional and keyword arguments this object was made with."""
        args, kwargs = self._tw_init_args
        return tuple(args), dict(kwargs)


def promise_of(obj: Any, path: str = "") -> dict[str, Any]:
    """The promise table of ``obj``, an instance of a registered ``Configurable`` (or a
    layer): its registered name and the arguments it was made with, as plain data.

    >>> import tensorweave as tw
    >>> with tw.registry("demo_steps").scoped() as reg:
    ...     class Step(Configurable):
    ...         def __init__(self, size, *, decay=0.5):
    ...             self.size, self.decay = size, decay
    ...     _ = reg.register("Step.v1", Step)
    ...     promise_of(Step(2, decay=0.1))
    {'@demo_steps': 'Step.v1', 'size': 2, 'decay': 0.1}
    """
    errors: list[tuple[str, str]] = []
    out = _Writer(path, errors).promise(obj, path)
    if errors:
        raise ConfigError(errors)
    return out


def graph_block(sections: Mapping[str, Any], *, path: str = "model") -> dict[str, Any]:
    """A graph block holding every layer ``sections`` names and what they depend on:
    each section (``inputs``, ``outputs``, ``loss``...) holds a layer, a list or a table
    of layers (written as node names) or plain data (kept as it is); ``nodes`` the nodes.
    """
    errors: list[tuple[str, str]] = []
    writer = _Writer(path, errors)
    out = {key: writer.refs(value) for key, value in sections.items()}
    if errors:
        raise ConfigError(list(dict.fromkeys(errors)))
    return {**out, "nodes": writer.nodes}


class _Writer:
    """Writes the nodes of one graph block (a module's inner nodes get their own)."""

    def __init__(
        self, path: str, errors: list[tuple[str, str]], bound: Mapping[int, str] | None = None
    ) -> None:
        self.path = path
        self.errors = errors
        self.nodes: dict[str, Any] = {}
        self.names: dict[int, str] = dict(bound or {})
        self.taken = set(self.names.values())
        self.states: dict[int, Layer] = {}  # a state's first node written

    def refs(self, value: Any) -> Any:
        if isinstance(value, Layer):
            return self.node(value)
        if isinstance(value, list | tuple):
            return [self.refs(v) for v in value]
        if isinstance(value, Mapping):
            return {k: self.refs(v) for k, v in value.items()}
        return value

    def _fresh(self, layer: Layer) -> str:
        base = layer.name.rsplit("/", 1)[-1].replace(".", "_") or "node"
        name, n = base, 1
        while name in self.taken:
            n += 1
            name = f"{base}_{n}"
        self.taken.add(name)
        return name

    def node(self, layer: Layer) -> str:
        """The node name of ``layer``, written (with what it reads) on first use."""
        if id(layer) in self.names:
            return self.names[id(layer)]
        first = self._shared_with(layer)
        if first is not None:
            self.node(first)
        inputs = [self.node(i) for i in _given_inputs(layer)]
        name = self._fresh(layer)
        self.names[id(layer)] = name
        where = join_path(join_path(self.path, "nodes"), name)
        spec: dict[str, Any]
        if isinstance(layer, Input):
            spec = {"input": [-1 if d is None else d for d in layer.shape[1:]]}
            spec["dtype"] = layer.dtype.name
            if layer.sparse:
                spec["sparse"] = True
        elif first is not None:
            spec = {"reuse": self.names[id(first)], "inputs": inputs}
            spec.update(self._options(first, layer, where))
        elif isinstance(layer, Module):
            spec = {"inputs": inputs, "module": self._module(layer, where)}
        elif isinstance(layer, Lifted):
            spec = lifted_node(self, layer, inputs, where)
        elif isinstance(layer, Lambda) and lambda_op_node(self, layer, inputs, where) is not None:
            spec = lambda_op_node(self, layer, inputs, where) or {}
        elif isinstance(layer, Lambda):
            label = getattr(layer.fn, "__name__", repr(layer.fn))
            message = f"Lambda {layer.name!r} applies {label}, which no installed pack registers."
            self.errors.append((where, f"{message} {NO_CONFIG_FORM_FIX}"))
            spec = {}
        else:
            spec = {**self.promise(layer, where, n_inputs=len(inputs)), "inputs": inputs}
        if first is None and not layer.trainable:
            spec["trainable"] = False
        self.states.setdefault(id(layer.state), layer)
        self.nodes[name] = spec
        return name

    def _shared_with(self, layer: Layer) -> Layer | None:
        """The node whose state ``layer`` shares (made first), or ``None``."""
        if isinstance(layer, Input):
            return None
        given = layer._tw_init_args[1].get("share_state_with")
        if isinstance(given, Layer) and given is not layer:
            return given
        seen = self.states.get(id(layer.state))
        return seen if seen is not None and seen is not layer else None

    def _options(self, first: Layer, layer: Layer, where: str) -> dict[str, Any]:
        """The per-use options a reuse changed (a module's: those of its inner nodes)."""
        pairs = [(first, layer)]
        if isinstance(first, Module) and isinstance(layer, Module):
            pairs = list(zip(first.inner_graph.nodes, layer.inner_graph.nodes, strict=False))
        changed: dict[str, Any] = {}
        for a, b in pairs:
            if isinstance(a, Input) or type(a) is not type(b):
                continue
            old, new = a._tw_init_args[1], b._tw_init_args[1]
            for key, value in new.items():
                if key in ("name", "share_state_with") or isinstance(value, Layer):
                    continue
                if key not in old or not _same(old[key], value):
                    changed[key] = self.value(value, join_path(where, key))
        return changed

    def _module(self, module: Module, where: str) -> dict[str, Any]:
        inner = module.inner_graph
        bound: dict[int, str] = {}
        for entry in inner.inputs:
            bound[id(entry)] = entry.name.rsplit("/", 1)[-1].replace(".", "_")
        writer = _Writer(join_path(where, "module"), self.errors, bound)
        output = writer.node(module.output)
        return {
            "inputs": [bound[id(e)] for e in inner.inputs],
            "output": output,
            "nodes": writer.nodes,
        }

    def promise(self, obj: Any, where: str, *, n_inputs: int = 0) -> dict[str, Any]:
        """The promise of ``obj`` (a layer skips its first ``n_inputs`` layer arguments)."""
        cls = type(obj)
        among = ["layers"] if isinstance(obj, Layer) else None
        found = registered_name(cls, among)
        if found is None:
            what = f"{cls.__name__} {obj.name!r}" if isinstance(obj, Layer) else cls.__name__
            self.errors.append(
                (where, f"{what} is a class no installed pack registers. {NO_CONFIG_FORM_FIX}")
            )
            return {}
        args, kwargs = obj._tw_init_args
        own = getattr(obj, "config_arguments", None)
        if callable(own):  # the layer writes arguments that are not plain data itself
            try:
                args, kwargs = own()
            except (TensorweaveError, ValueError, TypeError) as err:
                self.errors.append((where, f"{cls.__name__} {getattr(obj, 'name', '')!r}: {err}"))
                return {}
        try:
            bound = inspect.signature(cls.__init__).bind(obj, *args, **kwargs)
        except TypeError as err:
            self.errors.append((where, f"{cls.__name__}: its arguments do not bind ({err})"))
            return {}
        out: dict[str, Any] = {f"@{found[0]}": found[1]}
        wired: dict[str, Any] = {}
        skipped = 0
        params = list(bound.signature.parameters.values())[1:]  # not self
        for p in params:
            if p.name not in bound.arguments or p.name in ("name", "share_state_with"):
                continue
            value = bound.arguments[p.name]
            if p.kind is inspect.Parameter.VAR_POSITIONAL:
                extra = [v for v in value if not isinstance(v, Layer)]
                if extra:
                    self.errors.append((where, f"{cls.__name__} got *args {extra!r}"))
                continue
            if p.kind is inspect.Parameter.VAR_KEYWORD:
                items = dict(value)
            elif isinstance(value, Layer) and skipped < n_inputs:
                skipped += 1  # an input: written in ``inputs``
                continue
            else:
                items = {p.name: value}
            for key, item in items.items():
                if _is_layers(item):  # a node name (or names) for a layer-typed keyword
                    wired[key] = item
                    out[key] = self.node(item) if isinstance(item, Layer) else self.refs(item)
                else:
                    out[key] = self.value(item, join_path(where, key))
        if wired:
            typed = layer_keywords({**out, "inputs": []}, set(self.names.values()), cls)
            for key in set(wired) - set(typed):
                self.errors.append(
                    (
                        join_path(where, key),
                        f"{cls.__name__} takes a layer by keyword for {key!r}, a parameter "
                        "not typed as a layer, which a config node cannot pass. Fix: type it "
                        "tw.Layer (or pass the layer among the inputs).",
                    )
                )
        return out

    def value(self, value: Any, where: str) -> Any:
        """``value`` as plain config data (a registered callable by name, a configurable
        object as a promise), or an error at ``where``."""
        if value is None or isinstance(value, bool | int | float | str):
            return value
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, tf.DType | np.dtype):
            return value.name
        if isinstance(value, list | tuple):
            return [self.value(v, where) for v in value]
        if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
            return {k: self.value(v, join_path(where, k)) for k, v in value.items()}
        if isinstance(value, Layer):
            self.errors.append(
                (
                    where,
                    f"a layer ({value.name!r}) inside an argument: a config node names "
                    "layers in `inputs` or in a layer-typed keyword. Fix: pass it as an "
                    "input.",
                )
            )
            return None
        if hasattr(value, "_tw_init_args"):
            return self.promise(value, where)
        found = registered_name(value) if callable(value) else None
        if found is not None:
            return found[1]
        self.errors.append(
            (
                where,
                f"{type(value).__name__} {value!r} is not plain data nor a registered "
                f"component. {NO_CONFIG_FORM_FIX}",
            )
        )
        return None


def _is_layers(value: Any) -> bool:
    """A layer, or a non-empty list or tuple of layers."""
    return isinstance(value, Layer) or (
        isinstance(value, list | tuple) and bool(value) and all(isinstance(v, Layer) for v in value)
    )


def _given_inputs(layer: Layer) -> tuple[Layer, ...]:
    """The layers a node was given as inputs: a module's entries and a function's layers,
    or the leading layer arguments of a layer (not the nodes it made itself, as Dropout
    its mask)."""
    if isinstance(layer, Module | Lambda | Input):
        return layer.inputs
    args = layer._tw_init_args[0]
    lead = 0
    while lead < len(args) and isinstance(args[lead], Layer):
        lead += 1
    return tuple(args[:lead])


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # arrays and friends: compare as different
        return a is b
