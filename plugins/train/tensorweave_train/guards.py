"""Guards of the job: the config's layout, NaN, Ctrl-C and predict input, checked at the
point where a mistake can still be refused cleanly.

- ``check_layout(cfg)``: sections (a misspelled ``[optimiser]`` gets "Did you mean
  [optimizer]?"), a ``[data]`` and ``[optimizer]`` that are component tables, a positive
  finite learning rate, a ``callbacks`` list, the ``[model]`` keys;
- ``StopOnNonFinite``: the job's default callback stopping on a NaN/inf loss or weight at
  an epoch's end (no per-step cost);
- ``InterruptToStop``: Ctrl-C stops after the current step (the checkpoint callback then
  saves), and the job raises ``Interrupted`` naming the run directory;
- ``check_raw``: empty text or characters outside a character model's vocabulary.

>>> check_layout({"trian": {"epochs": 2}, "data": {"@datasets": "digits.v1"}, "model": {}})[0]
('trian', 'unknown section. Did you mean [train]? A job config has data, model, optimizer, train, run, callbacks; other top-level tables may only hold plain values for ${...} variables')
"""

from __future__ import annotations

import difflib
import math
import signal
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train.events import Callback, Event, TrainState, on_epoch, on_step
from tensorweave_train.trainer import non_finite_weights

__all__ = [
    "SECTIONS_ALL",
    "check_layout",
    "check_raw",
    "Interrupted",
    "InterruptToStop",
    "StopOnNonFinite",
    "PredictInputError",
]

SECTIONS_ALL = ("data", "model", "optimizer", "train", "run", "callbacks")


def check_layout(cfg: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Problems in a job config's layout (not the ``[train]``/``[run]`` settings), by
    dotted path. Top-level tables other than the job's sections hold ``${...}`` variables
    (e.g. ``[dims]``); one that looks like a misspelled section, or holds a component, is
    refused."""
    errors: list[tuple[str, str]] = []
    for key, value in cfg.items():
        if key in SECTIONS_ALL:
            continue
        close = difflib.get_close_matches(str(key), SECTIONS_ALL, n=1, cutoff=0.7)
        if close or not isinstance(value, Mapping) or _holds_promise(value):
            hint = f" Did you mean [{close[0]}]?" if close else ""
            errors.append(
                (
                    str(key),
                    f"unknown section.{hint} A job config has {', '.join(SECTIONS_ALL)}; other "
                    "top-level tables may only hold plain values for ${...} variables",
                )
            )
    for key in ("data", "model"):
        if key not in cfg:
            errors.append((key, f"a job config needs a [{key}] section"))
    data = cfg.get("data")
    if "data" in cfg and not (isinstance(data, Mapping) and twc.is_promise(data)):
        errors.append(
            (
                "data",
                f'expected a dataset table such as {{"@datasets" = "digits.v1"}}, got {data!r}',
            )
        )
    optimizer = cfg.get("optimizer")
    if "optimizer" in cfg:
        if not (isinstance(optimizer, Mapping) and twc.is_promise(optimizer)):
            errors.append(
                (
                    "optimizer",
                    "expected an optimizer table such as "
                    f'{{"@optimizers" = "Adam.v1"}}, got {optimizer!r}',
                )
            )
        else:
            lr: Any = optimizer.get("learning_rate")
            number = isinstance(lr, (int, float)) and not isinstance(lr, bool)
            if number and (not math.isfinite(lr) or lr <= 0):
                errors.append(
                    (
                        "optimizer.learning_rate",
                        f"must be a positive finite number, got {lr!r}",
                    )
                )
    if "callbacks" in cfg and not isinstance(cfg["callbacks"], list):
        errors.append(
            ("callbacks", f"expected a list of callback tables, got {cfg['callbacks']!r}")
        )
    model = cfg.get("model")
    if isinstance(model, Mapping):
        for key in ("inputs", "outputs", "loss"):
            if key not in model:
                errors.append((f"model.{key}", "missing: name the node(s) in [model]"))
    elif "model" in cfg:
        errors.append(("model", f"expected a table with a [model.nodes] graph, got {model!r}"))
    return errors


def _holds_promise(value: Any) -> bool:
    if isinstance(value, Mapping):
        return twc.is_promise(value) or any(_holds_promise(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_promise(v) for v in value)
    return False


class Interrupted(tw.TensorweaveError):
    """Training was interrupted (Ctrl-C); a checkpoint was saved in ``run_dir``."""

    def __init__(self, run_dir: Path, step: int | None) -> None:
        self.run_dir = run_dir
        self.step = step
        at = f" at step {step}" if step is not None else ""
        super().__init__(
            f"interrupted: saved a checkpoint{at} in {run_dir}\n"
            f"  resume with: tensorweave resume {run_dir}"
        )


class InterruptToStop(Callback):
    """Ctrl-C (SIGINT) asks the loop to stop after the current step; a second one raises
    ``KeyboardInterrupt`` at once. Installed only in the main thread."""

    priority = -200

    def __init__(self) -> None:
        self.triggers = (on_step(),)
        self.hit = False
        self._previous: Any = None

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)

    def uninstall(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.hit = True
        self.uninstall()  # a second Ctrl-C interrupts at once

    def __call__(self, event: Event, state: TrainState) -> None:
        if self.hit:
            state.request_stop("interrupted (Ctrl-C)")


class StopOnNonFinite(Callback):
    """Stop when an epoch's mean training loss or a weight is NaN or infinite (the job's
    default; checked at each epoch's end, so no per-step cost)."""

    priority = -100

    def __init__(self) -> None:
        self.triggers = (on_epoch(),)
        self.reason: str | None = None

    def __call__(self, event: Event, state: TrainState) -> None:
        loss = state.values.get("loss")
        what = f"the training loss is {loss}" if loss is not None and not np.isfinite(loss) else ""
        if not what and state.model is not None:
            bad = non_finite_weights(state.model)  # one compiled pass, no copy to numpy
            what = f"the weights {bad[:3]} hold NaN/inf" if bad else ""
        if what:
            self.reason = (
                f"{what} at epoch {state.epoch + 1} (step {state.step}). "
                "Fix: look for NaN/inf in the data, or lower the learning rate."
            )
            state.request_stop(self.reason)


class PredictInputError(tw.InputValueError):
    """Raw input a trained model cannot take (empty, unknown characters, wrong shape)."""


def check_raw(raw: Any, info: Mapping[str, Any]) -> None:
    """Refuse empty text and characters outside a character model's vocabulary."""
    vocab = info.get("vocab")
    if isinstance(raw, str):
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
