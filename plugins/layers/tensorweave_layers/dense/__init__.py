"""Dense layers: ``Linear``, ``FC`` (linear + activation) and ``EinsumDense``.

Import the public names from ``tensorweave_layers``."""
