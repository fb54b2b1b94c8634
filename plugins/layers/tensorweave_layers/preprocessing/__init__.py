"""Keras's preprocessing layers as tensorweave layers (issue #36): ``Normalization``,
``Rescaling``, ``Discretization``, ``StringLookup``, ``IntegerLookup``, ``CategoryEncoding``,
``Hashing``.

A layer that needs state (mean and variance, bin boundaries, a vocabulary) takes it as an
option or learns it with ``layer.adapt(data)`` in one streaming pass over the data; the
state lives in the layer's variables, so checkpoints and SavedModels carry it
(docs/preprocessing.md). Import the public names from ``tensorweave_layers``.
"""
