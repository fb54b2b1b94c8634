"""The runtimes a served model runs in: a SavedModel's ``serving_default`` signature
(TensorFlow) or an ONNX file (ONNX Runtime). A backend knows its inputs and outputs
(``TensorInfo``: name, shape with the batch axis first, NumPy dtype) and runs one batch:
``run({name: array}) -> [array per output]``. Nothing here knows HTTP or the run's steps.

>>> TensorInfo("x", (None, 64), "float32").describe()
{'name': 'x', 'shape': [-1, 64], 'dtype': 'float32'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from tensorweave_deploy.serving.errors import ServeError

__all__ = ["Backend", "TensorInfo", "SavedModelBackend", "OnnxBackend", "ONNX_INSTALL"]

ONNX_INSTALL = "pip install 'tensorweave-deploy[onnx]'"


@dataclass(frozen=True)
class TensorInfo:
    """One input or output of a model: its name, shape (``None`` for any size; the batch
    axis first) and NumPy dtype name."""

    name: str
    shape: tuple[int | None, ...]
    dtype: str

    def describe(self) -> dict[str, Any]:
        """As TF Serving's metadata writes it: ``-1`` for a dimension of any size."""
        return {
            "name": self.name,
            "shape": [-1 if d is None else int(d) for d in self.shape],
            "dtype": self.dtype,
        }


class Backend(Protocol):
    """What serves one batch (see the module docstring)."""

    format: str
    inputs: list[TensorInfo]
    outputs: list[TensorInfo]

    def run(self, feed: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """The outputs of the batch ``feed`` (one array per input name), in output order."""
        ...


class SavedModelBackend:
    """A loaded SavedModel's ``serving_default`` signature (as ``tensorweave export``
    writes it: keyword inputs named after the model's inputs, outputs ``output_0``…).

    Args:
        loaded: what ``tf.saved_model.load`` returned (``Predictor.load(dir).model``).
        where: the SavedModel's folder, for messages.
        input_names: the inputs in the model's order (``predictor.json``'s ``inputs``).
        output_names: the model's output names, one per ``output_K`` (for answers).
    """

    format = "savedmodel"

    def __init__(
        self,
        loaded: Any,
        where: Path,
        input_names: Sequence[str] | None = None,
        output_names: Sequence[str] | None = None,
    ) -> None:
        signature = getattr(loaded, "signatures", {}).get("serving_default")
        if signature is None:
            raise ServeError(
                f"the SavedModel {where} has no serving_default signature (a model with sparse "
                "inputs has none). Fix: export a model with dense inputs (tensorweave export RUN OUT)."
            )
        self._signature = signature
        specs: dict[str, Any] = signature.structured_input_signature[1]
        names = [n for n in (input_names or []) if n in specs] or sorted(specs)
        self.inputs = [_tf_info(n, specs[n]) for n in names]
        outs: dict[str, Any] = signature.structured_outputs
        self._keys = sorted(outs, key=_output_order)
        given = list(output_names or [])
        self.outputs = [
            _tf_info(given[k] if k < len(given) else key, outs[key])
            for k, key in enumerate(self._keys)
        ]

    def run(self, feed: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        import tensorflow as tf

        out = self._signature(**{i.name: tf.constant(feed[i.name]) for i in self.inputs})
        return [np.asarray(out[k]) for k in self._keys]


class OnnxBackend:
    """An ONNX file run by ONNX Runtime on the CPU (``pip install onnxruntime``)."""

    format = "onnx"

    def __init__(self, path: Path) -> None:
        try:
            import onnxruntime as ort
        except ImportError:
            raise ServeError(
                f"serving {path} needs ONNX Runtime, which is not installed. Fix: {ONNX_INSTALL}"
            ) from None
        try:
            self._session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime raises its own classes (Fail, InvalidGraph...)
            raise ServeError(
                f"ONNX Runtime cannot load {path}: {str(err).strip()[:300]}. Fix: export the run "
                "again (tensorweave export RUN --format onnx -o PATH)."
            ) from None
        self.inputs = [_onnx_info(i) for i in self._session.get_inputs()]
        self.outputs = [_onnx_info(o) for o in self._session.get_outputs()]

    def run(self, feed: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        return [
            np.asarray(o)
            for o in self._session.run(None, {i.name: feed[i.name] for i in self.inputs})
        ]


def _output_order(key: str) -> tuple[int, str]:
    """``output_2`` before ``output_10``."""
    tail = key.rsplit("_", 1)[-1]
    return (int(tail), key) if tail.isdigit() else (1 << 30, key)


def _tf_info(name: str, spec: Any) -> TensorInfo:
    shape = tuple(None if d is None else int(d) for d in spec.shape.as_list())
    return TensorInfo(name, shape, spec.dtype.as_numpy_dtype().dtype.name)


_ONNX_TYPES = {
    "tensor(float)": "float32",
    "tensor(double)": "float64",
    "tensor(float16)": "float16",
    "tensor(int64)": "int64",
    "tensor(int32)": "int32",
    "tensor(int8)": "int8",
    "tensor(uint8)": "uint8",
    "tensor(bool)": "bool",
}


def _onnx_info(node: Any) -> TensorInfo:
    shape = tuple(d if isinstance(d, int) and d >= 0 else None for d in node.shape)
    return TensorInfo(node.name, shape, _ONNX_TYPES.get(node.type, "float32"))
