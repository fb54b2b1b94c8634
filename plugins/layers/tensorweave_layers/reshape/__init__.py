"""Layers that change the shape of each example: reshape, transpose, flatten, repeat, resample,
pad, crop.

Import the public names from ``tensorweave_layers``."""
