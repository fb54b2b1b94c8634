"""Convolutions: ``conv`` (``Conv1D``/``2D``/``3D`` and the shared base), ``transposed``,
``depthwise`` and ``separable``.

Import the public names from ``tensorweave_layers``."""
