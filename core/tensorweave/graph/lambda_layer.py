"""``Lambda``: any function of tensors as a layer, its output shape found by tracing.

The function is traced once on the inputs' ``tf.TypeSpec`` (batch dimension ``None``), so
the output shape and dtype are known at construction without running any data through
it, and a function that does not fit its inputs fails there, naming the layer.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=4, name="x")
>>> tw.Lambda(tf.reduce_mean, x, axis=-1).shape
(None,)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

from tensorweave.errors import ArgumentError, ShapeError
from tensorweave.graph.compile import trace
from tensorweave.graph.layer import Layer, ShapeLike
from tensorweave.graph.naming import unique_name
from tensorweave.graph.precision import PRECISION_CHOICES

__all__ = ["Lambda"]


class Lambda(Layer):
    """Apply ``fn(*tensors, **fn_kwargs)`` as a layer.

    Args:
        fn: the function; it receives one tensor per input and returns one tensor.
        *inputs: the input layers.
        shape, dtype, sparse: the output description; found by tracing ``fn`` when omitted.
        variables: variables ``fn`` uses (e.g. a Keras layer's weights), kept in this
            layer's state so they train and checkpoint with it. Under a mixed precision
            policy a ``Lambda`` computes in the dtype of its inputs, or in float32 when it
            has ``variables`` (``fn`` reads them as they are).
        name: a readable name (default: the function's name).
        compute_precision: ``"float32"`` computes ``fn`` in float32 under a mixed
            precision (for an op with no bfloat16 kernel on the CPU, such as
            ``tf.nn.local_response_normalization``); default ``"inputs"``, the dtype of
            its inputs (``tensorweave.graph.precision``).
        **fn_kwargs: extra keyword arguments for ``fn``.
    """

    # the user's function computes in the dtype of what it is given (see precision.py)
    compute_precision = "inputs"

    def __init__(
        self,
        fn: Callable[..., Any],
        *inputs: Layer,
        shape: ShapeLike | None = None,
        dtype: tf.DType | str | None = None,
        sparse: bool | None = None,
        variables: Sequence[tf.Variable] | None = None,
        name: str | None = None,
        share_state_with: Layer | None = None,
        compute_precision: str | None = None,
        **fn_kwargs: Any,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"Lambda needs a callable, got {type(fn).__name__}.")
        # The function is code, not state (variables= is state, kept in init_state).
        self.fn = fn
        self._fn_kwargs = dict(fn_kwargs)
        self._given_variables = list(variables or [])
        label = name or _label(fn)
        if shape is None or dtype is None or sparse is None:
            spec = Lambda.output_spec(fn, inputs, fn_kwargs, label=label, need_shape=shape is None)
            if shape is not None and spec.shape.rank not in (None, len(tuple(shape))):
                raise ShapeError(
                    f"Lambda {label!r}: shape={tuple(shape)} has rank {len(tuple(shape))}, the "
                    f"function returns rank {spec.shape.rank} ({spec.shape}). shape= is the "
                    "output as .shape reads it, batch first. Fix: e.g. shape="
                    f"{(None, *tuple(shape))}, or leave it out (it is traced)."
                )
            shape = spec.shape if shape is None else shape
            dtype = spec.dtype if dtype is None else dtype
            sparse = isinstance(spec, tf.SparseTensorSpec) if sparse is None else sparse
        super().__init__(
            *inputs,
            shape=shape,
            dtype=dtype,
            sparse=sparse,
            name=name if name is not None else unique_name(label),
            share_state_with=share_state_with,
        )
        if "fn_variables" in vars(self.state):  # fn reads them as they are: float32
            self.compute_precision = "float32"
        if compute_precision is not None:
            if compute_precision not in PRECISION_CHOICES:
                raise ArgumentError(
                    f"Lambda {self.name!r}: compute_precision must be one of "
                    f"{', '.join(PRECISION_CHOICES)}, got {compute_precision!r}."
                )
            self.compute_precision = compute_precision

    @staticmethod
    def output_spec(
        fn: Callable[..., Any],
        inputs: Sequence[Layer],
        kwargs: dict[str, Any] | None = None,
        *,
        label: str | None = None,
        need_shape: bool = True,
    ) -> tf.TypeSpec:
        """What ``fn(*values of inputs, **kwargs)`` returns, found by tracing it once on the
        inputs' specs, without running it: the check every ``Lambda`` makes at construction
        (layers that apply a user's function reuse it). A function that fails on those
        inputs, or returns anything but one tensor (of known rank, with ``need_shape``),
        raises ``ShapeError`` naming ``label``.

        >>> import tensorflow as tf, tensorweave as tw
        >>> x = tw.Input(n_units=4, name="x")
        >>> tw.Lambda.output_spec(tf.reduce_sum, [x], {"axis": -1})
        TensorSpec(shape=(None,), dtype=tf.float32, name=None)
        """
        for position, layer in enumerate(inputs):
            if not isinstance(layer, Layer):
                raise TypeError(
                    f"Lambda {label!r}: input {position} is a {type(layer).__name__}, not a Layer."
                )
        options = dict(kwargs or {})
        label = label if label is not None else _label(fn)
        try:
            concrete = trace(lambda *a: fn(*a, **options), *[layer.spec for layer in inputs])
        except Exception as err:  # the user's function failed on these shapes
            shapes = ", ".join(f"{i.name}: {i.shape} {i.dtype.name}" for i in inputs)
            raise ShapeError(
                f"Lambda {label!r} does not fit its inputs ({shapes}): {err}".strip()
            ) from err
        out = concrete.structured_outputs
        if isinstance(out, tf.SparseTensor):
            return tf.SparseTensorSpec(out.shape, out.dtype)
        if not isinstance(out, tf.Tensor):
            raise ShapeError(
                f"Lambda {label!r} must return one tensor, got {type(out).__name__}. "
                "Fix: a layer has one output; split a tuple into several Lambda layers."
            )
        if out.shape.rank is None and need_shape:
            raise ShapeError(f"Lambda {label!r} returns a tensor of unknown rank; pass shape=.")
        return tf.TensorSpec(out.shape, out.dtype)

    def init_state(self) -> None:
        """Keep the variables ``fn`` uses, if any were given."""
        if self._given_variables:
            self.state.fn_variables = list(self._given_variables)

    def compute(self, *tensors: Any) -> Any:
        """Call ``fn`` on the tensors."""
        return self.fn(*tensors, **self._fn_kwargs)

    def reuse_with(self, *inputs: Layer, **options: Any) -> Lambda:
        """The same function on other inputs, sharing any variables.

        ``options`` replace the function's keyword arguments; options the function does not
        take (e.g. ``training=False`` sent to every layer of a ``Module``) are ignored.
        """
        kwargs: dict[str, Any] = dict(self._fn_kwargs)
        kwargs.update(
            {k: v for k, v in options.items() if k in kwargs or accepts_keyword(self.fn, k)}
        )
        precision = vars(self).get("compute_precision")  # when set on this node
        return Lambda(
            self.fn, *inputs, share_state_with=self, compute_precision=precision, **kwargs
        )


def accepts_keyword(fn: Callable[..., Any], keyword: str, *, via_var_keyword: bool = False) -> bool:
    """Whether ``fn`` takes the keyword argument ``keyword`` by name (or, with
    ``via_var_keyword``, through a ``**kwargs`` parameter)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    param = params.get(keyword)
    if param is not None and param.kind in (
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ):
        return True
    return via_var_keyword and any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _label(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__name__", type(fn).__name__)
    return "lambda" if name == "<lambda>" else name
