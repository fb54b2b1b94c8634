"""Datasets that need no download, registered in ``tw.registry("datasets")``.

- ``digits.v1``: the 1797 8x8 handwritten digits that ship inside scikit-learn
  (``sklearn.datasets.load_digits``), pixels scaled to [0, 1], for image classifiers;
- ``stdlib_chars.v1``: a character corpus made from the source of a few modules of
  Python's own standard library (read from its files), cut into windows for a
  character-level language model (the files are read as text: a module name in a config
  never imports anything). The validation text is a separate tail of the corpus,
  so overlapping windows never leak into it.

Each returns ``DataSplits``: ``train`` and ``valid`` as ``{field: array}``, ``info`` (class
count, shapes, vocabulary), ``steps`` (the pipeline that made them) and ``preprocess`` /
``postprocess``: the processors a predictor applies to a raw batch before and after the
model, saved as plain data.

>>> import tensorweave as tw
>>> d = digits(limit=100, workers=0)
>>> d.train["x"].shape, d.valid["y"].shape, d.info["n_classes"], float(d.train["x"].max()) <= 1
((80, 64), (20,), 10, True)
"""

from __future__ import annotations

import re
import string
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_data.pipeline import Pipeline, stack

__all__ = [
    "DataSplits",
    "split_indices",
    "digits",
    "stdlib_chars",
    "corpus",
    "DEFAULT_MODULES",
    "VOCAB",
    "stdlib_source",
]

#: The characters of ``stdlib_chars``: id 0 for anything else, then ``string.printable``
#: (101 ids, the same on every Python version).
VOCAB = "\x00" + string.printable

DEFAULT_MODULES = (
    "textwrap",
    "json.decoder",
    "json.encoder",
    "csv",
    "heapq",
    "calendar",
    "string",
    "queue",
)


@dataclass
class DataSplits:
    """Training and validation arrays by field, plus what a model and predictor need."""

    train: dict[str, np.ndarray]
    valid: dict[str, np.ndarray]
    info: dict[str, Any] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)
    preprocess: list[dict[str, Any]] = field(default_factory=list)
    postprocess: list[dict[str, Any]] = field(default_factory=list)

    def dataset(
        self, split: str = "train", *, batch_size: int = 32, seed: int | None = None
    ) -> Any:
        """A ``tf.data.Dataset`` of ``{field: batch}`` (shuffled each epoch with ``seed``)."""
        import tensorflow as tf

        data = getattr(self, split)
        ds = tf.data.Dataset.from_tensor_slices(data)
        if seed is not None:
            ds = ds.shuffle(
                len(next(iter(data.values()))), seed=seed, reshuffle_each_iteration=True
            )
        return ds.batch(batch_size)

    def __repr__(self) -> str:
        shapes = {k: v.shape for k, v in self.train.items()}
        return f"DataSplits(train={shapes}, valid={len(next(iter(self.valid.values()), []))})"


def split_indices(n: int, valid_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(train, valid)`` indices of ``n`` examples: the seeded random split every dataset
    of this pack makes, ``valid_fraction`` of them held out.

    >>> [a.tolist() for a in split_indices(5, 0.4, seed=0)]
    [[3, 0, 1], [2, 4]]
    """
    if not 0.0 <= valid_fraction < 1.0:
        raise tw.ArgumentError(f"valid_fraction must be in [0, 1), got {valid_fraction}")
    order = np.random.default_rng(seed).permutation(n)
    n_valid = round(n * valid_fraction)
    return order[n_valid:], order[:n_valid]


def _split(samples: list[Any], valid_fraction: float, seed: int) -> tuple[list[Any], list[Any]]:
    train, valid = split_indices(len(samples), valid_fraction, seed)
    return [samples[i] for i in train], [samples[i] for i in valid]


def digits(
    valid_fraction: float = 0.2,
    seed: int = 0,
    image: bool = False,
    steps: list[dict[str, Any]] | None = None,
    workers: int = 2,
    limit: int | None = None,
) -> DataSplits:
    """scikit-learn's 8x8 digits: ``x`` float32 in [0, 1] (64 values, or ``[8, 8, 1]``
    with ``image=True``), ``y`` int64 class ids 0..9.

    Args:
        valid_fraction: the share of samples held out (a seeded random split).
        seed: the split's seed.
        image: give ``x`` as ``[8, 8, 1]`` images (for convolutions) instead of 64 values.
        steps: processors run on every ``{"x", "y"}`` sample instead of the default
            normalisation (``{"@processors": "normalize.v1", "field": "x", "std": 16.0}``...).
        workers: processes for the pipeline (0: in this process).
        limit: use only the first ``limit`` samples (quick runs and tests).
    """
    try:
        from sklearn.datasets import load_digits
    except ImportError as err:  # pragma: no cover - a declared dependency
        raise tw.TensorweaveError(
            "digits.v1 needs scikit-learn (it ships the data): pip install scikit-learn"
        ) from err
    bunch = load_digits()
    xs, ys = bunch.data, bunch.target
    if limit is not None:
        xs, ys = xs[:limit], ys[:limit]
    default = [{"@processors": "normalize.v1", "field": "x", "std": 16.0}]
    if image:
        default.append({"@processors": "reshape.v1", "field": "x", "shape": [8, 8, 1]})
    chosen = default if steps is None else steps
    pipeline = Pipeline(chosen, workers=workers)
    samples = [{"x": x, "y": np.int64(y)} for x, y in zip(xs, ys, strict=True)]
    processed = pipeline.run(samples)
    train, valid = _split(processed, valid_fraction, seed)
    predict: list[dict[str, Any]] = [{k: v for k, v in s.items() if k != "field"} for s in chosen]
    for s in predict:  # the predictor sees a batch of raw images
        if s["@processors"] == "reshape.v1":
            s["batched"] = True
    return DataSplits(
        train=stack(train, ["x", "y"]),
        valid=stack(valid, ["x", "y"]),
        info={
            "n_classes": 10,
            "x_shape": list(np.shape(processed[0]["x"])) if processed else [],
            "source": "sklearn.datasets.load_digits",
            "raw_input": "8x8 pixel values 0..16 (64 numbers per image)",
        },
        steps=pipeline.to_config(),
        preprocess=predict,
        postprocess=[{"@processors": "argmax.v1"}],
    )


_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def stdlib_source(name: str) -> Path:
    """The ``.py`` file of the standard-library module ``name``, found without importing
    anything (a config value must never run code): ``<stdlib>/a/b.py`` or
    ``<stdlib>/a/b/__init__.py``, and never outside the standard library's directory.

    >>> stdlib_source("json.decoder").name
    'decoder.py'
    """
    root = Path(sysconfig.get_paths()["stdlib"]).resolve()
    if not isinstance(name, str) or not _MODULE_NAME.fullmatch(name):
        raise tw.TensorweaveError(
            f"stdlib_chars: cannot read the source of {name!r}: not a module name (dotted "
            "identifiers, e.g. 'json.decoder')."
        )
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        path = candidate.resolve()
        if path.is_file() and path.is_relative_to(root) and "site-packages" not in path.parts:
            return path
    raise tw.TensorweaveError(
        f"stdlib_chars: cannot read the source of module {name!r}: not a pure-Python module "
        f"of the standard library in "
        f"{root} (modules are read as text, never imported). Fix: name standard-library "
        "modules such as textwrap, json.decoder, csv."
    )


def corpus(modules: list[str] | tuple[str, ...] = DEFAULT_MODULES) -> str:
    """The source text of ``modules`` of the standard library, joined (read from their
    files: nothing is imported).

    >>> "def " in corpus(["textwrap"])
    True
    """
    return "\n".join(stdlib_source(name).read_text(encoding="utf-8") for name in modules)


def stdlib_chars(
    seq_len: int = 64,
    stride: int | None = None,
    valid_fraction: float = 0.1,
    modules: list[str] | None = None,
    seed: int = 0,
    workers: int = 2,
    limit: int | None = None,
) -> DataSplits:
    """Characters of Python's own source: ``x`` and ``y`` are int32 ``[seq_len]`` windows,
    ``y`` shifted one character ahead of ``x``.

    Args:
        seq_len: characters per training window.
        stride: characters between window starts (default ``seq_len``: no overlap).
        valid_fraction: the share of the text (its tail) kept for validation.
        modules: standard-library modules whose source makes the corpus.
        seed: the seed of the training windows' order.
        workers: processes for the pipeline.
        limit: use only the first ``limit`` characters (quick runs and tests).
    """
    text = corpus(modules or list(DEFAULT_MODULES))
    if limit is not None:
        text = text[:limit]
    vocab = VOCAB
    cut = int(len(text) * (1.0 - valid_fraction))
    size = seq_len + 1
    steps = [
        {"@processors": "tokenize_chars.v1", "field": "text", "vocab": vocab},
        {"@processors": "window.v1", "field": "text", "size": size, "stride": stride or seq_len},
        {"@processors": "shift_targets.v1", "field": "text", "inputs": "x", "targets": "y"},
    ]
    pipeline = Pipeline([*steps, {"@processors": "shuffle.v1", "seed": seed}], workers=workers)
    # Cut the text into blocks so the workers share the tokenizing and windowing.
    # Blocks of n whole windows that overlap by size - stride: the windows tile exactly.
    step = max(1, 8192 // (stride or seq_len)) * (stride or seq_len)
    block = step + size - (stride or seq_len)

    def blocks(part: str) -> list[dict[str, str]]:
        starts = range(0, max(len(part) - size + 1, 0), step)
        return [{"text": part[start : start + block]} for start in starts]

    train = pipeline.run(blocks(text[:cut]))
    valid = Pipeline(steps, workers=workers).run(blocks(text[cut:]))
    if not train or not valid:
        raise tw.TensorweaveError(
            f"stdlib_chars: {len(text)} characters give no {size}-character window for "
            "training and validation. Fix: raise limit= or lower seq_len=."
        )
    return DataSplits(
        train=stack(train, ["x", "y"]),
        valid=stack(valid, ["x", "y"]),
        info={
            "n_classes": len(vocab),
            "vocab": vocab,
            "seq_len": seq_len,
            "characters": len(text),
            "modules": list(modules or DEFAULT_MODULES),
        },
        steps=pipeline.to_config(),
        preprocess=[{"@processors": "tokenize_chars.v1", "vocab": vocab}],
        postprocess=[
            {"@processors": "argmax.v1"},
            {"@processors": "detokenize_chars.v1", "vocab": vocab},
        ],
    )
