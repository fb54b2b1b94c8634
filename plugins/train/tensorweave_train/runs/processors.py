"""A run's data steps (``processors.json``), and the one runner of saved steps.

``tensorweave train`` saves what the dataset says turns raw input into the model's input
(``preprocess``: pixels -> normalised) and its outputs into answers (``postprocess``: class
scores -> class ids), with what the data says about itself (``info``: a character model's
vocabulary). ``Processors.prepare`` checks raw input and pre-processes it for a model,
``finish`` post-processes; ``pipeline(steps)`` runs saved steps, by registered name, for
``predict``, ensembles and exported ``Predictor``\\s alike. ``probabilities`` and ``top_k``
read a classifier's scores.

>>> import numpy as np
>>> pipeline([{"step": "argmax.v1"}])(np.array([[0.1, 0.9]])).tolist()
[1]
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import tensorweave as tw

__all__ = [
    "Processors",
    "PredictInputError",
    "pipeline",
    "check_raw",
    "probabilities",
    "top_k",
]


class PredictInputError(tw.InputValueError):
    """Raw input a trained model cannot take (empty, unknown characters, wrong shape)."""

    exit_code = 2  # a usage error on the command line


def pipeline(steps: Sequence[Any]) -> Callable[[Any], Any]:
    """The function applying saved ``steps`` (``{"step": name, **params}`` tables,
    ``(name, params)`` pairs or names) to one value, in this process: tensorweave-data's
    ``Pipeline.v1``, through ``tw.resolve``; the identity without steps."""
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
            "Fix: pass --input FILE (.npy or .json)."
        )
    bad = sorted({c for c in raw if c not in vocab or c == vocab[0]})
    if bad:
        shown = ", ".join(repr(c) for c in bad[:10]) + (" ..." if len(bad) > 10 else "")
        raise PredictInputError(
            f"the input text has {len(bad)} character(s) outside the model's vocabulary: "
            f"{shown}. Fix: remove or replace them (the model knows "
            f"{len(vocab) - 1} characters: letters, digits, punctuation and whitespace)."
        )


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
        """Read ``processors.json``."""
        saved = json.loads(path.read_text())
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
        try:
            x = np.asarray(pipeline(self.preprocess)(raw))
        except (ValueError, TypeError) as err:
            raise PredictInputError(f"cannot pre-process this input: {err}") from err
        if x.size == 0:
            raise PredictInputError("the input is empty. Fix: give at least one example.")
        if x.ndim == len(first_input.shape) - 1:
            x = x[None]  # one example: add the batch dimension
        if isinstance(first_input, tw.Input):
            try:
                first_input.check(x)
            except (tw.ShapeError, tw.InputValueError) as err:
                raise PredictInputError(f"this input does not fit the model: {err}") from err
        return x

    def finish(self, outputs: Any) -> Any:
        """The model's ``outputs`` post-processed into answers (class ids…)."""
        return pipeline(self.postprocess)(outputs)


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
