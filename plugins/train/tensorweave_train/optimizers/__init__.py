"""Optimizers, learning-rate schedules and gradient clipping.

``Optimizer`` (``optimizer``) owns hyperparameter variables, lazy slots, clipping
(``clipping``), schedules (``schedules``) and ``tf.distribute``; each rule implements its
dense and sparse update (``sgd``, ``adam``, ``rmsprop``, ``adagrad``), matching Keras 3.

>>> import tensorflow as tf
>>> v = tf.Variable([1.0, 2.0])
>>> Adam(learning_rate=0.1).apply_gradients([(tf.constant([1.0, -1.0]), v)])
>>> [round(x, 4) for x in v.numpy().tolist()]
[0.9, 2.1]
"""

from tensorweave_train.optimizers.adagrad import Adagrad
from tensorweave_train.optimizers.adam import Adam, AdamW
from tensorweave_train.optimizers.clipping import Gradient, clip_gradients
from tensorweave_train.optimizers.optimizer import Optimizer
from tensorweave_train.optimizers.rmsprop import RMSprop
from tensorweave_train.optimizers.schedules import (
    Constant,
    CosineDecay,
    ExponentialDecay,
    Schedule,
    StepDecay,
    WarmUp,
)
from tensorweave_train.optimizers.sgd import SGD

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "Gradient",
    "clip_gradients",
    "Schedule",
    "Constant",
    "StepDecay",
    "ExponentialDecay",
    "CosineDecay",
    "WarmUp",
]
