"""``lift``: a function of tensors applied to a mix of layers and plain values, as one node.

The one way to turn a function into a graph node: operators on layers (``a + b``), ops by
name (``tw.ops.erfc(x)``) and packs' dual-use functions (a loss called with layers) all go
through it. Layers among the arguments (positional, keyword, or one level into a list or
tuple) become the node's inputs, in order; every other argument is kept as it is. The node
is a ``Lifted`` layer (or the ``node=`` subclass a pack gives, e.g. one that also knows how
to stream a metric), which remembers the function and its arguments, so ``reuse_with``
applies the same call to other inputs and may override keyword arguments.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=3, name="x")
>>> y = tw.lift(tf.concat, [x, x * 2.0], axis=-1)
>>> y.shape, y.call_kwargs
((None, 6), {'axis': -1})
>>> y.reuse_with(x, tw.Input(n_units=3), axis=-1).shape
(None, 6)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

from tensorweave.graph.lambda_layer import Lambda, accepts_keyword
from tensorweave.graph.layer import Layer

__all__ = ["Slot", "Call", "Lifted", "lift"]


class Slot:
    """Where the tensor of the node's input ``index`` goes among a call's arguments."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"<input {self.index}>"


def _fill(value: Any, tensors: Sequence[Any]) -> Any:
    if isinstance(value, Slot):
        return tensors[value.index]
    if type(value) in (list, tuple):
        return type(value)(tensors[v.index] if isinstance(v, Slot) else v for v in value)
    return value


class Call:
    """``function`` with its layer arguments replaced by the tensors of the node's inputs."""

    def __init__(
        self, function: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]
    ) -> None:
        self.function = function
        self.args = tuple(args)
        self.kwargs = dict(kwargs)
        self.__name__ = getattr(function, "__name__", "lifted")
        self.__doc__ = getattr(function, "__doc__", None)

    def __call__(self, *tensors: Any) -> Any:
        args = [_fill(a, tensors) for a in self.args]
        kwargs = {k: _fill(v, tensors) for k, v in self.kwargs.items()}
        return self.function(*args, **kwargs)


class Lifted(Lambda):
    """``function(*call_args, **call_kwargs)`` as a node, its ``Slot`` s filled by inputs.

    Attributes:
        function: the plain function of tensors this node applies.
        call_args, call_kwargs: its arguments, with ``Slot`` s where the inputs go.
        options: the keyword arguments that are not inputs.
    """

    def __init__(
        self,
        function: Callable[..., Any],
        *inputs: Layer,
        call_args: Sequence[Any] = (),
        call_kwargs: dict[str, Any] | None = None,
        name: str | None = None,
        share_state_with: Layer | None = None,
    ) -> None:
        call = Call(function, call_args, call_kwargs or {})
        self.function = function
        self.call_args = call.args
        self.call_kwargs = call.kwargs
        self.options = {k: v for k, v in call.kwargs.items() if not _holds_slot(v)}
        values = [*call.args, *call.kwargs.values()]
        variables = [v for v in values if isinstance(v, tf.Variable)]
        super().__init__(
            call, *inputs, variables=variables, name=name, share_state_with=share_state_with
        )

    def reuse_with(self, *inputs: Layer, **options: Any) -> Lifted:
        """The same call on other inputs (shared variables); ``options`` the function takes
        by name override its keyword arguments, others (``training=`` sent to every layer
        of a ``Module``) are ignored."""
        if len(inputs) != len(self.inputs):
            raise TypeError(
                f"{self.name!r}.reuse_with expected {len(self.inputs)} input(s), got {len(inputs)}."
            )
        kwargs = dict(self.call_kwargs)
        kwargs.update(
            {
                k: v
                for k, v in options.items()
                if accepts_keyword(self.function, k, via_var_keyword=True)
            }
        )
        return type(self)(
            self.function,
            *inputs,
            call_args=self.call_args,
            call_kwargs=kwargs,
            share_state_with=self,
        )


def _holds_slot(value: Any) -> bool:
    return isinstance(value, Slot) or (
        type(value) in (list, tuple) and any(isinstance(v, Slot) for v in value)
    )


def lift(
    fn: Callable[..., Any],
    *args: Any,
    name: str | None = None,
    node: type[Lifted] = Lifted,
    **kwargs: Any,
) -> Layer:
    """Apply ``fn`` to a mix of layers and plain values, as one ``node`` (see the module).

    >>> import tensorflow as tf
    >>> import tensorweave as tw
    >>> x = tw.Input(n_units=3)
    >>> lift(tf.add, 1.0, x).shape
    (None, 3)
    """
    inputs: list[Layer] = []

    def slot(value: Any) -> Any:
        if isinstance(value, Layer):
            inputs.append(value)
            return Slot(len(inputs) - 1)
        if type(value) in (list, tuple) and any(isinstance(v, Layer) for v in value):
            return type(value)(slot(v) if isinstance(v, Layer) else v for v in value)
        return value

    call_args = [slot(a) for a in args]
    call_kwargs = {k: slot(v) for k, v in kwargs.items()}
    if not inputs:
        raise TypeError(f"{getattr(fn, '__name__', fn)!s}: at least one argument must be a Layer.")
    return node(fn, *inputs, call_args=call_args, call_kwargs=call_kwargs, name=name)
