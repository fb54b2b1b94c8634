"""Normalization layers: batch, layer, group/instance, RMS, spectral and local response.

Import the public names from ``tensorweave_layers``."""
