"""Pure-Python processing steps, registered in ``tw.processors``.

Every processor is a function ``fn(value, **params) -> value`` on plain data (numpy arrays,
strings, numbers), the contract the training pack's predictor uses too. With
``field="x"`` a step applies to one field of a dict sample and leaves the others as they
are, so one chain can process ``{"x": pixels, "y": label}`` samples in a pipeline and raw
pixels in a predictor.

The processors with a TensorFlow form (``tensorweave_data.graph_forms``: normalize,
one_hot, cast, reshape, scale, tokenize_chars and the image ones: ``resize`` and the
training-only ``random_crop``, ``random_flip``, ``random_brightness``, ``random_contrast``,
Keras's names and semantics) also run inside the ``tf.data`` graph of a streamed dataset.
Here their numpy form draws from ``seed`` and the value's own bytes (the same sample gets the
same augmentation in any number of workers); on a stream they draw per
``(seed, epoch, example)``.

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

import zlib
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
    "resize",
    "random_crop",
    "random_flip",
    "random_brightness",
    "random_contrast",
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


# -- images (Keras's Resizing, RandomCrop, RandomFlip, RandomBrightness, RandomContrast) -----
def _resize_axis(n_in: int, n_out: int, interpolation: str) -> tuple[Any, Any, Any]:
    """Source rows of each output row (half-pixel centers, as ``tf.image.resize``)."""
    scale_ = n_in / n_out
    centers = (np.arange(n_out, dtype=np.float64) + 0.5) * scale_
    if interpolation == "nearest":
        near = np.minimum(np.floor(centers).astype(np.int64), n_in - 1)
        return near, near, np.zeros(n_out)
    pos = centers - 0.5
    low = np.floor(pos)
    frac = pos - low
    return (
        np.clip(low, 0, n_in - 1).astype(np.int64),
        np.clip(low + 1, 0, n_in - 1).astype(np.int64),
        frac,
    )


def _resize_one(img: np.ndarray, size: Sequence[int], interpolation: str) -> np.ndarray:
    rows = _resize_axis(img.shape[-3], int(size[0]), interpolation)
    cols = _resize_axis(img.shape[-2], int(size[1]), interpolation)
    r0, r1, fr = rows
    c0, c1, fc = cols
    fr = fr.astype(np.float32)[:, None, None]
    fc = fc.astype(np.float32)[None, :, None]
    top = img[..., r0, :, :][..., :, c0, :] * (1 - fc) + img[..., r0, :, :][..., :, c1, :] * fc
    bottom = img[..., r1, :, :][..., :, c0, :] * (1 - fc) + img[..., r1, :, :][..., :, c1, :] * fc
    return (top * (1 - fr) + bottom * fr).astype(np.float32)


def resize(
    value: Any,
    size: Sequence[int],
    interpolation: str = "bilinear",
    crop_to_aspect_ratio: bool = False,
    field: str | None = None,
) -> Any:
    """An image ``[h, w, c]`` (or a batch of them) resized to ``size = [height, width]``
    as float32, as Keras's ``Resizing``: ``interpolation`` ``"bilinear"`` or ``"nearest"``
    (half-pixel centers, as ``tf.image.resize``); ``crop_to_aspect_ratio`` center-crops to
    the target's aspect ratio first.

    >>> import numpy as np
    >>> resize(np.arange(16.0).reshape(4, 4, 1), [2, 2])[..., 0].tolist()
    [[2.5, 4.5], [10.5, 12.5]]
    """
    if interpolation not in ("bilinear", "nearest"):
        raise ValueError(f"resize: interpolation {interpolation!r} is not 'bilinear' or 'nearest'")

    def fn(v: Any) -> np.ndarray:
        img = np.asarray(v, dtype=np.float32)
        if crop_to_aspect_ratio:
            height, width = img.shape[-3], img.shape[-2]
            th, tw = int(size[0]), int(size[1])
            crop_h = min(height, int(np.float32(width * th) / np.float32(tw)))
            crop_w = min(width, int(np.float32(height * tw) / np.float32(th)))
            top, left = int((height - crop_h) / 2), int((width - crop_w) / 2)
            img = img[..., top : top + crop_h, left : left + crop_w, :]
        return _resize_one(img, size, interpolation)

    return _on(value, field, fn)


def _draws(value: Any, seed: int, n: int) -> np.ndarray:
    """``n`` uniform draws in [0, 1) fixed by ``seed`` and the value's bytes."""
    digest = zlib.crc32(np.ascontiguousarray(np.asarray(value)).tobytes())
    return np.random.default_rng([int(seed), digest]).random(n)


def _factor_range(factor: float | Sequence[float]) -> tuple[float, float]:
    if isinstance(factor, int | float):
        return -abs(float(factor)), abs(float(factor))
    low, high = (float(f) for f in factor)
    return low, high


def random_crop(
    value: Any, height: int, width: int, seed: int = 0, field: str | None = None
) -> Any:
    """A random ``[height, width]`` window of an image (Keras's ``RandomCrop``; training
    only: elsewhere a center crop to the same size).

    >>> import numpy as np
    >>> random_crop(np.zeros((5, 6, 3)), 3, 4).shape
    (3, 4, 3)
    """

    def fn(v: Any) -> np.ndarray:
        img = np.asarray(v, dtype=np.float32)
        if img.shape[0] < height or img.shape[1] < width:
            raise ValueError(
                f"random_crop: the image is {img.shape[0]}x{img.shape[1]}, smaller than "
                f"{height}x{width}; resize it first (resize.v1)"
            )
        a, b = _draws(img, seed, 2)
        top = int(np.floor(a * (img.shape[0] - height + 1)))
        left = int(np.floor(b * (img.shape[1] - width + 1)))
        return img[top : top + height, left : left + width, :]

    return _on(value, field, fn)


def random_flip(
    value: Any, mode: str = "horizontal", seed: int = 0, field: str | None = None
) -> Any:
    """An image flipped left-right (``mode="horizontal"``), upside down (``"vertical"``) or
    both at once (``"horizontal_and_vertical"``) with probability 0.5 (Keras's
    ``RandomFlip``, whose two flips share one decision; training only).

    >>> import numpy as np
    >>> random_flip(np.arange(4.0).reshape(1, 4, 1), seed=1)[0, :, 0].tolist() in (
    ...     [0.0, 1.0, 2.0, 3.0], [3.0, 2.0, 1.0, 0.0])
    True
    """
    if mode not in ("horizontal", "vertical", "horizontal_and_vertical"):
        raise ValueError(f"random_flip: mode {mode!r} is not horizontal, vertical or both")

    axes = {"horizontal": (1,), "vertical": (0,), "horizontal_and_vertical": (0, 1)}[mode]

    def fn(v: Any) -> np.ndarray:
        img = np.asarray(v, dtype=np.float32)
        (draw,) = _draws(img, seed, 1)
        return np.ascontiguousarray(np.flip(img, axes)) if draw <= 0.5 else img

    return _on(value, field, fn)


def random_brightness(
    value: Any,
    factor: float | Sequence[float],
    value_range: Sequence[float] = (0, 255),
    seed: int = 0,
    field: str | None = None,
) -> Any:
    """An image plus a random ``delta`` in ``factor * (high - low)`` of ``value_range``,
    clipped to it (Keras's ``RandomBrightness``; training only).

    >>> import numpy as np
    >>> float(abs(random_brightness(np.full((2, 2, 1), 100.0), 0.1)[0, 0, 0] - 100)) <= 25.5
    True
    """
    low, high = _factor_range(factor)
    lo, hi = sorted(float(v) for v in value_range)

    def fn(v: Any) -> np.ndarray:
        img = np.asarray(v, dtype=np.float32)
        (draw,) = _draws(img, seed, 1)
        delta = np.float32((low + (high - low) * draw) * (hi - lo))
        return np.clip(img + delta, lo, hi).astype(np.float32)

    return _on(value, field, fn)


def random_contrast(
    value: Any,
    factor: float | Sequence[float],
    value_range: Sequence[float] = (0, 255),
    seed: int = 0,
    field: str | None = None,
) -> Any:
    """``(image - mean) * c + mean`` per channel with ``c`` random in ``1 +- factor``,
    clipped to ``value_range`` (Keras's ``RandomContrast``; training only).

    >>> import numpy as np
    >>> random_contrast(np.full((2, 2, 1), 7.0), 0.5).tolist() == np.full((2, 2, 1), 7.0).tolist()
    True
    """
    low, high = _factor_range(factor)
    lo, hi = sorted(float(v) for v in value_range)

    def fn(v: Any) -> np.ndarray:
        img = np.asarray(v, dtype=np.float32)
        (draw,) = _draws(img, seed, 1)
        amount = np.float32(1.0 + low + (high - low) * draw)
        mean = img.mean(axis=(-3, -2), keepdims=True, dtype=np.float32)
        return np.clip((img - mean) * amount + mean, lo, hi).astype(np.float32)

    return _on(value, field, fn)
