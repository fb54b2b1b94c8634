"""tensorweave-deploy: models out of tensorweave (ONNX and LiteRT exporters, ``tensorweave serve``).

Light on import: the converters and the server load only when an export or a server runs.

>>> import tensorweave_deploy
>>> tensorweave_deploy.__name__
'tensorweave_deploy'
"""

__all__: list[str] = []
