"""``arrays.v1``: your own numpy arrays, read from ``.npz``/``.npy`` files, as a dataset.

Each named array becomes a field of the samples, and the job feeds each field to the
input (or target) node of the same name: an ``.npz`` holds its arrays by name
(``np.savez("data.npz", x=images, y=labels)``), an ``.npy`` holds one array named after
the file (``x.npy`` is the field ``x``). ``rename`` maps array names to node names.
Examples are along the first axis; every array must hold the same number of them.

The split options are the built-in datasets' (``valid_fraction``, ``seed``, ``limit``):
a seeded random share of the examples is held out, or ``valid`` names separate
validation files. Arrays are used as stored (no processors); files are read by
``tensorweave_data.reading`` (never unpickled, headers checked against the file size), so
a config can only ever load plain arrays, and a bad file is a ``BadFileError`` naming it.

>>> import numpy as np, tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> np.savez(folder / "data.npz", x=np.zeros((10, 3), "float32"), y=np.arange(10))
>>> d = arrays(str(folder / "data.npz"), valid_fraction=0.2)
>>> d.train["x"].shape, d.valid["y"].shape, d.info["samples"]
((8, 3), (2,), 10)
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_data.array_files import read_npy, read_npz
from tensorweave_data.datasets import DataSplits, split_indices
from tensorweave_data.reading import BadFileError

__all__ = ["arrays", "read_arrays"]


def arrays(
    path: str | list[str],
    valid: str | list[str] | None = None,
    rename: dict[str, str] | None = None,
    valid_fraction: float | None = None,
    seed: int = 0,
    limit: int | None = None,
) -> DataSplits:
    """The arrays of ``path`` (an ``.npz`` or ``.npy`` file, or a list of them) as
    training and validation splits, one field per named array.

    Args:
        path: the file(s) holding the training arrays (relative to the working directory).
        valid: file(s) holding the validation arrays, the same names; instead of a split.
        rename: ``{array name: field}``, e.g. ``{"X_train": "x"}``: the field feeds the
            node of that name.
        valid_fraction: the share of examples held out, a seeded random split as the
            built-in datasets do (default 0.2; 0 with ``valid``).
        seed: the split's seed.
        limit: use only the first ``limit`` examples (quick runs and tests).
    """
    if valid is not None and valid_fraction:
        raise tw.ArgumentError(
            f"arrays.v1: give valid= (validation files) or valid_fraction= (a split of "
            f"path), not both (valid_fraction={valid_fraction}). Fix: drop one."
        )
    fraction = (0.0 if valid is not None else 0.2) if valid_fraction is None else valid_fraction
    data = _limited(read_arrays(path, rename), limit)
    if valid is not None:
        held = _limited(read_arrays(valid, rename), limit)
        if set(held) != set(data):
            raise tw.TensorweaveError(
                f"arrays.v1: the validation files hold {sorted(held)}, the training files "
                f"{sorted(data)}. Fix: save the same names in both."
            )
        train = data
    else:
        train_at, valid_at = split_indices(_count(data), fraction, seed)
        train = {k: v[train_at] for k, v in data.items()}
        held = {k: v[valid_at] for k, v in data.items()}
    return DataSplits(
        train=train,
        valid=held,
        info={
            "source": [str(p) for p in _paths(path)],
            "samples": _count(data) + (_count(held) if valid is not None else 0),
            "fields": {
                k: {"shape": list(v.shape[1:]), "dtype": v.dtype.name} for k, v in data.items()
            },
        },
    )


def read_arrays(path: str | list[str], rename: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Every array of the ``.npz``/``.npy`` file(s) at ``path`` by field name, checked to
    hold the same number of examples."""
    out: dict[str, np.ndarray] = {}
    for file in _paths(path):
        for name, array in _load(file).items():
            field = (rename or {}).get(name, name)
            if field in out:
                raise tw.TensorweaveError(
                    f"arrays.v1: two arrays are named {field!r} (the second in {file}). "
                    "Fix: save them under different names, or rename= one."
                )
            if array.ndim == 0:
                raise tw.TensorweaveError(
                    f"arrays.v1: {file}: the array {name!r} is a single number; examples go "
                    "along the first axis. Fix: save an array with one row per example."
                )
            out[field] = array
    if not out:
        raise tw.TensorweaveError(f"arrays.v1: {_paths(path)} hold no arrays.")
    counts = {k: len(v) for k, v in out.items()}
    if len(set(counts.values())) > 1:
        raise tw.TensorweaveError(
            f"arrays.v1: the arrays hold different numbers of examples: {counts}. Fix: "
            "one row per example in every array (the first axis)."
        )
    return out


def _paths(path: str | list[str]) -> list[Path]:
    return [Path(p) for p in ([path] if isinstance(path, str) else path)]


def _load(file: Path) -> dict[str, np.ndarray]:
    if file.suffix not in (".npz", ".npy"):
        raise BadFileError(
            file,
            "is not an .npz or .npy file",
            "save arrays with np.savez(path, x=..., y=...) or np.save(path, array)",
            owner="arrays.v1",
        )
    # one reader per format: any bad file is a BadFileError naming it (exit code 2)
    if file.suffix == ".npy":
        return {file.stem: read_npy(file, owner="arrays.v1")}
    return read_npz(file, owner="arrays.v1")


def _limited(data: dict[str, np.ndarray], limit: int | None) -> dict[str, np.ndarray]:
    if limit is None:
        return data
    limit = tw.positive_int(limit, "limit", "arrays.v1")
    return {k: v[:limit] for k, v in data.items()}


def _count(data: Mapping[str, np.ndarray]) -> int:
    return len(next(iter(data.values())))
