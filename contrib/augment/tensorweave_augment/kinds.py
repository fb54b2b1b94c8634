"""The kind this pack introduces: ``augmenters``.

An augmenter is a class whose instances transform a batch: ``augmenter(x, rng)`` returns
a tensor of ``x``'s shape and dtype, drawing its randomness from ``rng`` (a
``tf.random.Generator``) so that a seeded, checkpointed run draws the same. The ``Augment``
layer applies one while training. Declared in ``pyproject.toml``; any pack may offer
augmenters in ``tensorweave.augmenters``, and this kind's check runs on each when it loads.

Imported whenever an augmenter loads, and by ``tensorweave plugins``: no TensorFlow here.

>>> augmenters.check(3)
'an augmenter must be a class whose instances are called as augmenter(x, rng), got int 3'
"""

from __future__ import annotations

import tensorweave as tw

__all__ = ["augmenters"]

augmenters = tw.Kind.of_callables(
    "augmenters",
    doc="batch transforms applied while training: augmenter(x, rng) -> x's shape and dtype",
    expected="an augmenter must be a class whose instances are called as augmenter(x, rng)",
)
