"""Layers over sequences of layers: ``SeqMap`` and ``SeqConcat``.

Import the public names from ``tensorweave_layers``."""
