"""``Precision``: mixed precision, with float32 variables and layers computing in bfloat16.

A policy names the dtype layers compute in and the dtype variables are kept in, as Keras's
mixed precision does:

================== =========== =========== ==========================================
policy             computes in variables   loss scaling
================== =========== =========== ==========================================
``float32``        float32     float32     none
``mixed_bfloat16`` bfloat16    float32     none (bfloat16 has float32's range)
``mixed_float16``  float16     float32     dynamic (``Model.train_step``), for GPUs
================== =========== =========== ==========================================

Under a mixed policy (``tw.compile(..., precision=...)``, a training pack's ``Model(...,
precision=...)``, or ``with tw.Precision("mixed_bfloat16"):`` around eager calls), the one
executor (``Graph.run``) runs each layer through ``Precision.apply``, in the dtype the layer
declares with its ``compute_precision`` attribute:

- ``"compute"`` (the default, what a third-party layer gets for free): its float inputs
  are cast to the compute dtype and its trainable float variables are read cast to it
  (``self.state.w`` is a bfloat16 tensor inside ``compute``; the variable stays float32 and
  its gradient arrives in float32);
- ``"float32"``: numerically sensitive layers (normalization statistics, softmax outputs,
  losses and metrics, embedding gathers, recurrences): float inputs cast to float32,
  variables read as they are;
- ``"inputs"``: no cast: the layer computes in the dtype its float inputs have (the widest
  of them when they differ): the user's functions (``Lambda``, operators on layers) and
  modules, whose inner layers each decide.

A layer that decides per instance (``Activation`` with a softmax) sets ``compute_precision``
in its ``__init__``; inside ``compute``, ``self.compute_dtype`` is the dtype it computes in
(for the constants it makes). The outputs of the outermost graph come back in their declared
dtypes (``layer.dtype``, float32 unless a layer says otherwise), so a loss, ``predict`` and
an exported signature see float32.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> square = tw.Lambda(tf.square, x)
>>> policy = tw.Precision("mixed_bfloat16")
>>> policy.compute_dtype.name, policy.variable_dtype.name, policy.loss_scaling
('bfloat16', 'float32', False)
>>> tw.compile(square, precision=policy)(np.ones((1, 2), "float32")).dtype.name
'float32'
>>> tw.Precision("mixed_bfloat32")
Traceback (most recent call last):
...
tensorweave.errors.ArgumentError: unknown precision 'mixed_bfloat32'. Close matches: mixed_bfloat16. Fix: use one of float32, mixed_bfloat16, mixed_float16.
"""

from __future__ import annotations

import difflib
import re
import threading
from collections.abc import Sequence
from types import TracebackType
from typing import Any, ClassVar

import tensorflow as tf

from tensorweave.errors import ArgumentError

__all__ = [
    "Precision",
    "PRECISIONS",
    "PRECISION_CHOICES",
    "read_cast",
    "active_mixed",
    "missing_kernel",
]

#: registered layers that compute, in float32, an op some CPU kernels lack in 16 bits
FLOAT32_LAYERS = {"LRN": "LocalResponseNorm.v1"}
_NO_KERNEL = re.compile(r"No OpKernel was registered to support Op '([\w.]+)'.*?T=DT_(\w+)", re.S)

#: policy name -> (compute dtype, variable dtype)
PRECISIONS: dict[str, tuple[str, str]] = {
    "float32": ("float32", "float32"),
    "mixed_bfloat16": ("bfloat16", "float32"),
    "mixed_float16": ("float16", "float32"),
}
#: the values a layer's ``compute_precision`` may take
PRECISION_CHOICES = ("compute", "float32", "inputs")

_WIDTH = {tf.float16: 1, tf.bfloat16: 1, tf.float32: 2, tf.float64: 3}


class _Local(threading.local):
    """Per thread: the policies in scope (innermost last), the dtype the layer being run
    reads its variables as (``None``: as they are) and how deep layers nest."""

    def __init__(self) -> None:
        self.policies: list[Precision] = []
        self.reading: tf.DType | None = None
        self.depth = 0


_local = _Local()


class Precision:
    """A precision policy: ``"float32"``, ``"mixed_bfloat16"`` or ``"mixed_float16"``.

    Also a context manager: ``with tw.Precision("mixed_bfloat16"):`` runs the graphs
    computed eagerly inside it, and those ``tw.compile`` d inside it, under the policy.

    Attributes:
        name: the policy's name.
        compute_dtype: the dtype layers compute in (``"compute"`` layers).
        variable_dtype: the dtype variables are kept in (float32).
        loss_scaling: whether training scales the loss (``mixed_float16``: float16's small
            range would flush small gradients to zero).

    >>> import tensorweave as tw
    >>> tw.Precision.of(None).name, tw.Precision.of("mixed_float16").loss_scaling
    ('float32', True)
    """

    #: the policies' names
    NAMES: ClassVar[tuple[str, ...]] = tuple(PRECISIONS)

    def __init__(self, name: str) -> None:
        if name not in PRECISIONS:
            close = difflib.get_close_matches(str(name), list(PRECISIONS), n=2, cutoff=0.6)
            hint = f" Close matches: {', '.join(close)}." if close else ""
            raise ArgumentError(
                f"unknown precision {name!r}.{hint} Fix: use one of {', '.join(PRECISIONS)}."
            )
        compute, variable = PRECISIONS[name]
        self.name = name
        self.compute_dtype = tf.as_dtype(compute)
        self.variable_dtype = tf.as_dtype(variable)

    @classmethod
    def of(cls, spec: str | Precision | None, owner: str = "precision") -> Precision:
        """``spec`` as a policy: a name, a policy, or ``None`` for the one in scope
        (``float32`` outside any). ``owner`` names who asked, in errors."""
        if isinstance(spec, Precision):
            return spec
        if spec is None:
            return cls.current()
        if not isinstance(spec, str):
            raise ArgumentError(
                f"{owner}: precision must be a name ({', '.join(PRECISIONS)}) or a "
                f"tw.Precision, got {spec!r} ({type(spec).__name__})."
            )
        try:
            return cls(spec)
        except ArgumentError as err:
            raise ArgumentError(f"{owner}: {err}") from None

    @classmethod
    def current(cls) -> Precision:
        """The innermost policy in scope, ``float32`` outside any."""
        return _local.policies[-1] if _local.policies else _FLOAT32

    @property
    def mixed(self) -> bool:
        """Whether layers compute in another dtype than the variables'."""
        return self.compute_dtype != self.variable_dtype

    @property
    def loss_scaling(self) -> bool:
        """Whether training needs dynamic loss scaling (float16 computation)."""
        return self.compute_dtype == tf.float16

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Precision) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"Precision({self.name!r})"

    def __enter__(self) -> Precision:
        _local.policies.append(self)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        _local.policies.pop()

    # -- how one layer runs under the policy -------------------------------------------
    def dtype_for(self, layer: Any, tensors: Sequence[Any]) -> tf.DType | None:
        """The dtype ``layer`` computes in on ``tensors`` under this policy (``None``: no
        cast, it has no float input), from its ``compute_precision``.

        >>> import tensorflow as tf, tensorweave as tw
        >>> x = tw.Input(n_units=2)
        >>> policy = tw.Precision("mixed_bfloat16")
        >>> policy.dtype_for(tw.Lambda(tf.square, x), [tf.ones([1, 2], tf.float16)]).name
        'float16'
        """
        how = getattr(layer, "compute_precision", "compute")
        if how == "compute":
            return self.compute_dtype if self.mixed else None
        if how == "float32":
            return tf.float32
        if how == "inputs":
            floats = [t.dtype for t in tensors if _is_float(t)]
            if not floats:
                return None
            widest = max(floats, key=lambda d: _WIDTH.get(d, 2))
            return tf.float32 if len(set(floats)) > 1 and _WIDTH[widest] == 1 else widest
        raise ArgumentError(
            f"{type(layer).__name__} {getattr(layer, 'name', '')!r}: compute_precision is "
            f"{how!r}. Fix: set it to one of {', '.join(PRECISION_CHOICES)} (see "
            "tensorweave.graph.precision)."
        )

    def apply(self, layer: Any, *tensors: Any) -> Any:
        """``layer.compute(*tensors)`` under this policy: the float tensors cast to the
        layer's dtype (``dtype_for``) and its trainable float variables read as that dtype
        while it computes. What the executor calls for each layer under a mixed policy.

        >>> import tensorflow as tf, tensorweave as tw
        >>> x = tw.Input(n_units=2)
        >>> policy = tw.Precision("mixed_bfloat16")
        >>> policy.apply(tw.Lambda(tf.square, x), tf.ones([1, 2], tf.bfloat16)).dtype.name
        'bfloat16'
        """
        dtype = self.dtype_for(layer, tensors)
        if dtype is not None:
            tensors = tuple(cast_float(t, dtype) for t in tensors)
        outer = _local.reading
        _local.reading = dtype
        _local.depth += 1
        _local.policies.append(self)  # graphs the layer runs inside run under it too
        try:
            return layer.compute(*tensors)
        finally:
            _local.policies.pop()
            _local.depth -= 1
            _local.reading = outer

    def outputs(self, layers: Sequence[Any], values: Any) -> Any:
        """``values`` (one per layer of ``layers``, or a single one) cast back to the
        layers' declared dtypes when this is the outermost graph (inner graphs, a
        ``Module``'s, hand their values on as computed)."""
        if _local.depth:
            return values
        if len(layers) == 1:
            return cast_float(values, layers[0].dtype)
        return tuple(cast_float(v, layer.dtype) for v, layer in zip(values, layers, strict=True))


_FLOAT32 = Precision("float32")


def active_mixed() -> Precision | None:
    """The mixed policy in scope, or ``None`` (``float32``, or none): what ``Graph.run``
    asks once per run."""
    if not _local.policies:
        return None
    policy = _local.policies[-1]
    return policy if policy.mixed else None


def reading_dtype() -> tf.DType | None:
    """The dtype the layer computing now reads its variables as (``None``: as they are)."""
    return _local.reading


def _is_float(value: Any) -> bool:
    return isinstance(value, (tf.Tensor, tf.SparseTensor, tf.Variable)) and value.dtype.is_floating


def cast_float(value: Any, dtype: tf.DType) -> Any:
    """``value`` cast to ``dtype`` if it is a float tensor of another dtype (dense or
    sparse); anything else (integers, strings, ``None``…) as it is."""
    if _is_float(value) and value.dtype != dtype and tf.as_dtype(dtype).is_floating:
        return tf.cast(value, dtype)
    return value


def read_cast(value: Any) -> Any:
    """A state attribute as the layer computing now reads it: a trainable float variable
    cast to the layer's compute dtype under a mixed policy, anything else as it is (what
    ``LayerState`` attribute reads return)."""
    dtype = _local.reading
    if (
        dtype is None
        or not isinstance(value, tf.Variable)
        or value.dtype == dtype
        or not value.dtype.is_floating
        or not value.trainable
    ):
        return value
    return tf.cast(value, dtype)


def _runs_op(layer: Any, op: str, dtype: tf.DType) -> bool:
    """Whether ``layer`` (a ``Lambda`` or lifted op) computes the TensorFlow op ``op`` when
    its float inputs are ``dtype``: traced once on its inputs' specs, never run."""
    specs = []
    for given in getattr(layer, "inputs", ()):
        spec = given.spec
        if isinstance(spec, tf.TensorSpec) and spec.dtype.is_floating:
            spec = tf.TensorSpec(spec.shape, dtype)
        specs.append(spec)
    # a graph of placeholders, not a tf.function: the one executor compiles (compile.py)
    try:
        with tf.Graph().as_default() as graph:
            layer.compute(*(tf.compat.v1.placeholder(s.dtype, s.shape) for s in specs))
    except Exception:
        return False
    return any(o.type == op for o in graph.get_operations())


def missing_kernel(error: BaseException, layers: Sequence[Any], policy: Any) -> Any:
    """The ``ArgumentError`` for TensorFlow's "No OpKernel was registered to support Op
    'LRN' ... T=DT_BFLOAT16" under a mixed ``policy``: it names the node of ``layers``
    that computes that op (a ``tw.Lambda`` or a lifted function, traced to find it) and the
    fix: ``compute_precision="float32"`` on that node, or the registered layer that
    computes it in float32. ``None`` when ``error`` is another error."""
    found = _NO_KERNEL.search(str(error))
    if found is None:
        return None
    op, dtype = found.group(1), getattr(tf, found.group(2).lower(), tf.bfloat16)
    named = [
        layer
        for layer in layers
        if getattr(layer, "compute_precision", None) == "inputs"
        and hasattr(layer, "fn")
        and _runs_op(layer, op, dtype)
    ]
    where = (
        f"{type(named[0]).__name__} {named[0].name!r} runs" if named else "a node of the model runs"
    )
    registered = FLOAT32_LAYERS.get(op)
    instead = (
        f", or the registered layer {registered}, which computes it in float32"
        if registered
        else ""
    )
    how = (
        f'tw.Lambda(..., compute_precision="float32") for {named[0].name!r}'
        if named
        else 'compute_precision="float32" on the node that runs it'
    )
    return ArgumentError(
        f"{where} TensorFlow's {op!r} op, which has no {dtype.name} kernel on this device, "
        f"under precision={getattr(policy, 'name', policy)!r} (the node computes in the "
        f"dtype of its inputs). Fix: {how} (it then computes in float32){instead}; or "
        'precision="float32".'
    )
