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

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave.keywords import unknown_keyword
from tensorweave_train.loop.data import split_validation
from tensorweave_train.loop.steps import check_steps_per_execution

__all__ = [
    "check_sizes",
    "check_targets",
    "check_keras_keywords",
    "fit_data",
    "fit_arguments",
    "named_inputs",
    "loss_by_name",
    "check_ids",
    "explained",
]

#: Keras's ``fit``/``evaluate``/``predict`` arguments that are spelled otherwise here
_KERAS_FIT = {
    "validation_data": "validation=(x_val, y_val)",
    "initial_epoch": "resume=run_dir (the epoch comes from the checkpoint)",
    "steps_per_epoch": "data that yields that many batches per epoch",
    "validation_steps": "validation data of that many batches",
    "validation_batch_size": "batch_size= (validation uses the same)",
    "class_weight": "a weighted loss (e.g. sample_weight= of the loss node)",
    "sample_weight": "a weighted loss (e.g. sample_weight= of the loss node)",
    "workers": "a tf.data.Dataset with its own parallelism",
    "use_multiprocessing": "a tf.data.Dataset with its own parallelism",
    "max_queue_size": "a tf.data.Dataset (it prefetches)",
}


def check_keras_keywords(owner: str, given: Mapping[str, Any], known: Sequence[str]) -> None:
    """Raise ``tw.ArgumentError`` for keywords ``train``/``evaluate``/``predict`` do not
    take, saying what to write for Keras's (``validation_data`` is ``validation=``).

    >>> check_keras_keywords("Model.train", {"validation_data": 1}, ["x", "validation"])
    Traceback (most recent call last):
    ...
    tensorweave.errors.ArgumentError: Model.train: 'validation_data' is Keras's spelling; write validation=(x_val, y_val).
    """
    for key in given:
        if key in _KERAS_FIT:
            raise tw.ArgumentError(
                f"{owner}: {key!r} is Keras's spelling; write {_KERAS_FIT[key]}."
            )
        raise tw.ArgumentError(f"{owner}: {unknown_keyword(key, owner, known)}")


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


def named_inputs(owner: str, inputs: Any) -> Any:
    """``Model({name: Input, ...})`` as Keras's: the inputs of a mapping, each key the name
    of its ``Input`` (the name data is fed by); a key naming another is an error."""
    if not isinstance(inputs, Mapping):
        return inputs
    for key, layer in inputs.items():
        if not isinstance(layer, tw.Layer):
            raise tw.ArgumentError(
                f"{owner}: inputs[{key!r}] is a {type(layer).__name__}, not a layer. Fix: "
                f"inputs={{{key!r}: tw.Input(..., name={key!r})}}."
            )
        if layer.name != key:
            raise tw.ArgumentError(
                f"{owner}: inputs[{key!r}] is the Input named {layer.name!r}; data is fed by "
                f"the Input's name. Fix: tw.Input(..., name={key!r}), or the key "
                f"{layer.name!r}."
            )
    return list(inputs.values())


def _loss_component(owner: str, name: str) -> tuple[str, Any]:
    """The registered loss ``name`` (``"sparse_categorical_cross_entropy.v1"``), or the one
    a pack declares as the counterpart of Keras's name (``"sparse_categorical_crossentropy"``,
    ``"mse"``), through the registry."""
    try:
        return name, tw.resolve("losses", name, owner=owner, option="loss")
    except tw.UnknownComponentError:
        rows = tw.registries.known_as("losses", name)
        if len(rows) != 1 or rows[0].usage:
            raise
        found = rows[0].component
        return found, tw.resolve("losses", found, owner=owner, option="loss")


def loss_by_name(
    owner: str, loss: str, outputs: Sequence[tw.Layer], targets: Sequence[tw.Layer]
) -> tuple[tw.Layer, tuple[tw.Layer, ...]]:
    """``Model(loss="sparse_categorical_crossentropy")`` as Keras's ``compile(loss=...)``:
    the registered loss of that name (or of that Keras name) applied to the one target and
    the one output, as ``loss(targets, outputs)`` with its defaults (``from_logits=False``,
    as Keras's). Without ``targets=`` the target ``Input`` is made, named ``"y"`` (as
    ``fit(x, y)``): integer class ids of one per example for a sparse loss, else the
    output's shape. Returns the loss node and the targets."""
    if len(outputs) != 1:
        raise tw.ArgumentError(
            f"{owner}: loss={loss!r} names one loss, but the model has {len(outputs)} "
            "outputs. Fix: one loss node per output: loss={'a': loss_a, 'b': loss_b}."
        )
    found, make = _loss_component(owner, loss)
    (output,) = outputs
    if not targets:
        sparse = "sparse" in found
        shape = (*output.shape[1:-1], 1) if sparse else tuple(output.shape[1:])
        dtype = "int64" if sparse else output.dtype
        name = "y" if output.name != "y" else "y_true"
        targets = (tw.Input(shape=shape, dtype=dtype, name=name),)
    if len(targets) != 1:
        raise tw.ArgumentError(
            f"{owner}: loss={loss!r} names one loss, but the model has {len(targets)} "
            "targets. Fix: build the loss node yourself: loss=tw.losses[...](target, output)."
        )
    node = make(targets[0], output, name=found.split(".")[0])
    return node, tuple(targets)


def _option(layer: Any, name: str) -> Any:
    """The constructor option ``name`` a layer was built with (``None`` if not given)."""
    init = getattr(layer, "_tw_init_args", None)
    options = init[1] if isinstance(init, tuple) and len(init) == 2 else {}
    return options.get(name) if isinstance(options, Mapping) else None


def _arrays(feeds: Sequence[tw.Layer], data: Any) -> dict[int, np.ndarray]:
    """The array each feed gets from ``data`` (a dict by name or a tuple in feed order of
    arrays), by the feed's ``id``; ``{}`` for other data (datasets, batches...)."""
    if isinstance(data, Mapping):
        pairs = [(f, data.get(f.name)) for f in feeds]
    elif isinstance(data, tuple):
        pairs = list(zip(feeds, data, strict=False))
    else:
        return {}
    return {id(f): a for f, a in pairs if isinstance(a, np.ndarray) and a.size}


def _ids_users(layers: Sequence[tw.Layer]) -> list[tuple[tw.Layer, tw.Layer, int, str]]:
    """``(layer, input, bound, kind)`` of the layers reading integer ids straight from an
    input: a lookup's ``vocab_size`` (``kind="vocab"``) and a sparse loss's or metric's
    number of classes (``kind="classes"``)."""
    out = []
    for layer in layers:
        inputs: Sequence[Any] = tuple(getattr(layer, "inputs", ()))
        vocab = _option(layer, "vocab_size")
        if isinstance(vocab, int) and inputs and isinstance(inputs[0], tw.Input):
            out.append((layer, inputs[0], vocab, "vocab"))
        fn = getattr(layer, "function", None)
        if (
            str(getattr(fn, "__name__", "")).startswith("sparse_")
            and len(inputs) >= 2
            and isinstance(inputs[0], tw.Input)
            and isinstance(inputs[1].shape[-1] if inputs[1].shape else None, int)
        ):
            out.append((layer, inputs[0], int(inputs[1].shape[-1]), "classes"))
    return out


def check_ids(owner: str, model: Any, data: Any) -> None:
    """Before anything runs: raise ``tw.InputValueError`` when array ``data`` holds an id
    past the ``vocab_size`` of a lookup (an ``Embedding``) reading the input directly, or
    a label outside the classes of a sparse loss or metric, naming the layer, the value
    and the fix (TensorFlow's ``indices[0] = 353 is not in [0, 100)`` otherwise, from deep
    inside the compiled step)."""
    arrays = _arrays(model.feeds, data)
    if not arrays:
        return
    layers = list(model.layers)
    for graph in (getattr(model, "loss_graph", None), getattr(model, "eval_graph", None)):
        if graph is not None:
            layers += [n for n in graph.nodes if all(n is not m for m in layers)]
    for layer, given, bound, kind in _ids_users(layers):
        values = arrays.get(id(given))
        if values is None or not np.issubdtype(values.dtype, np.number):
            continue
        low, high = values.min(), values.max()
        if low >= 0 and high < bound:
            continue
        bad = (high if high >= bound else low).item()
        if kind == "vocab":
            raise tw.InputValueError(
                f"{owner}: the data of {given.name!r} holds the id {bad!r}, but "
                f"{type(layer).__name__} {layer.name!r} reading it has vocab_size={bound} (ids "
                f"0 to {bound - 1}). Fix: vocab_size={int(high) + 1} (or more), or map the ids "
                f"into [0, {bound})."
            )
        raise tw.InputValueError(
            f"{owner}: the labels {given.name!r} hold the class {bad!r}, but "
            f"{layer.name!r} scores {bound} classes (0 to {bound - 1}) of "
            f"{layer.inputs[1].name!r}. Fix: give {layer.inputs[1].name!r} "
            f"n_units={int(high) + 1} (one per class), or check the label encoding (1-based "
            "ids? a padding id?)."
        )


_OUT_OF_RANGE = re.compile(r"indices\[[^\]]*\] = (-?\d+) is not in \[0, (\d+)\)")
_LABELS = re.compile(r"(\w+: labels must be class ids in \[0, \d+\)[^\n\]]*)")


def explained(owner: str, error: BaseException, model: Any) -> tw.TensorweaveError | None:
    """A ``tw.TensorweaveError`` naming the component for a TensorFlow error of the
    compiled steps, or ``None``: an id past a lookup's ``vocab_size``, a label out of
    range, an op without a 16-bit kernel under mixed precision
    (``tensorweave.graph.precision.missing_kernel``)."""
    text = str(error)
    found = _OUT_OF_RANGE.search(text)
    if found is not None:
        value, bound = int(found.group(1)), int(found.group(2))
        users = [
            layer
            for layer, _, n, kind in _ids_users(model.layers)
            if kind == "vocab" and n == bound
        ]
        who = f"{type(users[0]).__name__} {users[0].name!r}" if users else "a lookup"
        return tw.InputValueError(
            f"{owner}: the data holds the id {value}, but {who} has {bound} rows (ids 0 to "
            f"{bound - 1}). Fix: vocab_size={value + 1} (or more), or map the ids into "
            f"[0, {bound})."
        )
    found = _LABELS.search(text)
    if found is not None:
        return tw.InputValueError(f"{owner}: {found.group(1).strip()}")
    from tensorweave.graph.precision import missing_kernel

    return missing_kernel(error, list(model.layers), model.precision)
