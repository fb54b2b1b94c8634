"""tensorweave-keras: Keras 3 and tensorweave, each usable inside the other.

- ``KerasLayer`` (registered as ``"KerasLayer.v1"``): any Keras layer or model as a
  tensorweave layer; its Keras weights are the layer's variables, so GradientTape training
  and ``tf.train.Checkpoint`` see them.
- ``TensorweaveLayer``: a tensorweave graph as a ``keras.layers.Layer``; its tensorweave
  variables are the Keras layer's weights, so ``model.fit`` trains them.

Keras must run on its TensorFlow backend (the default when TensorFlow is installed).
Importing the package is cheap: each name's module is imported when the name is first used.

>>> import keras, tensorweave as tw
>>> y = tw.layers["KerasLayer.v1"](tw.Input(n_units=3), layer=keras.layers.Dense(2))
>>> y.shape
(None, 2)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:  # the lazily imported names, for type checkers
    from tensorweave_keras.keras_layer import KerasLayer
    from tensorweave_keras.tw_layer import TensorweaveLayer

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first use (PEP 562): importing
# one submodule (an entry point's target, a hook module) never imports the whole pack.
_EXPORTS = {
    "KerasLayer": "keras_layer",
    "TensorweaveLayer": "tw_layer",
}

__all__ = [
    "KerasLayer",
    "TensorweaveLayer",
    "__version__",
]


__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
