"""The ``litert`` export format: the model's serving function converted by TensorFlow's
LiteRT converter (``tf.lite.TFLiteConverter``), run by ai-edge-litert's interpreter.

``quantize``: ``"dynamic"`` (int8 weights), ``"float16"`` (float16 weights) or ``"int8"``
(full-integer ops calibrated on ``request.calibration``; inputs and outputs stay float32,
so the model takes what the float one takes). The inputs and outputs of its
``serving_default`` signature are named after the model's. An op the converter cannot
express is an ``UnsupportedOpsError``, before anything is written.

>>> LiteRTExporter.artifact, LiteRTExporter.quantizations
('model.tflite', ('dynamic', 'float16', 'int8'))
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tensorweave_deploy.exporters.common import UnsupportedOpsError, need

__all__ = ["LiteRTExporter"]

_OP = re.compile(r"\btf\.([A-Z]\w*)")
_NODE = re.compile(r'fused\["([A-Z]\w*?)(?:_\d+)?:')


def lacking_ops(text: str) -> list[str]:
    """The TensorFlow op types a converter error names (``tf.Lgamma``, ``fused["Lgamma:"``).

    >>> lacking_ops('error: \\'tf.Lgamma\\' op is neither a custom op nor a flex op')
    ['Lgamma']
    """
    return sorted(set(_OP.findall(text)) | set(_NODE.findall(text)) - {"StatefulPartitionedCall"})


class LiteRTExporter:
    """Writes ``model.tflite`` (see the module docstring)."""

    artifact = "model.tflite"
    quantizations: tuple[str, ...] = ("dynamic", "float16", "int8")
    raw_inputs = True

    def write(self, request: Any, path: Path) -> None:
        need("ai_edge_litert.interpreter", "litert")  # the runtime: named before converting
        import tensorflow as tf

        # through a SavedModel: its serving_default signature names the inputs and outputs
        module = tf.Module()
        module.model_variables = list(request.model.variables)
        module.serve = request.function
        with tempfile.TemporaryDirectory() as tmp:
            tf.saved_model.save(
                module,
                tmp,
                signatures={"serving_default": request.function.get_concrete_function()},
            )
            converter = tf.lite.TFLiteConverter.from_saved_model(tmp)
            blob = self._convert(converter, request, tf)
        Path(path).write_bytes(blob)

    def _convert(self, converter: Any, request: Any, tf: Any) -> bytes:
        if request.quantize is not None:
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
        if request.quantize == "float16":
            converter.target_spec.supported_types = [tf.float16]
        elif request.quantize == "int8":
            converter.representative_dataset = request.representative
            converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        try:
            blob = converter.convert()
        except Exception as err:
            ops = lacking_ops(str(err))
            if ops:
                first = next((x for x in str(err).splitlines() if "tf." in x), "")[:300]
                raise UnsupportedOpsError("litert", ops, first or type(err).__name__) from None
            raise
        return bytes(blob)

    def load(self, path: Path) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
        interpreter = need("ai_edge_litert.interpreter", "litert").Interpreter(model_path=str(path))
        runner = interpreter.get_signature_runner()
        details = runner.get_input_details()
        names = list(details)
        outputs = list(runner.get_output_details())
        described = Path(path).parent / "model.json"  # the model's order of both
        if described.is_file():
            spec = json.loads(described.read_text())
            order = [i["name"] for i in spec.get("inputs", [])]
            names = [n for n in order if n in details] if set(order) == set(details) else names
            order = [o["name"] for o in spec.get("outputs", [])]
            outputs = [o for o in order if o in outputs] or outputs

        def run(values: list[np.ndarray]) -> list[np.ndarray]:
            out = runner(
                **{n: np.asarray(v, dtype=details[n]["dtype"]) for n, v in zip(names, values)}
            )
            return [np.asarray(out[k]) for k in outputs]

        return run
