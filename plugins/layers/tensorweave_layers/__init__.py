"""tensorweave-layers: the standard layer catalogue, registered by versioned name.

Use the layers by name through the core registry, e.g. ``tw.layers["Linear.v1"]``.
"""

__version__ = "0.1.0"
