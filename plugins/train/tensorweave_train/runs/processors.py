"""A run's data steps (``processors.json``), and the one runner of saved steps.

``tensorweave train`` saves what the dataset says turns raw input into the model's input
(``preprocess``: pixels -> normalised) and its outputs into answers (``postprocess``: class
scores -> class ids), with what the data says about itself (``info``: a character model's
vocabulary). ``Processors.prepare_inputs`` checks raw input (one array, or one per input by
name) and pre-processes it for a model, ``finish`` post-processes; ``pipeline(steps)`` runs saved steps, by registered name, for
``predict``, ensembles and exported ``Predictor``\\s alike. ``probabilities`` and ``top_k``
read a classifier's scores. A run trained on image files (``image_folder.v1``) saved how it
decoded them (``info["image_decoding"]``): ``read_images`` decodes image files or a folder
the same way, for ``predict`` and exported ``Predictor``\\s.

>>> import numpy as np
>>> pipeline([{"@processors": "argmax.v1"}])(np.array([[0.1, 0.9]])).tolist()
[1]
"""

from __future__ import annotations

import difflib
import json
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_data import BadFileError, image_files, read_image, read_json

__all__ = [
    "Processors",
    "fit_input",
    "PredictInputError",
    "pipeline",
    "check_raw",
    "check_finite",
    "NonFiniteInputError",
    "NonFiniteInputWarning",
    "probabilities",
    "top_k",
    "image_decoding",
    "names_files",
    "read_images",
]


DAMAGED_FIX = "restore the file from a backup of the run, or train the run again"


class PredictInputError(tw.InputValueError):
    """Raw input a trained model cannot take (empty, unknown characters, wrong shape)."""

    exit_code = 2  # a usage error on the command line


class NonFiniteInputError(PredictInputError):
    """Raw input holding NaN or infinite values: a model answers them with a confident,
    meaningless class, so ``predict`` refuses them unless told (``allow_nan``)."""


class NonFiniteInputWarning(UserWarning):
    """Raw input held NaN or infinite values and ``allow_nan`` let them through."""


def check_finite(raw: Any, names: Sequence[str], *, allow_nan: bool = False) -> None:
    """Refuse NaN and infinite values in the float arrays of ``raw`` (one array, rows, or a
    mapping of arrays by input name; ``names``: the model's inputs, the first naming a lone
    array): a ``NonFiniteInputError`` with the count and the input, or with ``allow_nan``
    one ``NonFiniteInputWarning`` saying the same.

    >>> import numpy as np
    >>> check_finite(np.array([[1.0, 2.0]]), ["x"])
    >>> try:
    ...     check_finite(np.array([[np.nan, 1.0], [np.inf, np.nan]]), ["x"])
    ... except NonFiniteInputError as err:
    ...     print(err)
    input 'x' holds 3 NaN/inf values in 2 rows (of 2). Fix: clean the data, or pass --allow-nan (allow_nan=True) to predict anyway.
    """
    if isinstance(raw, str) or not names:
        return
    values = raw.items() if isinstance(raw, Mapping) else [(names[0], raw)]
    found = []
    for name, value in values:
        try:
            x = np.asarray(value)
        except (ValueError, TypeError):  # ragged rows: fit_input says so later
            continue
        if x.dtype.kind not in "fc" or x.size == 0:
            continue
        bad = ~np.isfinite(x)
        count = int(bad.sum())
        if count:
            if x.ndim > 1:
                rows = int(bad.reshape(len(x), -1).any(axis=1).sum())
                where = f" in {rows} rows (of {len(x)})"
            else:
                where = f" (of {x.size})"
            found.append(f"input {str(name)!r} holds {count} NaN/inf values{where}")
    if not found:
        return
    text = "; ".join(found)
    if allow_nan:
        warnings.warn(
            f"{text}: predicting anyway (allow_nan); answers for those rows mean nothing.",
            NonFiniteInputWarning,
            stacklevel=3,
        )
        return
    raise NonFiniteInputError(
        f"{text}. Fix: clean the data, or pass --allow-nan (allow_nan=True) to predict anyway."
    )


def pipeline(steps: Sequence[Any]) -> Callable[[Any], Any]:
    """The function applying saved ``steps`` (``{"@processors": name, **params}`` blocks,
    as in a config) to one value, in this process: tensorweave-data's ``Pipeline.v1``,
    through ``tw.resolve``; the identity without steps."""
    if not steps:
        return lambda value: value
    make = tw.resolve("pipelines", "Pipeline.v1", owner="a run's processors", option="steps")
    runner: Callable[[Any], Any] = make(list(steps), workers=0)
    return runner


def check_raw(raw: Any, info: Mapping[str, Any]) -> None:
    """Refuse empty text and characters outside a character model's vocabulary."""
    vocab = info.get("vocab")
    if not isinstance(raw, str):
        return
    if not raw:
        raise PredictInputError(
            "the input text is empty. Fix: give at least one character, e.g. --text 'def '."
        )
    if not vocab:
        raise PredictInputError(
            f"this model does not take text (it takes {info.get('raw_input', 'arrays')}). "
            "Fix: pass --input FILE (.npy, .npz or .json)."
        )
    bad = sorted({c for c in raw if c not in vocab or c == vocab[0]})
    if bad:
        shown = ", ".join(repr(c) for c in bad[:10]) + (" ..." if len(bad) > 10 else "")
        raise PredictInputError(
            f"the input text has {len(bad)} character(s) outside the model's vocabulary: "
            f"{shown}. Fix: remove or replace them (the model knows "
            f"{len(vocab) - 1} characters: letters, digits, punctuation and whitespace)."
        )


def image_decoding(info: Mapping[str, Any]) -> dict[str, Any] | None:
    """How a run decoded its image files (``image_folder.v1``'s ``info["image_decoding"]``:
    ``image_size``, ``color_mode``, ``crop_to_aspect_ratio``, ``interpolation``), or
    ``None`` for a run not trained on image files.

    >>> image_decoding({"image_decoding": {"image_size": [8, 8]}})
    {'image_size': [8, 8]}
    """
    settings = info.get("image_decoding")
    return dict(settings) if isinstance(settings, Mapping) else None


def names_files(raw: Any) -> bool:
    """Whether ``raw`` names files rather than holding values: a ``pathlib.Path``, or a
    non-empty list of paths or strings.

    >>> from pathlib import Path
    >>> names_files(Path("a.png")), names_files(["a.png", "b.jpg"]), names_files([[0.5]])
    (True, True, False)
    """
    if isinstance(raw, os.PathLike):
        return True
    return (
        isinstance(raw, list | tuple)
        and bool(raw)
        and all(isinstance(r, str | os.PathLike) for r in raw)
    )


def read_images(
    paths: Any, settings: Mapping[str, Any], *, owner: str = "predict"
) -> tuple[list[Path], np.ndarray]:
    """``(files, pixels)``: the image files ``paths`` names (files, folders) decoded and
    resized with a run's ``settings`` (``image_decoding``), exactly as training decoded
    them, stacked into one batch. A file that is not an image, or a folder without
    images, is a ``BadFileError`` naming it (exit code 2)."""
    files = image_files(paths, owner=owner)
    keys = ("image_size", "color_mode", "crop_to_aspect_ratio", "interpolation")
    kw = {k: settings[k] for k in keys if k in settings}
    images = [read_image(f, owner=owner, **kw) for f in files]
    odd = [i for i, im in enumerate(images) if im.shape != images[0].shape]
    if odd:  # a run that kept the images' own size (image_size = none)
        raise PredictInputError(
            f"{owner}: the images differ in size ({images[0].shape} for {files[0]}, "
            f"{images[odd[0]].shape} for {files[odd[0]]}) and the run kept the images' own "
            "size. Fix: give images of the size the run trained on."
        )
    return files, np.stack(images)


@dataclass
class Processors:
    """The data steps of a run (see the module docstring)."""

    preprocess: list[Any] = field(default_factory=list)
    postprocess: list[Any] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)

    @classmethod
    def of_data(cls, data: Any, inputs: Sequence[str]) -> Processors:
        """What a dataset says about its steps (its ``preprocess``, ``postprocess`` and
        ``info`` attributes, each optional), for a model with these ``inputs``."""
        return cls(
            list(getattr(data, "preprocess", []) or []),
            list(getattr(data, "postprocess", []) or []),
            dict(getattr(data, "info", {}) or {}),
            list(inputs),
        )

    @classmethod
    def load(cls, path: Path) -> Processors:
        """Read ``processors.json``: a damaged one is a ``BadFileError`` naming it (exit
        code 2), whatever is wrong (not JSON, not UTF-8, not an object of lists)."""
        saved = read_json(path, fix=DAMAGED_FIX)
        parts = {"preprocess": list, "postprocess": list, "info": dict, "inputs": list}
        if not isinstance(saved, dict):
            raise BadFileError(
                path, f"a JSON {_kind(saved)}, not an object", DAMAGED_FIX, damaged=True
            )
        for key, kind in parts.items():
            if not isinstance(saved.get(key, kind()), kind):
                raise BadFileError(
                    path,
                    f"its {key!r} is a JSON {_kind(saved[key])}, not {'an object' if kind is dict else 'a list'}",
                    DAMAGED_FIX,
                    damaged=True,
                )
        return cls(
            list(saved.get("preprocess", [])),
            list(saved.get("postprocess", [])),
            dict(saved.get("info", {})),
            list(saved.get("inputs", [])),
        )

    def save(self, path: Path) -> None:
        """Write ``processors.json``."""
        saved = {
            "preprocess": self.preprocess,
            "postprocess": self.postprocess,
            "info": self.info,
            "inputs": self.inputs,
        }
        path.write_text(json.dumps(saved, indent=2) + "\n")

    def prepare(self, raw: Any, first_input: tw.Layer) -> np.ndarray:
        """``raw`` checked, pre-processed and batched for a model whose first input is
        ``first_input`` (one example gets its batch axis); ``PredictInputError`` says
        what does not fit."""
        check_raw(raw, self.info)
        if isinstance(raw, list | tuple):  # rows from JSON: one array, before any step
            raw = _array(raw, first_input)
        return fit_input(self._preprocessed(raw), first_input)

    def prepare_inputs(
        self, raw: Any, inputs: Sequence[tw.Layer], *, allow_nan: bool = False
    ) -> dict[str, np.ndarray]:
        """``raw`` as the feed of a model with these ``inputs``: one checked, batched array
        per input name. A model with one input takes raw input as it comes (``prepare``),
        or a mapping holding it by name; a model with several takes a mapping with one
        entry per input (an ``.npz`` file, a JSON object), pre-processed as a whole (a step
        with ``field=`` works on one input). NaN or infinite values are refused
        (``check_finite``), or let through with one warning under ``allow_nan``."""
        names = [layer.name for layer in inputs]
        check_finite(raw, names, allow_nan=allow_nan)  # NaN/inf: refused, or one warning
        if not isinstance(raw, Mapping):
            if len(inputs) > 1:
                raise PredictInputError(
                    f"this model has {len(inputs)} inputs ({', '.join(names)}), so it takes one "
                    "array per input. Fix: pass an .npz file holding them by name "
                    f"(np.savez(path, {', '.join(f'{n}=...' for n in names)})) or a JSON object "
                    f"{{{', '.join(f'{json.dumps(n)}: [...]' for n in names)}}}."
                )
            return {names[0]: self.prepare(raw, inputs[0])}
        _check_names(raw, names)
        if len(inputs) == 1:
            return {names[0]: self.prepare(raw[names[0]], inputs[0])}
        values = self._preprocessed({n: raw[n] for n in names})
        if not isinstance(values, Mapping):
            raise PredictInputError(
                f"the run's pre-processing turned the inputs {names} into one "
                f"{type(values).__name__}, not one array per input. Fix: give its steps "
                "field= (the input each one works on)."
            )
        return {n: fit_input(values[n], layer) for n, layer in zip(names, inputs, strict=True)}

    def _preprocessed(self, raw: Any) -> Any:
        try:
            return pipeline(self.preprocess)(raw)
        except (ValueError, TypeError, KeyError) as err:
            raise PredictInputError(f"cannot pre-process this input: {err}") from err

    def finish(self, outputs: Any) -> Any:
        """The model's ``outputs`` post-processed into answers (class ids…)."""
        return pipeline(self.postprocess)(outputs)


def _kind(value: Any) -> str:
    """The JSON name of ``value``'s type (``object``, ``list``, ``string``…)."""
    names = {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def _check_names(raw: Mapping[str, Any], names: Sequence[str]) -> None:
    """Refuse a mapping of inputs that misses one of ``names`` or holds another."""
    missing = [n for n in names if n not in raw]
    extra = [str(k) for k in raw if k not in names]
    if missing or extra:
        hints = [
            f"{k!r}: did you mean {close[0]!r}?"
            for k in extra
            if (close := difflib.get_close_matches(k, missing, n=1))
        ]
        raise PredictInputError(
            f"the model's inputs are {names}; the input gives {sorted(map(str, raw))}"
            + (f" (missing {missing})" if missing else "")
            + (f" ({'; '.join(hints)})" if hints else "")
            + ". Fix: name one array per input, as the inputs are named."
        )


def _array(value: Any, layer: tw.Layer) -> np.ndarray:
    try:
        return np.asarray(value)
    except ValueError as err:  # rows of different lengths
        raise PredictInputError(
            f"the input for {layer.name!r} is not an array: its rows have different lengths "
            f"({err}). Fix: give rows of one length."
        ) from err


def fit_input(value: Any, layer: tw.Layer) -> np.ndarray:
    """``value`` as a batch for the input ``layer``: an array of numbers (one example gets
    its batch axis), checked against the input; ``PredictInputError`` says what does not
    fit.

    >>> import tensorweave as tw
    >>> fit_input([1, 2], tw.Input(n_units=2, name="x")).shape
    (1, 2)
    """
    x = _array(value, layer)
    if x.dtype == object:
        raise PredictInputError(
            f"the input for {layer.name!r} is not an array of numbers (it holds "
            f"{type(x.flat[0]).__name__ if x.size else 'nothing'}: rows of different lengths, "
            "or values that are not numbers). Fix: give a rectangular array of numbers."
        )
    if x.size == 0:
        raise PredictInputError("the input is empty. Fix: give at least one example.")
    if x.ndim == len(layer.shape) - 1:
        x = x[None]  # one example: add the batch dimension
    if isinstance(layer, tw.Input):
        try:
            layer.check(x)
        except (tw.ShapeError, tw.InputValueError) as err:
            raise PredictInputError(f"this input does not fit the model: {err}") from err
    return x


def probabilities(scores: Any) -> np.ndarray:
    """Class probabilities from a model's scores over the last axis: kept when they already
    are probabilities (non-negative, rows summing to 1), else a softmax of the logits.

    >>> import numpy as np
    >>> probabilities(np.array([[0.0, 0.0]])).tolist()
    [[0.5, 0.5]]
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.size and (s >= 0).all() and np.allclose(s.sum(axis=-1), 1.0, atol=1e-4):
        return s
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


def top_k(scores: Any, k: int) -> list[list[tuple[int, float]]]:
    """The ``k`` most probable classes of each example, as ``(class, probability)`` pairs.

    >>> import numpy as np
    >>> top_k(np.array([[0.1, 0.7, 0.2]]), 2)
    [[(1, 0.7), (2, 0.2)]]
    """
    p = probabilities(scores).reshape(-1, np.shape(scores)[-1])
    order = np.argsort(-p, axis=-1, kind="stable")[:, :k]
    return [[(int(c), round(float(row[c]), 6)) for c in cls] for row, cls in zip(p, order)]
