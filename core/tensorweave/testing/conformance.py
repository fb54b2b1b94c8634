"""The conformance kit: one table of cases, the same checks for every component.

A pack lists its components as ``Case`` rows; every check below runs on every row:

- ``build``: the component resolves by its registered name and builds on ``tw.Input`` s;
- ``eager_equals_compiled``: ``layer()`` equals ``tw.compile(layer)(...)``;
- ``no_retrace``: a compiled layer serves two batch sizes (and sequence lengths) with one trace;
- ``reuse_shares_state``: ``reuse_with`` gives the same variables and the same output;
- ``gradients``: every trainable variable gets a gradient;
- ``checkpoint``: a ``tf.train.Checkpoint`` round-trip restores the outputs;
- ``in_module``: the component works inside a ``tw.Module``;
- ``mixed_precision``: under ``mixed_bfloat16`` it computes in the dtype it declares
  (``compute_precision``), its output is finite and near the float32 one, gradients reach
  its variables, which stay float32, and compiled it returns its declared dtype;
- ``name_is_unique``: no other installed distribution offers the same name (a clash makes
  the bare name fail for every user who has both packs).

Components of other kinds (callbacks, a pack's own kinds) have ``ComponentCase``, commands
added through a hook ``CommandCase`` (``components.py``, ``commands.py``).

>>> import tensorflow as tf, tensorweave as tw
>>> from tensorweave.testing import Case, run_check
>>> case = Case("Lambda.v1", inputs=[(None, 3)], factory=lambda x: tw.Lambda(tf.tanh, x))
>>> run_check(case, "eager_equals_compiled")
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw

__all__ = [
    "InputSpec",
    "Case",
    "CHECKS",
    "run_check",
    "checks_of",
    "build",
    "sample",
    "assert_name_is_unique",
]


@dataclass(frozen=True)
class InputSpec:
    """How to make one input of a case: shape (batch ``None``), dtype and value range.

    Integer inputs draw from ``[0, maxval)``; float inputs from a standard normal. ``sparse``
    makes a ``tf.SparseTensor`` with about half of the entries set.
    """

    shape: tuple[int | None, ...]
    dtype: str = "float32"
    maxval: int = 10
    sparse: bool = False


@dataclass
class Case:
    """One row of the conformance table.

    Args:
        name: the registered name (``"Linear.v1"`` or ``"dist:Linear.v1"``).
        kwargs: keyword arguments for the component.
        inputs: one ``InputSpec`` (or a shape tuple, float32) per input.
        kind: the registry to resolve ``name`` in.
        factory: build from this callable instead of the registry (for in-process tests).
        skip: checks to skip, each with the reason (shown in the test report).
        batch_sizes: the two batch sizes used for ``no_retrace``.
        rtol, atol: tolerances of numeric comparisons.
    """

    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    inputs: Sequence[InputSpec | tuple[int | None, ...]] = ((None, 4),)
    kind: str = "layers"
    factory: Callable[..., tw.Layer] | None = None
    skip: dict[str, str] = field(default_factory=dict)
    batch_sizes: tuple[int, int] = (2, 5)
    rtol: float = 1e-5
    atol: float = 1e-5

    def __str__(self) -> str:
        extra = ",".join(f"{k}={_short(v)}" for k, v in self.kwargs.items())
        shapes = ",".join(
            "x".join("?" if d is None else str(d) for d in s.shape)
            + ("" if s.dtype == "float32" else f":{s.dtype}")
            + (":sparse" if s.sparse else "")
            for s in self.specs
        )
        return f"{self.name}({extra})[{shapes}]"

    @property
    def specs(self) -> list[InputSpec]:
        """The inputs as ``InputSpec`` objects."""
        return [s if isinstance(s, InputSpec) else InputSpec(tuple(s)) for s in self.inputs]


def _short(value: Any) -> str:
    """A stable, readable id for a keyword value (no memory addresses: xdist compares ids)."""
    if callable(value) and hasattr(value, "__name__"):
        return str(value.__name__)
    text = repr(value)
    return type(value).__name__ if " at 0x" in text else text


def _make_input(spec: InputSpec, name: str) -> tw.Input:
    return tw.Input(batch_shape=spec.shape, dtype=spec.dtype, sparse=spec.sparse, name=name)


def sample(spec: InputSpec, batch: int, seed: int = 0, *, length: int = 3) -> Any:
    """A random value for one input of a case: ``batch`` rows, dynamic dimensions ``length``."""
    rng = np.random.default_rng(seed)
    shape = [batch] + [length if d is None else d for d in spec.shape[1:]]
    dtype = tf.as_dtype(spec.dtype)
    if dtype.is_integer:
        value = rng.integers(0, spec.maxval, size=shape).astype(dtype.as_numpy_dtype)
    elif dtype.is_bool:
        value = rng.random(shape) > 0.5
    else:
        value = rng.standard_normal(shape).astype(dtype.as_numpy_dtype)
    if spec.sparse:
        mask = rng.random(shape) > 0.5
        return tf.sparse.from_dense(np.where(mask, value, np.zeros_like(value)))
    return value


def build(case: Case, inputs: Sequence[tw.Layer] | None = None) -> tuple[tw.Layer, list[tw.Input]]:
    """Build the case's component on fresh inputs (or on ``inputs``)."""
    made: list[Any] = (
        list(inputs)
        if inputs is not None
        else [_make_input(s, f"in{i}") for i, s in enumerate(case.specs)]
    )
    factory = case.factory or tw.registry(case.kind)[case.name]
    layer = factory(*made, **case.kwargs)
    if not isinstance(layer, tw.Layer):
        raise AssertionError(f"{case.name} built a {type(layer).__name__}, not a tw.Layer")
    return layer, made


def _values(case: Case, batch: int, seed: int = 0, length: int = 3) -> list[Any]:
    return [sample(s, batch, seed + i, length=length) for i, s in enumerate(case.specs)]


def _dense(value: Any) -> np.ndarray:
    if isinstance(value, tf.SparseTensor):
        value = tf.sparse.to_dense(value)
    return np.asarray(value)


def _close(case: Case, a: Any, b: Any, what: str) -> None:
    np.testing.assert_allclose(
        _dense(a), _dense(b), rtol=case.rtol, atol=case.atol, err_msg=f"{case}: {what}"
    )


def check_build(case: Case) -> None:
    layer, _ = build(case)
    assert layer.dtype is not None and layer.shape is not None, f"{case}: no shape/dtype"


def check_eager_equals_compiled(case: Case) -> None:
    layer, ins = build(case)
    values = _values(case, case.batch_sizes[0])
    graph = tw.Graph.build(inputs=ins, outputs=layer)
    eager = graph.compute(*values)
    compiled = tw.compile(graph)(*values)
    _close(case, eager, compiled, "eager and compiled outputs differ")
    out_shape = _dense(eager).shape
    assert len(out_shape) == len(layer.shape), f"{case}: output rank {out_shape} vs {layer.shape}"
    for got, want in zip(out_shape, layer.shape, strict=True):
        assert want is None or got == want, f"{case}: output shape {out_shape} vs {layer.shape}"


def check_no_retrace(case: Case) -> None:
    layer, ins = build(case)
    compiled = tw.compile(tw.Graph.build(inputs=ins, outputs=layer))
    # a new batch size and a new length of every other dynamic dimension (sequence steps)
    for batch, length in zip(case.batch_sizes, (3, 4), strict=True):
        compiled(*_values(case, batch, length=length))
    assert compiled.trace_count == 1, f"{case}: retraced ({compiled.trace_count} traces)"


def check_reuse_shares_state(case: Case) -> None:
    layer, _ = build(case)
    others = [_make_input(s, f"again{i}") for i, s in enumerate(case.specs)]
    again = layer.reuse_with(*others)
    assert {id(v) for v in again.variables} == {id(v) for v in layer.variables}, (
        f"{case}: reuse_with did not share the variables"
    )
    values = _values(case, case.batch_sizes[0])
    first = tw.Graph.build(inputs=layer.graph.inputs, outputs=layer).compute(*values)
    second = tw.Graph.build(inputs=others, outputs=again).compute(*values)
    _close(case, first, second, "reuse_with gave another output on the same input")


def check_gradients(case: Case) -> None:
    layer, ins = build(case)
    variables = layer.trainable_variables
    if not variables:
        return
    values = _values(case, case.batch_sizes[0])
    graph = tw.Graph.build(inputs=ins, outputs=layer)
    with tf.GradientTape() as tape:
        out = graph.compute(*values)
        if isinstance(out, tf.SparseTensor):
            out = out.values
        loss = tf.reduce_sum(tf.cast(out, tf.float32) ** 2)
    grads = tape.gradient(loss, variables)
    missing = [v.name for v, g in zip(variables, grads, strict=True) if g is None]
    assert not missing, f"{case}: no gradient reaches {missing}"


def check_checkpoint(case: Case) -> None:
    layer, ins = build(case)
    if not layer.variables:
        return
    graph = tw.Graph.build(inputs=ins, outputs=layer)
    values = _values(case, case.batch_sizes[0])
    before = graph.compute(*values)
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = tf.train.Checkpoint(layer=layer)
        path = ckpt.write(f"{tmp}/ckpt")
        for v in layer.variables:
            if v.dtype.is_floating:
                v.assign(v + 1.0)
        tf.train.Checkpoint(layer=layer).read(path).assert_consumed()
    _close(case, before, graph.compute(*values), "checkpoint round-trip changed the output")


def check_in_module(case: Case) -> None:
    layer, ins = build(case)
    module = tw.Module(ins, layer)
    values = _values(case, case.batch_sizes[0])
    direct = tw.Graph.build(inputs=ins, outputs=layer).compute(*values)
    folded = module.compute(
        *[tf.convert_to_tensor(v) if not isinstance(v, tf.SparseTensor) else v for v in values]
    )
    _close(case, direct, folded, "the component inside a Module gave another output")
    assert {id(v) for v in module.variables} >= {id(v) for v in layer.variables}


def check_mixed_precision(case: Case) -> None:
    layer, ins = build(case)
    policy = tw.Precision("mixed_bfloat16")
    values = _values(case, case.batch_sizes[0])
    # what the layers upstream hand on under the policy: float values in bfloat16
    given: list[Any] = []
    if layer.inputs:
        parents = tw.Graph.build(inputs=ins, outputs=list(layer.inputs))
        given = _as_list(parents.compute(*values))
    low = [_cast(v, tf.bfloat16) for v in given]
    exact = [_cast(v, tf.float32) for v in low]  # the same values in float32
    layer.compute(*exact)  # makes what a layer makes on first use (a random generator)
    saved = _snapshot(layer)  # rewound before each run below: the same random draws
    _rewind(saved)
    reference = layer.compute(*exact)
    _rewind(saved)
    try:
        with tf.GradientTape() as tape:
            out = policy.apply(layer, *low)
            loss = tf.reduce_sum(tf.cast(_dense_tensor(out), tf.float32) ** 2)
    except (TypeError, ValueError, tf.errors.InvalidArgumentError) as err:
        raise AssertionError(
            f"{case}: fails under mixed_bfloat16, where it gets bfloat16 inputs and reads its "
            f"trainable variables in bfloat16: {err} Fix: make the float tensors compute "
            "creates (constants, noise, non-trainable variables it reads) in "
            "self.compute_dtype, or declare compute_precision = 'float32' on the class."
        ) from err
    want = policy.dtype_for(layer, low)
    declares = layer.compute_precision != "inputs"  # "inputs": its inner layers decide
    if declares and want is not None and out.dtype.is_floating:
        assert out.dtype == want, (
            f"{case}: computes in {out.dtype.name} under mixed_bfloat16, but declares "
            f"{want.name} (compute_precision={layer.compute_precision!r}). Fix: make the "
            "tensors compute creates in self.compute_dtype, or declare compute_precision."
        )
    got = np.asarray(tf.cast(_dense_tensor(out), tf.float32))
    assert np.all(np.isfinite(got)), f"{case}: non-finite output under mixed_bfloat16"
    ref = _dense(reference).astype("float64")
    scale = max(1.0, float(np.max(np.abs(ref), initial=0.0)))
    np.testing.assert_allclose(
        got, ref, rtol=0.05, atol=0.05 * scale, err_msg=f"{case}: mixed_bfloat16 vs float32"
    )
    variables = layer.trainable_variables
    grads = tape.gradient(loss, variables) if variables else []
    for v, g in zip(variables, grads, strict=True):
        assert v.dtype == tf.float32, f"{case}: variable {v.name} is {v.dtype.name}"
        assert g is not None, f"{case}: no gradient reaches {v.name} under mixed_bfloat16"
        g = g.values if isinstance(g, tf.IndexedSlices) else g
        assert g.dtype == v.dtype, f"{case}: the gradient of {v.name} is {g.dtype.name}"
        assert np.all(np.isfinite(g.numpy())), f"{case}: non-finite gradient of {v.name}"
    _rewind(saved)
    compiled = tw.compile(tw.Graph.build(inputs=ins, outputs=layer), precision=policy)
    assert compiled(*values).dtype == layer.dtype, f"{case}: compiled output not {layer.dtype}"


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, tuple) else [value]


def _cast(value: Any, dtype: tf.DType) -> Any:
    tensor = value if isinstance(value, tf.SparseTensor) else tf.convert_to_tensor(value)
    return tf.cast(tensor, dtype) if tensor.dtype.is_floating else tensor


def _dense_tensor(value: Any) -> tf.Tensor:
    return tf.sparse.to_dense(value) if isinstance(value, tf.SparseTensor) else value


def _snapshot(layer: tw.Layer) -> list[tuple[tf.Variable, tf.Tensor]]:
    """The layer's variables with their values: weights, moving statistics and the state
    of the random generators (which ``tf.Module`` does not list)."""
    variables = list(layer.variables)
    for module in (layer.state, *layer.state.submodules):
        rng = vars(module).get("rng")
        if isinstance(rng, tf.random.Generator):
            variables.append(rng.state)
    return [(v, v.read_value()) for v in variables]


def _rewind(saved: Sequence[tuple[tf.Variable, tf.Tensor]]) -> None:
    """Put variables back (and the op-level random seeds), so a run draws what the
    previous one drew."""
    tf.random.set_seed(0)
    for v, value in saved:
        v.assign(value)


def check_name_is_unique(case: Case) -> None:
    if case.factory is None:
        assert_name_is_unique(case.kind, case.name)


def assert_name_is_unique(kind: str, name: str) -> None:
    """Fail when another installed (not blocked) distribution offers ``name`` in ``kind``."""
    provider, _, bare = name.rpartition(":")
    offers = [
        i
        for i in tw.registry(kind).infos()
        if i.name == bare and not tw.catalog.is_blocked(i.distribution)
    ]
    if not offers:
        return  # not installed: the ``build`` check says so
    others = sorted({i.distribution for i in offers} - {provider or offers[0].distribution})
    assert not others, (
        f"{kind} {bare!r} is also offered by {', '.join(others)}: every user with both packs "
        f"gets ComponentConflictError for the bare name. Fix: give yours a name that starts "
        f"with your pack's name, or skip this check with the reason it must clash."
    )


CHECKS: dict[str, Callable[[Case], None]] = {
    "build": check_build,
    "eager_equals_compiled": check_eager_equals_compiled,
    "no_retrace": check_no_retrace,
    "reuse_shares_state": check_reuse_shares_state,
    "gradients": check_gradients,
    "checkpoint": check_checkpoint,
    "in_module": check_in_module,
    "mixed_precision": check_mixed_precision,
    "name_is_unique": check_name_is_unique,
}


def run_check(case: Any, check: str) -> None:
    """Run one named check on one case of any kind (raises ``AssertionError`` when it
    fails): a layer ``Case``, a ``ComponentCase`` or a ``CommandCase``."""
    checks = checks_of(case)
    if check not in checks:
        raise KeyError(f"no conformance check {check!r} for {case}; known: {sorted(checks)}")
    tf.random.set_seed(0)
    checks[check](case)


def checks_of(case: Any) -> dict[str, Callable[[Any], None]]:
    """The checks that apply to ``case``: ``CHECKS`` for a layer ``Case``, the case's own
    ``checks()`` for the other kinds of case."""
    if isinstance(case, Case):
        return dict(CHECKS)
    found: dict[str, Callable[[Any], None]] = case.checks()
    return found
