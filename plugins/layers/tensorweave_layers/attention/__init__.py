"""Attention: multi-head (``MHAttention``), dot-product (``Attention``), additive, grouped-query,
the Transformer blocks, and the weights maths they share.

Import the public names from ``tensorweave_layers``."""
