"""``Pipeline``: processors named in a config, run in parallel worker processes.

A pipeline is a list of steps, each a registered processor name and its parameters::

    steps = [{"step": "normalize.v1", "field": "x", "std": 16.0},
             {"step": "shuffle.v1", "seed": 0}]

- ``run(samples)`` applies them: per-sample steps run in ``workers`` processes (chunks of
  samples, results put back in input order, so the output is the same with any number of
  workers); ``whole`` steps (``shuffle``) run in the parent between parallel stages;
  ``expands`` steps (``window``) turn one sample into several, kept in order.
- A failing step raises ``ProcessingError`` naming the sample's index, the step and the
  original error (type, message and the worker's traceback).
- ``to_json`` / ``from_json`` save and rebuild it from the registry (no pickle), so a
  predictor can carry it; ``pipeline(value)`` applies the per-sample steps to one value.
- ``dataset(samples, fields, batch_size)`` feeds ``tf.data``.

>>> p = Pipeline([{"step": "normalize.v1", "std": 2.0}], workers=0)
>>> [v.tolist() for v in p.run([[2.0], [4.0]])]
[[1.0], [2.0]]
>>> Pipeline.from_json(p.to_json()).steps == p.steps
True
"""

from __future__ import annotations

import inspect
import json
import multiprocessing as mp
import traceback
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave.keywords import unknown_keyword

__all__ = ["Pipeline", "ProcessingError", "stack"]

Step = tuple[str, dict[str, Any]]


class ProcessingError(tw.TensorweaveError, RuntimeError):
    """A processor failed on one sample; ``index``, ``step`` and the cause are attributes."""

    def __init__(self, message: str, *, index: int, step: str, cause: str) -> None:
        super().__init__(message)
        self.index, self.step, self.cause = index, step, cause


def _parse(step: Any, position: int) -> Step:
    if isinstance(step, Mapping):
        if "step" not in step:
            raise tw.TensorweaveError(
                f"pipeline step {position}: a table needs a 'step' key naming a processor, "
                f"e.g. {{step = 'normalize.v1', std = 16.0}}; got {dict(step)!r}"
            )
        return str(step["step"]), {k: v for k, v in step.items() if k != "step"}
    if isinstance(step, (list, tuple)) and len(step) == 2 and isinstance(step[0], str):
        return step[0], dict(step[1] or {})
    if isinstance(step, str):
        return step, {}
    raise tw.TensorweaveError(f"pipeline step {position}: cannot read {step!r}")


def processor(name: str, owner: str = "Pipeline") -> Any:
    """The processor ``name`` names, by the one rule of ``tw.resolve`` (``"normalize"`` is
    the latest ``normalize.vN``; an unknown name raises ``UnknownComponentError`` with the
    close matches)."""
    return tw.resolve("processors", name, owner=owner, option="step")


def _check(name: str, params: dict[str, Any], position: int) -> dict[str, Any]:
    """``params`` of the processor ``name``, after checking they fit its signature."""
    fn = processor(name, f"pipeline step {position}")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return params
    names = list(sig.parameters)
    takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    unknown = [k for k in params if k not in names[1:] and not takes_any]
    missing = [
        p.name
        for p in list(sig.parameters.values())[1:]
        if p.default is p.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.name not in params
    ]
    problems = [unknown_keyword(k, name, names[1:]) for k in unknown]  # as configs say it
    if missing:
        problems.append(
            f"missing parameter{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))}. "
            f"Parameters: {', '.join(names[1:])}."
        )
    if problems:
        raise tw.TensorweaveError(f"pipeline step {position} ({name}): {' '.join(problems)}")
    return params


def _apply(fns: Sequence[tuple[str, Any, dict[str, Any]]], sample: Any) -> list[Any]:
    """Run per-sample steps on one sample; returns the samples it became (in order)."""
    current = [sample]
    for name, fn, params in fns:
        nxt: list[Any] = []
        for s in current:
            try:
                out = fn(s, **params)
            except Exception as err:
                err.tw_step = name  # type: ignore[attr-defined]
                raise
            if getattr(fn, "expands", False):
                nxt.extend(out)
            else:
                nxt.append(out)
        current = nxt
    return current


def _run_chunk(job: tuple[list[Step], int, list[Any]]) -> tuple[Any, ...]:
    """Worker body: the samples of one chunk, or the first failure with its index and step."""
    steps, start, samples = job
    fns = [(n, processor(n), p) for n, p in steps]
    results: list[list[Any]] = []
    for offset, sample in enumerate(samples):
        try:
            results.append(_apply(fns, sample))
        except Exception as err:
            step = getattr(err, "tw_step", "?")
            return (
                "error",
                start + offset,
                step,
                f"{type(err).__name__}: {err}",
                traceback.format_exc(),
            )
    return ("ok", results)


class Pipeline:
    """Processors by registered name, run in order; see the module docstring.

    Args:
        steps: ``{"step": name, **params}`` tables, ``(name, params)`` pairs or bare names.
        workers: worker processes for per-sample steps (0 runs them in this process).
        chunk_size: samples sent to a worker at a time (default: an even split in 4 per
            worker).
    """

    def __init__(
        self, steps: Iterable[Any] = (), *, workers: int = 2, chunk_size: int | None = None
    ) -> None:
        parsed = [_parse(s, i) for i, s in enumerate(steps)]
        # deprecated parameter names are stored (and saved) under their new names
        self.steps: list[Step] = [(n, _check(n, p, i)) for i, (n, p) in enumerate(parsed)]
        self.workers = int(workers)
        self.chunk_size = chunk_size

    def __repr__(self) -> str:
        return f"Pipeline({[n for n, _ in self.steps]}, workers={self.workers})"

    # -- saving -------------------------------------------------------------------------
    def to_config(self) -> list[dict[str, Any]]:
        """The steps as ``{"step": name, **params}`` tables (plain data)."""
        return [{"step": n, **p} for n, p in self.steps]

    def to_json(self) -> str:
        """The steps as JSON: names and parameters, nothing executable."""
        return json.dumps(self.to_config(), default=_plain)

    @classmethod
    def from_json(cls, text: str, **kw: Any) -> Pipeline:
        """Rebuild a pipeline from ``to_json`` output, through the registry."""
        return cls(json.loads(text), **kw)

    # -- running ------------------------------------------------------------------------
    def __call__(self, value: Any) -> Any:
        """Apply the per-sample steps to one value (for predictors); whole steps skipped."""
        fns = [
            (n, processor(n), p) for n, p in self.steps if not getattr(processor(n), "whole", False)
        ]
        out = _apply(fns, value)
        return out[0] if len(out) == 1 else out

    def run(self, samples: Sequence[Any]) -> list[Any]:
        """Every sample through every step; deterministic order for any ``workers``."""
        current = list(samples)
        stage: list[Step] = []
        for name, params in self.steps:
            if getattr(processor(name), "whole", False):
                current = self._stage(stage, current)
                stage = []
                current = list(processor(name)(current, **params))
            else:
                stage.append((name, params))
        return self._stage(stage, current)

    def _stage(self, steps: list[Step], samples: list[Any]) -> list[Any]:
        if not steps or not samples:
            return samples
        n = len(samples)
        workers = min(self.workers, n)
        size = self.chunk_size or max(1, -(-n // max(1, workers * 4)))
        jobs = [(steps, i, samples[i : i + size]) for i in range(0, n, size)]
        if workers <= 1:
            results = map(_run_chunk, jobs)
            return self._collect(results)
        methods = mp.get_all_start_methods()
        ctx = mp.get_context("fork" if "fork" in methods else "spawn")
        with ctx.Pool(workers) as pool:
            return self._collect(pool.imap(_run_chunk, jobs))

    @staticmethod
    def _collect(results: Iterable[tuple[Any, ...]]) -> list[Any]:
        out: list[Any] = []
        for result in results:
            if result[0] == "error":
                _, index, step, cause, tb = result
                raise ProcessingError(
                    f"processing failed on sample {index} in step {step!r}: {cause}\n"
                    f"  worker traceback (last lines):\n    "
                    + "\n    ".join(tb.strip().splitlines()[-4:])
                    + f"\n  Fix: check sample {index} and the parameters of {step}.",
                    index=index,
                    step=step,
                    cause=cause,
                )
            for produced in result[1]:
                out.extend(produced)
        return out

    def dataset(
        self,
        samples: Sequence[Any],
        fields: Sequence[str],
        *,
        batch_size: int = 32,
        processed: bool = False,
    ) -> Any:
        """A ``tf.data.Dataset`` of ``{field: batch}`` dicts from the processed samples."""
        import tensorflow as tf

        data = stack(samples if processed else self.run(samples), fields)
        return tf.data.Dataset.from_tensor_slices(data).batch(batch_size)


def stack(samples: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> dict[str, np.ndarray]:
    """Dict samples to one array per field (``fields`` in order).

    >>> stack([{"x": [1, 2], "y": 0}, {"x": [3, 4], "y": 1}], ["x", "y"])["x"].tolist()
    [[1, 2], [3, 4]]
    """
    if not samples:
        return {f: np.zeros((0,)) for f in fields}
    return {f: np.stack([np.asarray(s[f]) for s in samples]) for f in fields}


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"a pipeline parameter must be plain data, got {type(value).__name__}")
