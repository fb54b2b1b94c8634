"""What Keras users know: ``GaussianNoise`` is ``Augment.v1`` with ``AugmentJitter.v1``.

Read by tensorweave only when a lookup fails (``tw.layers["GaussianNoise.v1"]`` when no pack
offers it) or ``tensorweave describe`` asks. Light: no TensorFlow.

>>> COUNTERPARTS[0].describe()
'Augment.v1 with augmenter="AugmentJitter.v1"'
"""

from __future__ import annotations

import tensorweave as tw

__all__ = ["COUNTERPARTS"]

COUNTERPARTS = (
    tw.Counterpart(
        "Augment.v1", also=("keras.layers.GaussianNoise",), usage='augmenter="AugmentJitter.v1"'
    ),
)
