"""Pooling: window, global (``pool``) and adaptive (``adaptive``) pooling.

Import the public names from ``tensorweave_layers``."""
