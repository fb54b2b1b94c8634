"""tensorweave-augment: data augmentation as a component kind of its own.

- ``augmenters``, the kind this pack introduces (``kinds.py``): callables that transform a
  batch during training, found by name like any component (``AugmentJitter.v1``,
  ``AugmentScale.v1``; other packs may add more);
- ``Augment.v1``, the layer that consumes one (``augment.py``): it applies the augmenter
  while training and is the identity at inference;
- ``AugmentOff.v1``, a callback (``callbacks.py``) that turns augmentation off after some
  epochs, for ``Model.train`` and ``tensorweave train``;
- ``tensorweave augment-preview NAME``, a command added through a hook (``hooks.py``).

Nothing needs importing: the components load by name. Public names load on first use.

>>> import tensorweave as tw
>>> "AugmentJitter.v1" in tw.registry("augmenters"), "Augment.v1" in tw.layers
(True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:  # the lazily imported names, for type checkers
    from tensorweave_augment.augment import Augment
    from tensorweave_augment.augmenters import Jitter, Scale
    from tensorweave_augment.callbacks import AugmentOff

# Public name -> the submodule that defines it, imported on first use (PEP 562).
_EXPORTS = {
    "Augment": "augment",
    "Jitter": "augmenters",
    "Scale": "augmenters",
    "AugmentOff": "callbacks",
}

__all__ = ["Augment", "AugmentOff", "Jitter", "Scale"]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
