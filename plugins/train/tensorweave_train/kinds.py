"""The component kinds this pack introduces: optimizers, schedules, trainers, callbacks, voters.

Declared in the pack's ``pyproject.toml`` (entry-point group ``tensorweave.kinds``), so any
pack may offer components of these kinds, each checked when it loads. Light on purpose (no
TensorFlow): it is imported whenever a component of these kinds loads.

>>> optimizers.check(dict), callbacks.check(None)
(None, 'a callback must be a Callback class or a function that makes one, got NoneType None')
"""

from __future__ import annotations

import tensorweave as tw

__all__ = ["optimizers", "schedules", "trainers", "callbacks", "voters"]


optimizers = tw.Kind.of_callables(
    "optimizers",
    doc="Optimizer classes (SGD, Adam…): Name(learning_rate, ...) updates variables",
    expected="an optimizer must be an Optimizer class or a function that makes one",
)
schedules = tw.Kind.of_callables(
    "schedules",
    doc="learning-rate schedules: callables step -> factor of the base learning rate",
    expected="a schedule must be a Schedule class or a function step -> factor",
)
trainers = tw.Kind.of_callables(
    "trainers",
    doc="how a model trains: the loop (Trainer.v1: Trainer(model, callbacks=...) runs the "
    "events of a training) and recipes for a job config's [trainer] section, whose "
    "build_model(graph, optimizer=...) makes the model (GANTrainer.v1)",
    expected="a trainer must be a class Trainer(model, ...) or a recipe class",
)
callbacks = tw.Kind.of_callables(
    "callbacks",
    doc="Callback classes run on training events (early stopping, CSV logs, checkpoints…)",
    expected="a callback must be a Callback class or a function that makes one",
)
voters = tw.Kind.of_callables(
    "voters",
    doc="ensemble voters: voter(outputs) -> one array, combining several models' outputs",
    expected="a voter must be a function voter(outputs) -> array",
)
