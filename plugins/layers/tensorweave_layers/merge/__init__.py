"""Layers that combine several inputs: ``Add``, ``Concat``, ``Merge``, ``Dot``, the element-wise
merges, ``Residual`` and the gates.

Import the public names from ``tensorweave_layers``."""
