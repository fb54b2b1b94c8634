"""Ensembles (as tfaip's): predict with several trained runs at once, combined by a voter.

``Ensemble(["runs/a", "runs/b", "digits@2"], voter="mean_probabilities.v1")`` opens each
run (a run directory, or ``NAME@VERSION`` with tensorweave-store installed), runs every
model on the raw input (each with its own saved pre-processing), hands the outputs to the
voter and applies the post-processing of the first run (``argmax.v1`` for classifiers)
to the combined output. On the command line::

    tensorweave predict RUN1 RUN2 digits@3 --input digits.npy --voter majority_vote.v1

Voters are a component kind this pack declares, ``tw.registry("voters")`` (entry-point
group ``tensorweave.voters``): a voter is a callable ``voter(outputs) -> array`` taking one
output array per model (``[batch, ..., classes]``, same shapes) and returning one array of
that shape. This pack registers

- ``mean_probabilities.v1``: the mean of the models' probabilities (soft voting);
- ``majority_vote.v1``: each model votes for its top class; the share of votes per class
  (hard voting; a tie goes to the class with the higher mean probability).

>>> import numpy as np
>>> a = np.array([[0.6, 0.4]]); b = np.array([[0.3, 0.7]]); c = np.array([[0.55, 0.45]])
>>> mean_probabilities([a, b, c]).round(3)
array([[0.483, 0.517]])
>>> majority_vote([a, b, c]).round(3)
array([[0.667, 0.333]])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_train.runs.run import Run

__all__ = ["Ensemble", "mean_probabilities", "majority_vote"]

Voter = Callable[[Sequence[np.ndarray]], np.ndarray]


def _stacked(outputs: Sequence[Any]) -> np.ndarray:
    arrays = [np.asarray(o, dtype=np.float64) for o in outputs]
    if not arrays:
        raise ValueError("a voter needs at least one model's outputs")
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError(
            f"the models' outputs differ in shape ({sorted(shapes)}): an ensemble combines "
            "models with the same outputs (the same classes). Fix: pick runs of one task."
        )
    return np.stack(arrays)


def mean_probabilities(outputs: Sequence[np.ndarray]) -> np.ndarray:
    """Soft voting: the mean of the models' outputs (probabilities, e.g. a softmax)."""
    return _stacked(outputs).mean(axis=0)


def majority_vote(outputs: Sequence[np.ndarray]) -> np.ndarray:
    """Hard voting: the share of models whose top class is each class (ties go to the
    class with the higher mean output, by a margin far below one vote)."""
    stack = _stacked(outputs)
    n_classes = stack.shape[-1]
    votes = np.eye(n_classes)[stack.argmax(axis=-1)].sum(axis=0) / len(stack)
    return votes + 1e-6 * stack.mean(axis=0) / max(1.0, float(np.abs(stack).max()))


def _voter(voter: str | Voter) -> Voter:
    # an unknown name raises the registry's own error (with the known names and hints)
    found: Voter = tw.resolve("voters", voter, owner="Ensemble", option="voter")
    return found


class Ensemble:
    """Several trained runs predicting together; see the module docstring.

    Args:
        references: run directories or ``NAME@VERSION`` references (at least one).
        voter: a registered voter name or a callable ``voter(outputs) -> array``.
    """

    def __init__(
        self,
        references: Sequence[str | Path],
        voter: str | Voter = "mean_probabilities.v1",
    ) -> None:
        if not references:
            raise ValueError("an Ensemble needs at least one run")
        self.voter_name = voter if isinstance(voter, str) else getattr(voter, "__name__", "?")
        self.voter = _voter(voter)
        self.runs = [Run.open(r) for r in references]
        self.processors = [run.processors for run in self.runs]
        self.models = [run.model() for run in self.runs]
        posts = {repr(p.postprocess) for p in self.processors}
        if len(posts) > 1:
            raise tw.TensorweaveError(
                "the runs post-process their outputs differently "
                f"({' vs '.join(sorted(posts))}): an ensemble combines runs of one task."
            )

    def outputs(self, raw: Any) -> list[np.ndarray]:
        """Every model's output on ``raw`` (each after its own pre-processing)."""
        found = []
        for processors, model in zip(self.processors, self.models, strict=True):
            out = model.predict(processors.prepare_inputs(raw, model.inputs))
            found.append(np.asarray(out[0] if isinstance(out, tuple) else out))
        return found

    def combined(self, raw: Any) -> np.ndarray:
        """The voter's combination of the models' outputs (before post-processing)."""
        return np.asarray(self.voter(self.outputs(raw)))

    def predict(self, raw: Any) -> Any:
        """The combined prediction, post-processed like the first run's (class ids)."""
        return self.processors[0].finish(self.combined(raw))

    def __repr__(self) -> str:
        return f"Ensemble({[r.reference for r in self.runs]}, voter={self.voter_name!r})"
