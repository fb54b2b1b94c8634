"""The ``onnx`` export format: the model's serving function converted by tf2onnx (opset
``OPSET``), run by onnxruntime; ``quantize="dynamic"`` is onnxruntime's dynamic int8
quantization of the weights.

The graph's inputs are named after the model's inputs, its outputs after the model's
outputs, in the model's order. An op tf2onnx cannot express (it leaves it in the graph as
a TensorFlow op) is an ``UnsupportedOpsError``, before anything is written.

>>> OnnxExporter.artifact, OnnxExporter.quantizations
('model.onnx', ('dynamic',))
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tensorweave_deploy.exporters.common import UnsupportedOpsError, need

__all__ = ["OnnxExporter", "OPSET"]

OPSET = 17


def _named(model: Any, output_names: list[str]) -> None:
    """Give the graph's outputs the model's output names, in the model's order (tf2onnx
    names them after TensorFlow tensors, in the sorted order of the outputs' keys)."""
    graph = model.graph
    outputs = list(graph.output)
    renamed = dict(zip([o.name for o in outputs], sorted(output_names)))
    for node in graph.node:
        node.output[:] = [renamed.get(n, n) for n in node.output]
        node.input[:] = [renamed.get(n, n) for n in node.input]
    for out in outputs:
        out.name = renamed.get(out.name, out.name)
    by_name = {o.name: o for o in outputs}
    ordered = [by_name[n] for n in output_names]
    copies = [type(o)() for o in ordered]
    for copy, o in zip(copies, ordered):
        copy.CopyFrom(o)
    del graph.output[:]
    graph.output.extend(copies)


class OnnxExporter:
    """Writes ``model.onnx`` (see the module docstring)."""

    artifact = "model.onnx"
    quantizations: tuple[str, ...] = ("dynamic",)
    raw_inputs = True

    def write(self, request: Any, path: Path) -> None:
        tf2onnx = need("tf2onnx", "onnx")
        onnx = need("onnx", "onnx")
        model, _ = tf2onnx.convert.from_function(
            request.function, input_signature=request.input_specs, opset=OPSET
        )
        lacking = sorted(
            {
                n.op_type
                for n in model.graph.node
                if n.domain in ("", "ai.onnx") and not onnx.defs.has(n.op_type)
            }
        )
        if lacking:
            raise UnsupportedOpsError(
                "onnx", lacking, f"tf2onnx {tf2onnx.__version__}, opset {OPSET}"
            )
        _named(model, list(request.output_names))
        if request.quantize == "dynamic":
            quantization = need("onnxruntime.quantization", "onnx")
            with tempfile.TemporaryDirectory() as tmp:
                plain = Path(tmp) / "float32.onnx"
                onnx.save(model, str(plain))
                quantization.quantize_dynamic(str(plain), str(path))
        else:
            onnx.save(model, str(path))

    def load(self, path: Path) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
        ort = need("onnxruntime", "onnx")
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]

        def run(values: list[np.ndarray]) -> list[np.ndarray]:
            return list(session.run(None, dict(zip(names, values))))

        return run
