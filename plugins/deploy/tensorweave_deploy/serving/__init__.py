"""``tensorweave serve``: a trained model over HTTP, in TensorFlow Serving's REST shape.

The parts, each its own module: ``source`` (what a reference names, exported and loaded),
``backends`` (the SavedModel signature, ONNX Runtime), ``model`` (the run's predictor
steps around a backend, and the checking of request bodies), ``batching`` (concurrent
requests sharing one backend call), ``app`` (the Starlette application) and ``server``
(uvicorn, signals). ``docs/serving.md`` tells how to use it. Importing this package loads
neither TensorFlow nor the web stack; its modules do.

>>> import tensorweave_deploy.serving as serving
>>> serving.__name__
'tensorweave_deploy.serving'
"""

__all__: list[str] = []
