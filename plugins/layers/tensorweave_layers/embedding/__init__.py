"""Embeddings: ``Lookup`` and the position embeddings (learned, sinusoidal, rotary), and the
reversible embedding.

Import the public names from ``tensorweave_layers``."""
