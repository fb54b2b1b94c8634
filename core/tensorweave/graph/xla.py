"""Which layer XLA could not compile: ``XLAError`` (kept here for older imports).

``tw.compile(..., jit_compile=True)`` raises an ``XLAError`` naming the layer XLA cannot
compile, its class and its plugin; the code lives with the compiler in ``compile``.

>>> from tensorweave.graph.xla import XLAError
>>> issubclass(XLAError, ValueError)
True
"""

from tensorweave.graph.compile import XLAError, explain, reraise, unsupported_ops

__all__ = ["XLAError", "explain", "unsupported_ops", "reraise"]
