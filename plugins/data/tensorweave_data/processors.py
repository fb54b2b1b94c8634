"""Pure-Python processing steps, registered in ``tw.processors``.

Every processor is a function ``fn(value, **params) -> value`` on plain data (numpy arrays,
strings, numbers), the contract the training pack's predictor uses too. With
``field="x"`` a step applies to one field of a dict sample and leaves the others as they
are, so one chain can process ``{"x": pixels, "y": label}`` samples in a pipeline and raw
pixels in a predictor.

Two markers tell a ``Pipeline`` how to run a step: ``expands`` (the step turns one sample
into a list of samples, e.g. ``window``) and ``whole`` (the step takes the list of every
sample, e.g. ``shuffle``; it runs in the parent process, between parallel stages).

>>> import numpy as np
>>> normalize(np.array([0.0, 8.0, 16.0]), mean=8.0, std=8.0).tolist()
[-1.0, 0.0, 1.0]
>>> normalize({"x": np.array([16.0]), "y": 3}, std=16.0, field="x")["x"].tolist()
[1.0]
>>> tokenize_chars("abca", vocab="abc").tolist(), detokenize_chars([2, 1], vocab="abc")
([0, 1, 2, 0], 'cb')
>>> [w.tolist() for w in window(np.arange(5), size=3, stride=2)]
[[0, 1, 2], [2, 3, 4]]
>>> scale(np.array([1.0, 2.0]), factor=2.0, offset=1.0).tolist()
[3.0, 5.0]
>>> labels(argmax(np.array([[0.1, 0.9], [0.8, 0.2]])), names=["cat", "dog"]).tolist()
['dog', 'cat']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "normalize",
    "one_hot",
    "cast",
    "reshape",
    "tokenize_chars",
    "detokenize_chars",
    "window",
    "shift_targets",
    "shuffle",
    "take",
    "scale",
    "argmax",
    "labels",
]


def _on(value: Any, field: str | None, fn: Callable[[Any], Any]) -> Any:
    if field is None:
        return fn(value)
    if not isinstance(value, dict):
        raise TypeError(f"field={field!r} needs a dict sample, got {type(value).__name__}")
    if field not in value:
        raise KeyError(f"the sample has no field {field!r} (fields: {sorted(value)})")
    out = dict(value)
    out[field] = fn(value[field])
    return out


def normalize(
    value: Any,
    mean: float = 0.0,
    std: float = 1.0,
    field: str | None = None,
    dtype: str = "float32",
) -> Any:
    """``(value - mean) / std`` as ``dtype`` (e.g. pixels 0..16 to 0..1 with ``std=16``)."""
    if std == 0:
        raise ValueError("normalize: std must not be 0")
    return _on(value, field, lambda v: ((np.asarray(v, dtype=dtype) - mean) / std).astype(dtype))


def one_hot(value: Any, num_classes: int, field: str | None = None) -> Any:
    """Integer class ids to one-hot float32 rows.

    >>> import numpy as np
    >>> one_hot(np.array([2, 0]), num_classes=3).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """

    def fn(v: Any) -> Any:
        ids = np.asarray(v, dtype=np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= num_classes):
            raise ValueError(
                f"one_hot: ids must be in [0, {num_classes}), got {ids.min()}..{ids.max()}"
            )
        return np.eye(num_classes, dtype=np.float32)[ids]

    return _on(value, field, fn)


def cast(value: Any, dtype: str, field: str | None = None) -> Any:
    """``value`` as a numpy array of ``dtype``."""
    return _on(value, field, lambda v: np.asarray(v).astype(dtype))


def reshape(
    value: Any, shape: Sequence[int], field: str | None = None, batched: bool = False
) -> Any:
    """One example reshaped to ``shape`` (one ``-1`` allowed), e.g. 64 pixels to
    ``[8, 8, 1]``: one example's shape, as ``tw.Input(shape=)``, ``Reshape.v1`` and a
    config's ``input`` (``docs/shapes.md``). With ``batched=True`` the value is a batch
    (a predictor's input) and each of its examples is reshaped.

    >>> import numpy as np
    >>> reshape(np.arange(4), [2, 2]).shape, reshape(np.zeros((3, 4)), [2, 2], batched=True).shape
    ((2, 2), (3, 2, 2))
    """
    target = tuple(shape)

    def one(v: Any) -> np.ndarray:
        array = np.asarray(v)
        return array.reshape((len(array), *target) if batched else target)

    return _on(value, field, one)


def tokenize_chars(value: Any, vocab: str, field: str | None = None, unknown: int = 0) -> Any:
    """A string to int32 ids: each character's index in ``vocab`` (``unknown`` if absent)."""
    index = {c: i for i, c in enumerate(vocab)}
    return _on(
        value, field, lambda v: np.fromiter((index.get(c, unknown) for c in v), np.int32, len(v))
    )


def detokenize_chars(value: Any, vocab: str, field: str | None = None) -> Any:
    """Ids back to a string (post-processing of a character model's output)."""
    return _on(value, field, lambda v: "".join(vocab[int(i)] for i in np.asarray(v).ravel()))


def window(value: Any, size: int, stride: int | None = None, field: str | None = None) -> list[Any]:
    """Cut a sequence into windows of ``size`` every ``stride`` (default ``size``) items;
    a dict sample gives one sample per window (other fields copied). Drops the remainder."""
    step = stride or size
    if size < 1 or step < 1:
        raise ValueError(f"window: size and stride must be >= 1, got {size}, {step}")
    seq = value if field is None else value[field]
    arr = np.asarray(seq)
    starts = range(0, len(arr) - size + 1, step)
    if field is None:
        return [arr[s : s + size] for s in starts]
    return [{**value, field: arr[s : s + size]} for s in starts]


window.expands = True  # type: ignore[attr-defined]


def shift_targets(
    value: dict[str, Any], field: str = "ids", inputs: str = "x", targets: str = "y"
) -> dict[str, Any]:
    """Next-item prediction: a window ``w`` becomes ``{inputs: w[:-1], targets: w[1:]}``.

    >>> import numpy as np
    >>> s = shift_targets({"ids": np.array([1, 2, 3])})
    >>> s["x"].tolist(), s["y"].tolist()
    ([1, 2], [2, 3])
    """
    seq = np.asarray(value[field])
    out = {k: v for k, v in value.items() if k != field}
    out[inputs], out[targets] = seq[:-1], seq[1:]
    return out


# -- predictor steps: pixels in, class names out ------------------------------------------
def scale(
    value: Any,
    factor: float = 1.0,
    offset: float = 0.0,
    dtype: str = "float32",
    field: str | None = None,
) -> Any:
    """``value * factor + offset`` as ``dtype`` (e.g. pixels to [0, 1])."""
    return _on(value, field, lambda v: (np.asarray(v, dtype=dtype) * factor + offset).astype(dtype))


def argmax(value: Any, axis: int = -1, field: str | None = None) -> Any:
    """The index of the largest entry along ``axis`` (class scores to class ids)."""
    return _on(value, field, lambda v: np.argmax(np.asarray(v), axis=axis))


def labels(value: Any, names: Sequence[str] = (), field: str | None = None) -> Any:
    """Map integer ids to ``names``."""
    return _on(value, field, lambda v: np.asarray(list(names), dtype=object)[np.asarray(v)])


def shuffle(samples: list[Any], seed: int = 0) -> list[Any]:
    """Every sample in a random order fixed by ``seed`` (runs on the whole dataset)."""
    order = np.random.default_rng(seed).permutation(len(samples))
    return [samples[i] for i in order]


shuffle.whole = True  # type: ignore[attr-defined]


def take(samples: list[Any], n: int) -> list[Any]:
    """The first ``n`` samples (a quick subset for smoke runs; whole dataset)."""
    return list(samples[:n])


take.whole = True  # type: ignore[attr-defined]
