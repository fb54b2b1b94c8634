"""The export formats of tensorweave-deploy, registered in ``tw.exporters``: ``onnx``
(tf2onnx, run by onnxruntime) and ``litert`` (TensorFlow's LiteRT converter, run by
ai-edge-litert's interpreter). ``tensorweave export RUN --format onnx -o PATH`` and
``model.export(PATH, format="litert", quantize="int8", calibration=...)`` use them by name.

Light: the converters load only when an export runs; a missing one is a
``MissingConverterError`` naming the pip command that installs it.

>>> from tensorweave_deploy.exporters.common import MissingConverterError
>>> print(MissingConverterError("onnx", "tf2onnx"))
the onnx export format needs tf2onnx, which is not installed. Fix: pip install 'tensorweave-deploy[onnx]'
"""

from __future__ import annotations

__all__: list[str] = []
