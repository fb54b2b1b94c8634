"""Cross-validation: train one config on K folds of its data, report mean ± spread.

``tensorweave cv CONFIG --folds K`` (or ``cross_validate(config, K)``) joins the dataset's
``train`` and ``valid`` examples, deals them into K folds in a seeded random order, and
trains K ordinary runs, run *k* validating on fold *k* and training on the others. Each
run's ``[data]`` is the ``cv_fold.v1`` dataset wrapping the config's own ``[data]``, so its
``config.json`` says exactly which fold it saw (``tensorweave resume``/``evaluate`` work on
it as on any run) and the store records it like any run, tagged ``cv:NAME`` and
``fold:k``. The runs go to ``runs/NAME-cv-TIME/fold-k``; ``cv.json`` there holds every
fold's figures, their mean and their standard deviation (``ddof=1``).

>>> import numpy as np
>>> data = {"train": {"x": np.arange(8)}, "valid": {"x": np.arange(8, 10)}}
>>> parts = [cv_fold(data, folds=5, fold=k) for k in range(5)]
>>> sorted(np.concatenate([p["valid"]["x"] for p in parts]).tolist()) == list(range(10))
True
>>> len(parts[0]["train"]["x"]), len(parts[0]["valid"]["x"])
(8, 2)
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import tensorweave as tw

__all__ = ["cv_fold", "fold_indices", "cross_validate", "summary_text"]


def fold_indices(n: int, folds: int, fold: int, seed: int = 0) -> np.ndarray:
    """The indices of fold ``fold`` of ``n`` examples dealt into ``folds`` in a seeded order."""
    if not 2 <= folds <= n:
        raise tw.TensorweaveError(
            f"cross-validation needs 2 <= folds <= examples ({n}), got folds={folds}"
        )
    if not 0 <= fold < folds:
        raise tw.TensorweaveError(f"fold must be in 0..{folds - 1}, got {fold}")
    order = np.random.default_rng(seed).permutation(n)
    return np.sort(np.array_split(order, folds)[fold])


def _arrays(data: Any, split: str) -> dict[str, np.ndarray]:
    found = data[split] if isinstance(data, Mapping) else getattr(data, split)
    return {k: np.asarray(v) for k, v in found.items()}


def cv_fold(data: Any, folds: int = 5, fold: int = 0, seed: int = 0) -> Any:
    """Fold ``fold`` of ``data`` (a dataset with ``train``/``valid`` splits): its examples
    validate, the others train. Keeps the dataset's processors and info."""
    train, valid = _arrays(data, "train"), _arrays(data, "valid")
    joined = {k: np.concatenate([train[k], valid[k]]) if k in valid else train[k] for k in train}
    n = len(next(iter(joined.values())))
    held = fold_indices(n, folds, fold, seed)
    keep = np.ones(n, bool)
    keep[held] = False
    new_train = {k: v[keep] for k, v in joined.items()}
    new_valid = {k: v[held] for k, v in joined.items()}
    if dataclasses.is_dataclass(data) and not isinstance(data, type):
        return dataclasses.replace(data, train=new_train, valid=new_valid)
    return {"train": new_train, "valid": new_valid}


def cross_validate(
    config: str | None,
    folds: int,
    overrides: Sequence[str] = (),
    *,
    seed: int = 0,
    run_dir: str | Path | None = None,
    out: Any = print,
) -> dict[str, Any]:
    """Train ``config`` on each of ``folds`` folds; returns per-fold figures, mean and std."""
    import tensorweave_train as twt
    from tensorweave_store.db.urls import runs_root

    base = twt.load_config(config, overrides)
    name = str(base.get("run", {}).get("name", "run"))
    root = Path(run_dir) if run_dir else runs_root() / f"{name}-cv-{time.strftime('%Y%m%d-%H%M%S')}"
    per_fold: list[dict[str, float]] = []
    old_tags = os.environ.get("TENSORWEAVE_STORE_TAGS")
    try:
        for k in range(folds):
            cfg = dict(base)
            cfg["data"] = {
                "@datasets": "cv_fold.v1",
                "data": base["data"],
                "folds": folds,
                "fold": k,
                "seed": seed,
            }
            cfg["run"] = {**dict(base.get("run", {})), "name": f"{name}-fold{k}"}
            cfg["run"].pop("dir", None)
            tags = [f"cv:{name}", f"fold:{k}", *(old_tags.split(",") if old_tags else [])]
            os.environ["TENSORWEAVE_STORE_TAGS"] = ",".join(tags)
            started = time.perf_counter()
            summary = twt.train_job(cfg, run_dir=root / f"fold-{k}", out=None, progress=False)
            figures = {key: float(v) for key, v in summary["valid"].items()}
            per_fold.append(figures)
            if out is not None:
                shown = "  ".join(f"{key} {v:.4f}" for key, v in figures.items())
                out(f"fold {k + 1}/{folds}: {shown} ({time.perf_counter() - started:.1f}s)")
    finally:
        if old_tags is None:
            os.environ.pop("TENSORWEAVE_STORE_TAGS", None)
        else:
            os.environ["TENSORWEAVE_STORE_TAGS"] = old_tags
    keys = list(per_fold[0])
    result = {
        "config": config or "digits",
        "folds": folds,
        "seed": seed,
        "run_dir": str(root),
        "per_fold": per_fold,
        "mean": {key: float(np.mean([f[key] for f in per_fold])) for key in keys},
        "std": {key: float(np.std([f[key] for f in per_fold], ddof=1)) for key in keys},
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / "cv.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def summary_text(result: Mapping[str, Any]) -> str:
    """``accuracy 0.9512 ± 0.0104`` lines for every figure."""
    lines = [
        f"{result['folds']}-fold cross-validation of {result['config']} ({result['run_dir']}):"
    ]
    for key, mean in result["mean"].items():
        lines.append(f"  {key} {mean:.4f} ± {result['std'][key]:.4f}")
    return "\n".join(lines)
