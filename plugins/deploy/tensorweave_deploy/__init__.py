"""tensorweave-deploy: models out of tensorweave (ONNX and LiteRT exporters, ``tensorweave serve``).

The ``onnx`` and ``litert`` export formats (``exporters``) are registered in
``tw.exporters`` by this pack's entry points and used by name: ``tensorweave export RUN
--format onnx -o PATH`` (docs/deploy.md).

Light on import: the converters and the server load only when an export or a server runs.

>>> import tensorweave_deploy
>>> tensorweave_deploy.__name__
'tensorweave_deploy'
"""

__all__: list[str] = []
