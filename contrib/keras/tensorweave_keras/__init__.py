"""tensorweave-keras: Keras 3 and tensorweave, each usable inside the other.

- ``KerasLayer`` (registered as ``"KerasLayer.v1"``): any Keras layer or model as a
  tensorweave layer; its Keras weights are the layer's variables, so GradientTape training
  and ``tf.train.Checkpoint`` see them.
- ``TensorweaveLayer``: a tensorweave graph as a ``keras.layers.Layer``; its tensorweave
  variables are the Keras layer's weights, so ``model.fit`` trains them.

Keras must run on its TensorFlow backend (the default when TensorFlow is installed).

>>> import keras, tensorweave as tw
>>> y = tw.layers["KerasLayer.v1"](tw.Input(n_units=3), layer=keras.layers.Dense(2))
>>> y.shape
(None, 2)
"""

from tensorweave_keras.keras_layer import KerasLayer
from tensorweave_keras.tw_layer import TensorweaveLayer

__all__ = ["KerasLayer", "TensorweaveLayer"]
