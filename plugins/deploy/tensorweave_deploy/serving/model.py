"""A served model: a backend with the run's predictor steps around it, and the reading of
TF Serving's request bodies into checked batches.

``ServedModel.prepare(body)`` reads ``{"instances": [...]}`` (rows: one value per example,
or one object per example holding each input by name) or ``{"inputs": ...}`` (columns: one
batch, or an object of batches by input name), checks it (names, shapes, dtypes, finite
numbers, the number of instances) and pre-processes it as ``tensorweave predict`` does; a
problem is a ``RequestError`` (4xx) saying what to send. ``answer(outputs)`` post-processes
one request's rows of the backend's outputs into ``{"predictions": [...]}`` or
``{"outputs": ...}``.

>>> import numpy as np
>>> from tensorweave_deploy.serving.backends import TensorInfo
>>> class Twice:
...     format, inputs = "test", [TensorInfo("x", (None, 2), "float32")]
...     outputs = [TensorInfo("y", (None, 2), "float32")]
...     def run(self, feed):
...         return [feed["x"] * 2]
>>> model = ServedModel("twice", Twice(), postprocess=[{"@processors": "argmax.v1"}])
>>> request = model.prepare({"instances": [[1, 3], [4, 0]]})
>>> model.answer(request, model.backend.run(request.feed))
{'predictions': [1, 0]}
>>> try:
...     model.prepare({"instances": [[1, 2, 3]]})
... except Exception as err:
...     print(err.status, err)  # doctest: +ELLIPSIS
400 input 'x' takes instances of shape [2] (float32); the request's have shape [3]. Send ...
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_deploy.serving.backends import Backend, TensorInfo
from tensorweave_deploy.serving.errors import RequestError

__all__ = ["ServedModel", "Prepared"]


@dataclass
class Prepared:
    """One request, read and pre-processed: its ``feed`` (one batch per input), its number
    of ``rows`` and its ``form`` (``instances`` or ``inputs``: how to answer)."""

    feed: dict[str, np.ndarray]
    rows: int
    form: str


@dataclass
class ServedModel:
    """A backend with the run's steps (``{"@processors": name, **params}`` blocks, as in
    ``processors.json``) and what ``GET /v1/models/NAME`` tells about it."""

    name: str
    backend: Backend
    preprocess: Sequence[Mapping[str, Any]] = ()
    postprocess: Sequence[Mapping[str, Any]] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    max_instances: int = 1024

    def __post_init__(self) -> None:
        self._pre = _pipeline(self.preprocess)
        self._post = _pipeline(self.postprocess)

    @property
    def inputs(self) -> list[TensorInfo]:
        return list(self.backend.inputs)

    def describe(self) -> dict[str, Any]:
        """The signature (inputs and outputs) and metadata, as plain JSON."""
        return {
            "signature": {
                "inputs": [i.describe() for i in self.backend.inputs],
                "outputs": [o.describe() for o in self.backend.outputs],
            },
            "format": self.backend.format,
            "preprocess": [str(s.get("@processors")) for s in self.preprocess],
            "postprocess": [str(s.get("@processors")) for s in self.postprocess],
            "max_instances": self.max_instances,
            **self.metadata,
        }

    # -- requests -----------------------------------------------------------------------
    def prepare(self, body: Any) -> Prepared:
        """``body`` (parsed JSON) as a checked, pre-processed batch (see the module docstring)."""
        if not isinstance(body, dict) or ("instances" in body) == ("inputs" in body):
            raise RequestError(
                400,
                f"the body must be a JSON object with one of 'instances' or 'inputs'. {self.what_to_send()}",
            )
        form = "instances" if "instances" in body else "inputs"
        columns = (
            self._rows(body["instances"]) if form == "instances" else self._columns(body["inputs"])
        )
        raw = {name: self._array(name, value) for name, value in columns.items()}
        for name, x in raw.items():
            rows = len(x) if x.ndim else 1
            if rows > self.max_instances:
                raise RequestError(
                    413,
                    f"{rows} instances for input {name!r} in one request; this server takes at most "
                    f"{self.max_instances} (--max-instances). Send them in several requests.",
                )
        feed = self._preprocessed(raw)
        counts = {len(x) for x in feed.values()}
        if len(counts) > 1:
            sizes = {n: len(x) for n, x in feed.items()}
            raise RequestError(
                400,
                f"the inputs hold different numbers of instances {sizes}; send as many of each.",
            )
        return Prepared(feed, counts.pop(), form)

    def answer(self, request: Prepared, outputs: Sequence[np.ndarray]) -> dict[str, Any]:
        """``request``'s rows of the backend's ``outputs``, post-processed, as TF Serving
        answers: ``{"predictions": [one per instance]}`` or ``{"outputs": ...}``."""
        value: Any = outputs[0] if len(outputs) == 1 else tuple(outputs)
        if self.postprocess:
            value = self._post(value)
        if isinstance(value, tuple | list) and len(value) == len(self.backend.outputs) > 1:
            named = {o.name: np.asarray(v) for o, v in zip(self.backend.outputs, value)}
            if request.form == "inputs":
                return {"outputs": {n: v.tolist() for n, v in named.items()}}
            return {
                "predictions": [
                    {n: v[i].tolist() for n, v in named.items()} for i in range(request.rows)
                ]
            }
        key = "predictions" if request.form == "instances" else "outputs"
        return {key: np.asarray(value).tolist()}

    # -- reading ------------------------------------------------------------------------
    def what_to_send(self) -> str:
        """What a request should hold, for messages."""
        first = self.backend.inputs[0]
        example = _example(first)
        if len(self.backend.inputs) == 1:
            return f'Send {{"instances": [{example}, ...]}} (input {first.name!r}: {_what(first)}).'
        names = ", ".join(f'"{i.name}": {_example(i)}' for i in self.backend.inputs)
        return f'Send {{"instances": [{{{names}}}, ...]}} (one object per instance).'

    def _rows(self, instances: Any) -> dict[str, list[Any]]:
        names = [i.name for i in self.backend.inputs]
        if not isinstance(instances, list) or not instances:
            raise RequestError(
                400,
                f"'instances' must be a non-empty list, one entry per instance. {self.what_to_send()}",
            )
        if len(instances) > self.max_instances:
            raise RequestError(
                413,
                f"{len(instances)} instances in one request; this server takes at most "
                f"{self.max_instances} (--max-instances). Send them in several requests.",
            )
        if all(isinstance(i, dict) for i in instances):
            for k, instance in enumerate(instances):
                self._check_names(instance, f"instance {k}")
            return {n: [i[n] for i in instances] for n in names}
        if any(isinstance(i, dict) for i in instances):
            raise RequestError(
                400, f"'instances' mixes objects and values; send one form. {self.what_to_send()}"
            )
        if len(names) > 1:
            raise RequestError(
                400,
                f"this model has {len(names)} inputs ({', '.join(names)}). {self.what_to_send()}",
            )
        return {names[0]: instances}

    def _columns(self, inputs: Any) -> dict[str, Any]:
        names = [i.name for i in self.backend.inputs]
        if isinstance(inputs, dict):
            self._check_names(inputs, "'inputs'")
            return {n: inputs[n] for n in names}
        if len(names) > 1:
            raise RequestError(
                400,
                f"this model has {len(names)} inputs ({', '.join(names)}): send 'inputs' as an "
                f"object {{{', '.join(json.dumps(n) + ': [...]' for n in names)}}}.",
            )
        return {names[0]: inputs}

    def _check_names(self, given: Mapping[str, Any], where: str) -> None:
        names = [i.name for i in self.backend.inputs]
        missing = [n for n in names if n not in given]
        extra = sorted(str(k) for k in given if k not in names)
        if missing or extra:
            text = f"missing input(s) {missing}" if missing else ""
            text += ("; " if text and extra else "") + (
                f"unknown input(s) {extra}" if extra else ""
            )
            raise RequestError(
                400, f"{where}: {text}; the model's inputs are {names}. {self.what_to_send()}"
            )

    def _array(self, name: str, value: Any) -> np.ndarray:
        info = next(i for i in self.backend.inputs if i.name == name)
        try:
            x = np.asarray(value)
        except ValueError:
            x = np.asarray(None, dtype=object)
        if x.dtype == object or x.size == 0:
            what = (
                "is empty"
                if x.size == 0 and x.dtype != object
                else "is not a rectangular array of numbers (rows of different lengths, or nulls/objects in it)"
            )
            raise RequestError(400, f"input {name!r} {what}. {self.what_to_send()}")
        kind = np.dtype(info.dtype).kind
        if x.dtype.kind in "US" and kind not in "US":
            raise RequestError(
                400,
                f"input {name!r} takes {_what(info)}; the request gives strings. {self.what_to_send()}",
            )
        if x.dtype.kind == "b" and kind != "b":
            raise RequestError(
                400,
                f"input {name!r} takes {_what(info)}; the request gives booleans. {self.what_to_send()}",
            )
        if x.dtype.kind == "f":
            bad = int((~np.isfinite(x)).sum())
            if bad:
                raise RequestError(
                    400, f"input {name!r} holds {bad} NaN/infinite value(s); send finite numbers."
                )
            if kind in "iu" and not np.all(np.equal(np.mod(x, 1), 0)):
                raise RequestError(
                    400,
                    f"input {name!r} takes {_what(info)}; the request gives fractional numbers. {self.what_to_send()}",
                )
        return x

    def _preprocessed(self, raw: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        infos = self.backend.inputs
        try:
            if len(infos) == 1:
                done: Any = {infos[0].name: self._pre(raw[infos[0].name])}
            else:
                done = self._pre(raw) if self.preprocess else raw
        except (ValueError, TypeError, KeyError) as err:
            raise RequestError(
                400,
                f"the run's pre-processing cannot take this input: {err}. {self.what_to_send()}",
            ) from None
        if not isinstance(done, Mapping):
            raise RequestError(
                400, "the run's pre-processing turned the inputs into one value, not one per input."
            )
        feed = {}
        for info in infos:
            x = np.asarray(done[info.name])
            if x.ndim == len(info.shape) - 1:
                x = x[None]  # one example: its batch axis
            dims = info.shape[1:]
            if x.ndim != len(info.shape) or any(
                d is not None and d != s for d, s in zip(dims, x.shape[1:])
            ):
                want = [-1 if d is None else d for d in dims]
                raise RequestError(
                    400,
                    f"input {info.name!r} takes instances of shape {want} ({info.dtype}); the "
                    f"request's have shape {list(x.shape[1:])}. {self.what_to_send()}",
                )
            feed[info.name] = x.astype(info.dtype, copy=False)
        return feed


def _pipeline(steps: Sequence[Mapping[str, Any]]) -> Callable[[Any], Any]:
    """The function running saved steps, as ``tensorweave predict`` runs them: the data
    pack's ``Pipeline.v1``, by registered name."""
    if not steps:
        return lambda value: value
    make = tw.resolve("pipelines", "Pipeline.v1", owner="tensorweave serve", option="steps")
    runner: Callable[[Any], Any] = make([dict(s) for s in steps], workers=0)
    return runner


def _what(info: TensorInfo) -> str:
    dims = [-1 if d is None else d for d in info.shape[1:]]
    return f"{info.dtype} instances of shape {dims}"


def _example(info: TensorInfo) -> str:
    """A placeholder instance: ``[64 numbers]``, ``[[8 numbers] x 8]``."""
    dims = [d for d in info.shape[1:]]
    if not dims:
        return "a number"
    inner = f"[{dims[-1] if dims[-1] is not None else 'N'} numbers]"
    for d in reversed(dims[:-1]):
        inner = f"[{inner} x {d if d is not None else 'N'}]"
    return inner
