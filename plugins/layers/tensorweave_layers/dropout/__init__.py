"""Dropout and noise: ``Dropout``, ``DropConnect``, ``DropLookup``, spatial dropout and the
noise layers.

Import the public names from ``tensorweave_layers``."""
