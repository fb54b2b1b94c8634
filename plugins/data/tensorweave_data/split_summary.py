"""One split of a dataset looked at (``tensorweave data show``): its fields, its examples
counted by one streamed pass with their class counts, one example's value in one line, and
image examples tiled into one grid. A split is a ``{field: array}`` dict or a stream of a
file dataset (``files.streaming.Stream``); nothing is held but one batch.

>>> import numpy as np
>>> print(describe_value(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)))
float32[2, 2] min 1 max 4 mean 2.5
>>> grid = tile_images(np.zeros([3, 4, 5, 1], np.uint8), columns=2)
>>> grid.shape  # 2 rows x 2 columns of 4x5 images, 2-pixel borders
(14, 16, 3)
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "is_stream",
    "fields_of",
    "batches_of",
    "length_of",
    "label_field",
    "label_of",
    "count_split",
    "progress_printer",
    "describe_value",
    "class_text",
    "is_image_field",
    "tile_images",
]

_BATCH = 256  # examples read at a time while counting
_PROGRESS_AFTER = 2.0  # seconds of counting before a progress line is shown
_PAD = 2  # pixels between the images of a grid


def is_stream(split: Any) -> bool:
    return hasattr(split, "dataset") and hasattr(split, "element_spec")


def fields_of(split: Any) -> dict[str, tuple[tuple[int | None, ...], str]]:
    """``{field: (batch shape, dtype name)}`` without reading an example."""
    if is_stream(split):
        return {
            k: ((None, *spec.shape.as_list()), spec.dtype.name)
            for k, spec in split.element_spec.items()
        }
    return {k: ((None, *np.shape(v)[1:]), np.asarray(v).dtype.name) for k, v in split.items()}


def batches_of(split: Any, batch: int = _BATCH) -> Iterator[dict[str, np.ndarray]]:
    """The split's examples in their stored order, ``batch`` at a time, as numpy."""
    if is_stream(split):
        import tensorflow as tf

        ds = split.dataset().batch(batch).prefetch(tf.data.AUTOTUNE)
        for b in ds:
            yield {k: v.numpy() for k, v in b.items()}
        return
    n = length_of(split)
    for start in range(0, n, batch):
        yield {k: np.asarray(v[start : start + batch]) for k, v in split.items()}


def length_of(split: Any) -> int:
    return len(next(iter(split.values()), []))


def label_field(info: Mapping[str, Any], fields: Mapping[str, Any]) -> str | None:
    """The field whose values are counted as classes: one id or value per example, or a
    one-hot vector of the dataset's ``class_names`` (a sequence of ids is not a label)."""
    label = info.get("label")
    listed = info.get("fields")
    found: str | None = None
    if isinstance(label, str | list | tuple):
        names = [label] if isinstance(label, str) else list(label)
        if len(names) == 1 and names[0] in fields:
            found = str(names[0])
    elif info.get("class_names") and isinstance(listed, list) and len(listed) == 2:
        found = str(listed[1]) if listed[1] in fields else None
    elif "y" in fields and ("class_names" in info or "n_classes" in info):
        found = "y"
    if found is None:
        return None
    shape = fields[found][0]
    n_classes = len(info.get("class_names") or []) or info.get("n_classes")
    if len(shape) == 1 or (len(shape) == 2 and shape[1] == n_classes):
        return found
    return None


def label_of(value: np.ndarray) -> Any:
    """One example's label: an id (a one-hot vector's argmax), a string or a number."""
    if value.ndim == 1 and value.size > 1:
        return int(np.argmax(value))
    item = value.reshape(-1)[0] if value.size else value
    if isinstance(item, bytes):
        return item.decode("utf-8", "replace")
    if isinstance(item, np.integer):
        return int(item)
    return item.item() if isinstance(item, np.generic) else item


def count_split(
    split: Any, name: str, label: str | None, progress: Any
) -> tuple[int, Counter[Any] | None]:
    """``(examples, label counts)`` of one split, by one streamed pass."""
    counts: Counter[Any] | None = Counter() if label else None
    if not is_stream(split) and label is None:
        return length_of(split), None
    n = 0
    started = last = time.monotonic()
    shown = False
    for batch in batches_of(split):
        n += len(next(iter(batch.values())))
        if counts is not None and label is not None:
            values = batch[label]
            if values.ndim == 2 and values.shape[1] > 1:
                counts.update(np.argmax(values, axis=1).tolist())
            elif values.dtype.kind in "iub":
                counts.update(values.reshape(len(values), -1)[:, 0].tolist())
            elif values.dtype.kind in "SOU":
                counts.update(label_of(np.asarray([v])) for v in values.reshape(-1))
            else:
                counts = None
        now = time.monotonic()
        if now - started > _PROGRESS_AFTER and now - last > 0.5:
            last = now
            shown = True
            progress(f"counting {name}: {n:,} examples...")
    if shown:
        progress(f"counting {name}: {n:,} examples, done", end=True)
    return n, counts


def progress_printer() -> Any:
    tty = sys.stderr.isatty()

    def progress(text: str, end: bool = False) -> None:
        if tty:
            print(f"\r{text}", end="\n" if end else "", file=sys.stderr, flush=True)
        else:
            print(text, file=sys.stderr, flush=True)

    return progress


def describe_value(value: Any, width: int = 60) -> str:
    """One example's value in one line: a number, a string, or an array's summary."""
    array = np.asarray(value)
    if array.dtype.kind in "SOU":
        items = [label_of(np.asarray([v])) for v in array.reshape(-1)[:8]]
        text = repr(items[0]) if array.ndim == 0 else repr(items)
        return text if len(text) <= width else text[: width - 3] + "..."
    if array.ndim == 0 or array.size == 1:
        return f"{array.reshape(-1)[0].item():g}" if array.size else "[]"
    shape = ", ".join(str(d) for d in array.shape)
    if array.ndim == 1 and array.size <= 8:
        return f"{array.dtype.name}[{shape}] {array.tolist()}"
    a = array.astype(np.float64)
    return f"{array.dtype.name}[{shape}] min {a.min():.4g} max {a.max():.4g} mean {a.mean():.4g}"


def class_text(value: Any, class_names: Sequence[str] | None) -> str:
    label = label_of(np.asarray(value))
    if class_names and isinstance(label, int) and 0 <= label < len(class_names):
        return f"{label} ({class_names[label]})"
    return str(label)


def is_image_field(shape: tuple[int | None, ...], dtype: str) -> bool:
    return (
        len(shape) == 4
        and shape[-1] in (1, 3, 4)
        and dtype.startswith(("float", "uint", "int"))
        and dtype != "int64"
    )


def tile_images(images: np.ndarray, columns: int = 8) -> np.ndarray:
    """``images`` ``[n, h, w, c]`` tiled row by row into one ``uint8`` RGB image with
    ``_PAD``-pixel white borders. Float images in [0, 1] are scaled to [0, 255]; values
    are clipped to [0, 255]."""
    a = np.asarray(images, np.float64)
    if a.size and a.max() <= 1.0 and images.dtype.kind == "f":
        a = a * 255.0
    a = np.clip(np.rint(a), 0, 255).astype(np.uint8)
    if a.shape[-1] == 1:
        a = np.repeat(a, 3, axis=-1)
    elif a.shape[-1] == 4:
        a = a[..., :3]
    n, h, w = a.shape[:3]
    cols = max(1, min(columns, n))
    rows = max(1, math.ceil(n / cols))
    grid = np.full((rows * h + (rows + 1) * _PAD, cols * w + (cols + 1) * _PAD, 3), 255, np.uint8)
    for i in range(n):
        r, c = divmod(i, cols)
        y, x = _PAD + r * (h + _PAD), _PAD + c * (w + _PAD)
        grid[y : y + h, x : x + w] = a[i]
    return grid
