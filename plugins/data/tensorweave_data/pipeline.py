"""``Pipeline``: processors named in a config, run in parallel worker processes.

A pipeline is a list of steps, each an ordinary ``"@processors"`` config block: a
registered processor and its parameters (the value it runs on is fed when it runs)::

    steps = [{"@processors": "normalize.v1", "field": "x", "std": 16.0},
             {"@processors": "shuffle.v1", "seed": 0}]

They are checked by the config's one resolver (``tw.config.validate``): an unknown
processor or parameter raises ``ConfigError`` with its dotted path (``steps[0].sdt``).
Steps from a config are checked once, with the config: building it gives them as
``tw.config.CheckedStep`` blocks, which a pipeline takes as they are.

- ``run(samples)`` applies them: per-sample steps run in ``workers`` processes (chunks of
  samples, results put back in input order, so the output is the same with any number of
  workers); ``whole`` steps (``shuffle``) run in the parent between parallel stages;
  ``expands`` steps (``window``) turn one sample into several, kept in order.
- A failing step raises ``ProcessingError`` naming the sample's index, the step and the
  original error (type, message and the worker's traceback).
- ``to_json`` / ``from_json`` save and rebuild it from the registry (no pickle), so a
  predictor can carry it; ``pipeline(value)`` applies the per-sample steps to one value.
- ``dataset(samples, fields, batch_size)`` feeds ``tf.data``.

>>> p = Pipeline([{"@processors": "normalize.v1", "std": 2.0}], workers=0)
>>> [v.tolist() for v in p.run([[2.0], [4.0]])]
[[1.0], [2.0]]
>>> Pipeline.from_json(p.to_json()).steps == p.steps
True
"""

from __future__ import annotations

import json
import multiprocessing as mp
import traceback
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave.config.errors import join_path

__all__ = ["Pipeline", "ProcessingError", "stack"]

Step = tuple[str, dict[str, Any]]


class ProcessingError(tw.TensorweaveError, RuntimeError):
    """A processor failed on one sample; ``index``, ``step`` and the cause are attributes."""

    def __init__(self, message: str, *, index: int, step: str, cause: str) -> None:
        super().__init__(message)
        self.index, self.step, self.cause = index, step, cause


def processor(name: str, owner: str = "Pipeline") -> Any:
    """The processor ``name`` names, by the one rule of ``tw.resolve`` (``"normalize"`` is
    the latest ``normalize.vN``; an unknown name raises ``UnknownComponentError`` with the
    close matches)."""
    return tw.resolve("processors", name, owner=owner, option="@processors")


def _steps(steps: Iterable[Any]) -> list[tw.config.Block]:
    """``steps`` (``{"@processors": name, **params}`` blocks) checked by the config's one
    resolver, as the plan's blocks (name, params, processor); every problem is raised at once, with its dotted
    path (``steps[0].sdt``), as in any config. Steps a config's validation already checked
    (``tw.config.CheckedStep``, as building a job's config gives them) are not checked again."""
    given = list(steps)
    if all(isinstance(s, tw.config.CheckedStep) for s in given):  # a config's plan checked them
        checked = [s.block for s in given if s.block.kind == "processors"]
        if len(checked) == len(given):
            return checked
    plan = tw.config.validate({"steps": given})
    wrong = [
        (
            join_path("steps", i),
            f"a pipeline step is a '@processors' block, e.g. {_EXAMPLE}; got {s!r}",
        )
        for i, s in enumerate(given)
        if (tw.config.promise_kind(s) or ("",))[0] != "processors"
    ]
    if plan or wrong:
        raise tw.config.ConfigError(plan.with_problems(wrong))
    return [plan.block(join_path("steps", i)) for i in range(len(given))]


_EXAMPLE = '{"@processors": "normalize.v1", "std": 16.0}'


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


def _run_chunk(
    job: tuple[list[Step], int, list[Any]], found: Mapping[str, Any] | None = None
) -> tuple[Any, ...]:
    """Worker body: the samples of one chunk, or the first failure with its index and step
    (processors from ``found`` by name, in this process, else looked up)."""
    steps, start, samples = job
    fns = [(n, (found or {}).get(n) or processor(n), p) for n, p in steps]
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
        steps: ``{"@processors": name, **params}`` blocks, as in a config (checked here,
            unless a config's validation already did: ``tw.config.CheckedStep``).
        workers: worker processes for per-sample steps (0 runs them in this process).
        chunk_size: samples sent to a worker at a time (default: an even split in 4 per
            worker).
    """

    def __init__(
        self, steps: Iterable[Any] = (), *, workers: int = 2, chunk_size: int | None = None
    ) -> None:
        blocks = _steps(steps)
        self.steps: list[Step] = [(b.name, dict(b.params)) for b in blocks]
        self._found = {b.name: b.component for b in blocks}  # looked up once, when checked
        self.workers = int(workers)
        self.chunk_size = chunk_size

    def __repr__(self) -> str:
        return f"Pipeline({[n for n, _ in self.steps]}, workers={self.workers})"

    # -- saving -------------------------------------------------------------------------
    def to_config(self) -> list[dict[str, Any]]:
        """The steps as ``{"@processors": name, **params}`` blocks (plain data)."""
        return [{"@processors": n, **p} for n, p in self.steps]

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
            (n, self._found[n], p)
            for n, p in self.steps
            if not getattr(self._found[n], "whole", False)
        ]
        out = _apply(fns, value)
        return out[0] if len(out) == 1 else out

    def run(self, samples: Sequence[Any]) -> list[Any]:
        """Every sample through every step; deterministic order for any ``workers``."""
        current = list(samples)
        stage: list[Step] = []
        for name, params in self.steps:
            if getattr(self._found[name], "whole", False):
                current = self._stage(stage, current)
                stage = []
                current = list(self._found[name](current, **params))
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
            results = (_run_chunk(job, self._found) for job in jobs)
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
