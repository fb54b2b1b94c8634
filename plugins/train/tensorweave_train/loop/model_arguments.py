"""The public door of ``Model.train``/``evaluate``/``predict``: their arguments checked, and
Keras's ``fit(x, y)`` spelling turned into the data the loop reads.

``batch_size``, ``epochs`` and ``steps_per_execution`` that cannot mean anything (``0``,
``-4``, ``2.5``, ``"8"``, ``True``) are a ``tw.ArgumentError`` naming the argument before
anything runs. ``model.train(x, y, epochs=3)`` takes arrays positionally as Keras's ``fit``:
``x`` for the inputs and ``y`` for the targets (an array each when there is one, else a list
in order or a dict by name); ``model.train(data, epochs=3)`` takes everything in one value.
A number where the targets go (``model.train(data, 3)``) is a ``tw.ArgumentError`` that
says ``epochs=3``.

>>> import numpy as np, tensorweave as tw
>>> x, t = tw.Input(n_units=2, name="x"), tw.Input(n_units=1, name="t")
>>> sorted(fit_data("Model.train", [x], [t], np.zeros((4, 2)), np.ones((4, 1))))
['t', 'x']
>>> check_sizes("Model.train", batch_size=0)
Traceback (most recent call last):
...
tensorweave.errors.ArgumentError: Model.train: batch_size must be a positive integer, got 0 (int). ...
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_train.loop.data import split_validation
from tensorweave_train.loop.steps import check_steps_per_execution

__all__ = ["check_sizes", "check_targets", "fit_data", "fit_arguments"]

_FIX = {
    "batch_size": "batch_size=32 (or None: 32 for arrays; batched data brings its own)",
    "epochs": "epochs=10 (the total number of epochs)",
}


def check_sizes(owner: str, **sizes: Any) -> None:
    """Raise ``tw.ArgumentError`` naming the first of ``batch_size`` (``None`` allowed),
    ``epochs`` or ``steps_per_execution`` that is not a positive integer."""
    for arg, value in sizes.items():
        if arg == "steps_per_execution":
            check_steps_per_execution(value, owner)
            continue
        if value is None and arg == "batch_size":
            continue
        try:
            tw.positive_int(value, arg, owner)
        except tw.ArgumentError as err:
            raise tw.ArgumentError(f"{err} Fix: {_FIX[arg]}.") from None


def check_targets(owner: str, y: Any) -> None:
    """Raise ``tw.ArgumentError`` when ``y`` is a bare number: the targets are arrays
    (``model.train(data, 5)`` reads 5 as the targets; the epochs are ``epochs=5``)."""
    if isinstance(y, bool) or not isinstance(y, int | float | np.number):
        return
    raise tw.ArgumentError(
        f"{owner}: y is the targets (as Keras's fit(x, y)), got the number {y!r}. Fix: "
        f"write epochs={y!r} for the number of epochs."
    )


def _by_name(owner: str, arg: str, layers: Sequence[tw.Layer], value: Any) -> dict[str, Any]:
    names = [layer.name for layer in layers]
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in names]
        if unknown:
            raise tw.ArgumentError(
                f"{owner}: {arg} names {unknown}, which the model does not take. Fix: the "
                f"names of {arg} are {names}."
            )
        return dict(value)
    values = list(value) if isinstance(value, list | tuple) else [value]
    if len(values) != len(layers):
        what = "inputs" if arg == "x" else "targets"
        raise tw.ArgumentError(
            f"{owner}: {arg} holds {len(values)} array(s), the model has {len(layers)} "
            f"{what} {names}. Fix: one array per {what[:-1]}, in that order (or a dict by name)."
        )
    return dict(zip(names, values, strict=True))


def fit_data(
    owner: str, inputs: Sequence[tw.Layer], targets: Sequence[tw.Layer], x: Any, y: Any
) -> Any:
    """The data ``train``/``evaluate`` read from Keras's ``(x, y)``: ``x`` alone is the data
    as it is (a dict, a tuple in feed order, a dataset...); with ``y`` both become one
    ``{name: array}`` dict, ``x`` by the inputs and ``y`` by the targets."""
    if y is None:
        return tuple(x) if isinstance(x, list) and all(isinstance(a, np.ndarray) for a in x) else x
    if not targets:
        raise tw.ArgumentError(
            f"{owner}: y was given but the model has no targets. Fix: build it with targets=..."
        )
    return {**_by_name(owner, "x", inputs, x), **_by_name(owner, "y", targets, y)}


def fit_arguments(
    model: Any,
    x: Any,
    y: Any,
    epochs: Any,
    batch_size: Any,
    validation: Any,
    validation_split: float,
) -> tuple[Any, Any, int]:
    """``Model.train``'s arguments checked: the data, the validation data (held out by
    ``validation_split``) and the epochs."""
    owner = f"Model {model.name!r}.train"
    check_targets(owner, y)
    check_sizes(
        owner,
        batch_size=batch_size,
        epochs=epochs,
        steps_per_execution=model.steps_per_execution,
    )
    data = fit_data(owner, model.inputs, model.targets, x, y)
    if validation_split:
        if validation is not None:
            raise tw.ArgumentError("Model.train: give validation= or validation_split=, not both.")
        data, validation = split_validation(data, validation_split)
    return data, validation, int(epochs)
