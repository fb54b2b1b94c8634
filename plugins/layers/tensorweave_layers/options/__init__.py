"""The components layers take as options (activations, initializers, regularizers,
constraints), their kinds, and how a layer reads its weight options. ``kinds`` imports no
TensorFlow.

Import the public names from ``tensorweave_layers``."""
