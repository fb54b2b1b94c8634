"""tensorweave-data: processors, parallel pipelines and download-free datasets.

Use them by registered name through the core registries: ``tw.processors["normalize.v1"]``,
``tw.registry("pipelines")["Pipeline.v1"]``, ``tw.registry("datasets")["digits.v1"]``.
"""

__version__ = "0.1.0"
