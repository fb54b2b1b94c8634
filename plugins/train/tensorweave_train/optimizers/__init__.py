"""Optimizers, learning-rate schedules and gradient clipping.

``Optimizer`` (``optimizer``) owns hyperparameter variables, lazy slots, clipping
(``clipping``), schedules (``schedules``), constraints, weight averages (``averaging``),
gradient accumulation (``accumulation``) and ``tf.distribute``; each rule implements its
dense and sparse update (``sgd``, ``adam``, ``rmsprop``, ``adagrad``, ``nadam``, ``adamax``,
``adadelta``, ``ftrl``, ``lion``, ``lamb``, ``adafactor``), matching Keras 3.

>>> import tensorflow as tf
>>> v = tf.Variable([1.0, 2.0])
>>> Adam(learning_rate=0.1).apply_gradients([(tf.constant([1.0, -1.0]), v)])
>>> [round(x, 4) for x in v.numpy().tolist()]
[0.9, 2.1]
"""

from tensorweave_train.optimizers.adadelta import Adadelta
from tensorweave_train.optimizers.adafactor import Adafactor
from tensorweave_train.optimizers.adagrad import Adagrad
from tensorweave_train.optimizers.adam import Adam, AdamW
from tensorweave_train.optimizers.adamax import Adamax
from tensorweave_train.optimizers.clipping import Gradient, clip_gradients
from tensorweave_train.optimizers.ftrl import Ftrl
from tensorweave_train.optimizers.lamb import Lamb
from tensorweave_train.optimizers.lion import Lion
from tensorweave_train.optimizers.nadam import Nadam
from tensorweave_train.optimizers.optimizer import Optimizer
from tensorweave_train.optimizers.rmsprop import RMSprop
from tensorweave_train.optimizers.schedules import (
    Constant,
    CosineDecay,
    CosineDecayRestarts,
    ExponentialDecay,
    InverseTimeDecay,
    OneCycle,
    PiecewiseConstant,
    PolynomialDecay,
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
    "Nadam",
    "Adamax",
    "Adadelta",
    "Ftrl",
    "Lion",
    "Lamb",
    "Adafactor",
    "Gradient",
    "clip_gradients",
    "Schedule",
    "Constant",
    "StepDecay",
    "ExponentialDecay",
    "CosineDecay",
    "WarmUp",
    "PolynomialDecay",
    "PiecewiseConstant",
    "CosineDecayRestarts",
    "InverseTimeDecay",
    "OneCycle",
]
