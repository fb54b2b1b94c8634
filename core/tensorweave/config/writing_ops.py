"""Writing arithmetic on layers, ``tw.op``/``tw.ops``, a ``Lambda`` of a TensorFlow op and a
registered function applied to layers (``tw.lift``) as config nodes: an ``Op.v1`` node naming
the op, its constants as data and a variable as its shape (its value is in the checkpoint).
Used by ``writing``'s graph writer for those nodes.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> tw.config.graph_block({"outputs": -x})["nodes"]["neg"]["function"]
'tf.math.negative'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import numpy as np
import tensorflow as tf

from tensorweave.config.errors import join_path
from tensorweave.config.registered import NO_CONFIG_FORM_FIX, registered_name
from tensorweave.graph import Lambda, Lifted
from tensorweave.graph.lift import Slot
from tensorweave.graph.ops import apply_op, op_path

__all__ = ["MAX_CONSTANT", "ValueWriter", "op_node", "lambda_op_node", "op_data", "lifted_node"]

MAX_CONSTANT = 65536  # the values of an array written in a config as data


class ValueWriter(Protocol):
    """What writes an argument as config data and collects the problems (``writing``'s
    graph writer)."""

    errors: list[tuple[str, str]]

    def value(self, value: Any, where: str) -> Any: ...


def op_node(
    writer: ValueWriter,
    function: Any,
    call_args: Iterable[Any],
    call_kwargs: Mapping[str, Any],
    inputs: list[str],
    where: str,
) -> dict[str, Any] | None:
    """An ``Op.v1`` node applying ``function`` (an op a config may name), or ``None``."""
    path = op_path(function)
    found = registered_name(apply_op, ["layers"]) if path is not None else None
    if found is None:
        return None
    args = [op_data(writer, a, where) for a in call_args]
    kwargs = {k: op_data(writer, v, join_path(where, k)) for k, v in call_kwargs.items()}
    spec: dict[str, Any] = {f"@{found[0]}": found[1], "function": path, "inputs": inputs}
    if args != [{"input": i} for i in range(len(inputs))]:
        spec["args"] = args
    if kwargs:
        spec["kwargs"] = kwargs
    return spec


def lambda_op_node(
    writer: ValueWriter, layer: Lambda, inputs: list[str], where: str
) -> dict[str, Any] | None:
    """A ``Lambda`` of an op a config may name, given only the op's keywords."""
    own = set(layer._tw_init_args[1]) - {"name", "share_state_with"}
    if own - set(layer._fn_kwargs) or op_path(layer.fn) is None:
        return None
    slots = [Slot(i) for i in range(len(inputs))]
    return op_node(writer, layer.fn, slots, layer._fn_kwargs, inputs, where)


def op_data(writer: ValueWriter, value: Any, where: str) -> Any:
    """An argument of an op as data: an input, a constant, a variable's shape."""
    if isinstance(value, Slot):
        return {"input": value.index}
    if isinstance(value, list | tuple):
        return [op_data(writer, v, where) for v in value]
    if isinstance(value, tf.Variable):
        shape = value.shape.as_list()
        return {"variable": shape, "dtype": value.dtype.name, "trainable": value.trainable}
    if isinstance(value, np.ndarray | tf.Tensor):
        array = np.asarray(value)
        if array.size > MAX_CONSTANT:
            writer.errors.append(
                (
                    where,
                    f"a constant of {array.size} values is too large to write in a "
                    f"config (at most {MAX_CONSTANT}). Fix: make it a variable "
                    "(tf.Variable: its value goes to the checkpoint) or a layer's weight.",
                )
            )
            return None
        return {"array": array.tolist(), "dtype": array.dtype.name}
    return writer.value(value, where)


def lifted_node(writer: ValueWriter, node: Lifted, inputs: list[str], where: str) -> dict[str, Any]:
    found = registered_name(node.function)
    label = getattr(node.function, "__name__", repr(node.function))
    if found is None:
        op = op_node(writer, node.function, node.call_args, node.call_kwargs, inputs, where)
        if op is not None:
            return op
        module = getattr(node.function, "__module__", "") or ""
        why = (
            "a TensorFlow function a config may not name (only the tensor ops of tf, "
            "tf.math, tf.nn, tf.linalg, tf.signal, tf.sparse, tf.strings, tf.random, "
            "tf.image, tf.bitwise: no py_function, print, io)"
            if module.startswith("tensorflow")
            else "which no installed pack registers"
        )
        writer.errors.append(
            (
                where,
                f"{type(node).__name__} {node.name!r} applies {label}, {why}. {NO_CONFIG_FORM_FIX}",
            )
        )
        return {}
    positional = [a.index if isinstance(a, Slot) else None for a in node.call_args]
    if positional != list(range(len(inputs))) or len(node.options) != len(node.call_kwargs):
        writer.errors.append(
            (
                where,
                f"{node.name!r} ({found[1]}) takes layers by keyword or mixed with "
                "values, which a config node cannot pass. Fix: pass the layers first.",
            )
        )
        return {}
    options = {k: writer.value(v, join_path(where, k)) for k, v in node.options.items()}
    return {f"@{found[0]}": found[1], "inputs": inputs, **options}
