"""``tensorweave data show CONFIG|DATASET``: look at a dataset before training on it.

For each split it prints the fields (shape, dtype), the number of examples (counted by one
streamed pass, with a progress line on stderr when it takes a while; ``--no-count``:
"unknown"), the class counts when there is a label field (by class name when the dataset
has ``class_names``) and a few decoded samples (``--samples N``). ``-o grid.png`` writes
the first samples of an image field as a PNG grid (tiled here and written with
``tf.io.encode_png``: no plotting library), their labels listed in the output. Nothing is
held in memory but one batch (and the class counts): a file dataset is read as it streams.

The target is a config file or built-in job (its ``[data]`` section is shown; ``--data.KEY
=VALUE`` overrides it) or a registered dataset's name with its options as ``--KEY VALUE``
or ``--KEY=VALUE`` (TOML values)::

    tensorweave data show image_folder.v1 --directory data/shapes --image_size=[32,32] -o grid.png
    tensorweave data show table.v1 --paths data/houses.csv --label price --samples 5
    tensorweave data show my.toml --no-count

>>> import numpy as np
>>> print(describe_value(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)))
float32[2, 2] min 1 max 4 mean 2.5
>>> grid = tile_images(np.zeros([3, 4, 5, 1], np.uint8), columns=2)
>>> grid.shape  # 2 rows x 2 columns of 4x5 images, 2-pixel borders
(14, 16, 3)
"""

from __future__ import annotations

import difflib
import math
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave.cli.command import EXIT_OK, UsageError

__all__ = [
    "ShowOptions",
    "DataInputError",
    "parse_show",
    "load_target",
    "show",
    "cmd_show",
    "describe_value",
    "tile_images",
]

USAGE = (
    "usage: tensorweave data show CONFIG|DATASET [--KEY VALUE ...] [--samples N] "
    "[--no-count] [--split SPLIT] [-o GRID.png] [--traceback]"
)
_CONFIG_SUFFIXES = (".toml", ".cfg", ".ini", ".json", ".yaml", ".yml")
_BATCH = 256  # examples read at a time while counting
_PROGRESS_AFTER = 2.0  # seconds of counting before a progress line is shown
_MAX_CLASSES = 30  # distinct label values listed when a dataset has no class names
_PAD = 2  # pixels between the images of a grid


class DataInputError(UsageError):
    """``tensorweave data show`` cannot read what it was given (exit code 2): a missing
    folder or file, a name that is neither a config file nor a dataset."""


@dataclass
class ShowOptions:
    """What ``tensorweave data show`` was asked (``parse_show``)."""

    target: str = ""
    options: dict[str, Any] = field(default_factory=dict)  # a dataset's own options
    overrides: list[str] = field(default_factory=list)  # a config's --data.KEY=VALUE
    samples: int = 3
    count: bool = True
    splits: list[str] = field(default_factory=lambda: ["train", "valid"])
    output: str | None = None
    help: bool = False


def parse_show(argv: Sequence[str]) -> ShowOptions:
    """The options of ``tensorweave data show``; any other ``--KEY VALUE`` (or
    ``--KEY=VALUE``) is the dataset's option, or a config override when it has a dot.

    >>> o = parse_show(["image_folder.v1", "--directory", "d", "--image_size=[8,8]", "-o", "g.png"])
    >>> o.target, o.options, o.output
    ('image_folder.v1', {'directory': 'd', 'image_size': [8, 8]}, 'g.png')
    """
    import tensorweave.config as twc

    opts = ShowOptions()
    args = list(argv)
    i = 0

    def value(name: str) -> str:
        nonlocal i
        if i + 1 >= len(args):
            raise UsageError(f"tensorweave data show: {name} needs a value. {USAGE}")
        i += 1
        return args[i]

    while i < len(args):
        arg = args[i]
        if arg in ("-h", "--help"):
            opts.help = True
        elif arg == "--traceback":
            pass
        elif arg == "--no-count":
            opts.count = False
        elif arg in ("-o", "--output") or arg.startswith("--output="):
            opts.output = arg.split("=", 1)[1] if "=" in arg else value(arg)
        elif arg == "--samples" or arg.startswith("--samples="):
            text = arg.split("=", 1)[1] if "=" in arg else value(arg)
            if not text.isdigit():
                raise UsageError(f"tensorweave data show: --samples takes a count, got {text!r}")
            opts.samples = int(text)
        elif arg == "--split" or arg.startswith("--split="):
            text = arg.split("=", 1)[1] if "=" in arg else value(arg)
            opts.splits = [s.strip() for s in text.split(",") if s.strip()]
        elif arg.startswith("--") and len(arg) > 2:
            key, sep, text = arg[2:].partition("=")
            if not sep:
                text = value(arg)
            if "." in key:
                opts.overrides.append(f"--{key}={text}")
            else:
                opts.options[key.replace("-", "_")] = twc.parse_value(text)
        elif not opts.target and not arg.startswith("-"):
            opts.target = arg
        else:
            raise UsageError(f"tensorweave data show: unexpected argument {arg!r}. {USAGE}")
        i += 1
    return opts


def _jobs() -> list[str]:
    try:
        return tw.registry("jobs").names()
    except Exception:  # no pack declares jobs: a config is then a file's path
        return []


def load_target(opts: ShowOptions) -> tuple[str, Any]:
    """``(title, DataSplits)`` of what ``opts`` names: a config file or job (its ``[data]``
    section, with the overrides) or a registered dataset built with ``opts.options``."""
    import tensorweave.config as twc

    target = opts.target
    datasets = tw.registry("datasets")
    path = Path(target)
    if target in datasets and not path.is_file():
        if opts.overrides:
            opts.options.update(
                {k.removeprefix("data."): v for k, v in _overrides(opts.overrides).items()}
            )
        cfg: Mapping[str, Any] = {"data": {"@datasets": target, **opts.options}}
        title = target
    elif path.is_file() or target in _jobs():
        if opts.options:
            keys = ", ".join(f"--data.{k}" for k in opts.options)
            raise UsageError(
                f"tensorweave data show: a config takes overrides with their section "
                f"({keys}), not {', '.join('--' + k for k in opts.options)}."
            )
        source = path if path.is_file() else Path(str(tw.resolve("jobs", target)))
        loaded = twc.load(source, overrides=opts.overrides)
        if "data" not in loaded:
            raise DataInputError(
                f"tensorweave data show: the config {str(source)!r} has no [data] section. "
                "Fix: name a job config, or a dataset such as image_folder.v1."
            )
        cfg = {"data": loaded["data"]}
        title = f"{source} [data] ({loaded['data'].get('@datasets', '?')})"
    elif os.sep in target or "/" in target or path.suffix.lower() in _CONFIG_SUFFIXES:
        raise DataInputError(
            f"tensorweave data show: no config file {target!r} (working directory "
            f"{os.getcwd()}). Fix: give an existing config file or a dataset's name."
        )
    else:
        names = datasets.names() + _jobs()
        close = difflib.get_close_matches(target, names, n=1, cutoff=0.6)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise DataInputError(
            f"tensorweave data show: {target!r} is neither a config file nor a dataset.{hint} "
            f"Datasets: {', '.join(datasets.names())}. Fix: give a dataset's name with its "
            "options, or a config file."
        )
    try:
        built = twc.resolve(cfg)["data"]
    except twc.ConfigError as err:
        cause = err.__cause__
        if cause is not None and type(cause).__name__ == "FileDataError":
            raise DataInputError(str(cause)) from cause  # a missing or unreadable file
        raise
    return title, built


def _overrides(overrides: Sequence[str]) -> dict[str, Any]:
    import tensorweave.config as twc

    out: dict[str, Any] = {}
    for item in overrides:
        key, _, text = item.removeprefix("--").partition("=")
        out[key] = twc.parse_value(text)
    return out


# -- one split ------------------------------------------------------------------------------
def _is_stream(split: Any) -> bool:
    return hasattr(split, "dataset") and hasattr(split, "element_spec")


def _fields(split: Any) -> dict[str, tuple[tuple[int | None, ...], str]]:
    """``{field: (batch shape, dtype name)}`` without reading an example."""
    if _is_stream(split):
        return {
            k: ((None, *spec.shape.as_list()), spec.dtype.name)
            for k, spec in split.element_spec.items()
        }
    return {k: ((None, *np.shape(v)[1:]), np.asarray(v).dtype.name) for k, v in split.items()}


def _batches(split: Any, batch: int = _BATCH) -> Iterator[dict[str, np.ndarray]]:
    """The split's examples in their stored order, ``batch`` at a time, as numpy."""
    if _is_stream(split):
        import tensorflow as tf

        ds = split.dataset().batch(batch).prefetch(tf.data.AUTOTUNE)
        for b in ds:
            yield {k: v.numpy() for k, v in b.items()}
        return
    n = _length(split)
    for start in range(0, n, batch):
        yield {k: np.asarray(v[start : start + batch]) for k, v in split.items()}


def _length(split: Any) -> int:
    return len(next(iter(split.values()), []))


def _label_field(info: Mapping[str, Any], fields: Mapping[str, Any]) -> str | None:
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


def _label_of(value: np.ndarray) -> Any:
    """One example's label: an id (a one-hot vector's argmax), a string or a number."""
    if value.ndim == 1 and value.size > 1:
        return int(np.argmax(value))
    item = value.reshape(-1)[0] if value.size else value
    if isinstance(item, bytes):
        return item.decode("utf-8", "replace")
    if isinstance(item, np.integer):
        return int(item)
    return item.item() if isinstance(item, np.generic) else item


def _count(
    split: Any, name: str, label: str | None, progress: Any
) -> tuple[int, Counter[Any] | None]:
    """``(examples, label counts)`` of one split, by one streamed pass."""
    counts: Counter[Any] | None = Counter() if label else None
    if not _is_stream(split) and label is None:
        return _length(split), None
    n = 0
    started = last = time.monotonic()
    shown = False
    for batch in _batches(split):
        n += len(next(iter(batch.values())))
        if counts is not None and label is not None:
            values = batch[label]
            if values.ndim == 2 and values.shape[1] > 1:
                counts.update(np.argmax(values, axis=1).tolist())
            elif values.dtype.kind in "iub":
                counts.update(values.reshape(len(values), -1)[:, 0].tolist())
            elif values.dtype.kind in "SOU":
                counts.update(_label_of(np.asarray([v])) for v in values.reshape(-1))
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


def _progress_printer() -> Any:
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
        items = [_label_of(np.asarray([v])) for v in array.reshape(-1)[:8]]
        text = repr(items[0]) if array.ndim == 0 else repr(items)
        return text if len(text) <= width else text[: width - 3] + "..."
    if array.ndim == 0 or array.size == 1:
        return f"{array.reshape(-1)[0].item():g}" if array.size else "[]"
    shape = ", ".join(str(d) for d in array.shape)
    if array.ndim == 1 and array.size <= 8:
        return f"{array.dtype.name}[{shape}] {array.tolist()}"
    a = array.astype(np.float64)
    return f"{array.dtype.name}[{shape}] min {a.min():.4g} max {a.max():.4g} mean {a.mean():.4g}"


def _class_text(value: Any, class_names: Sequence[str] | None) -> str:
    label = _label_of(np.asarray(value))
    if class_names and isinstance(label, int) and 0 <= label < len(class_names):
        return f"{label} ({class_names[label]})"
    return str(label)


def _is_image(shape: tuple[int | None, ...], dtype: str) -> bool:
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


def _write_grid(path: str, images: np.ndarray) -> tuple[int, int]:
    import tensorflow as tf

    grid = tile_images(images)
    out = Path(path)
    if out.parent and not out.parent.is_dir():
        raise DataInputError(
            f"tensorweave data show: the folder of {path!r} does not exist. "
            "Fix: -o a path in an existing folder."
        )
    out.write_bytes(tf.io.encode_png(grid).numpy())
    return int(grid.shape[1]), int(grid.shape[0])


def show(
    data: Any,
    *,
    title: str = "",
    samples: int = 3,
    count: bool = True,
    splits: Sequence[str] = ("train", "valid"),
    output: str | None = None,
    out: Any = print,
    progress: Any = None,
) -> None:
    """Print what ``data`` (a ``DataSplits``) holds, split by split; ``output``: a PNG grid
    of the first samples of its image field (``-o``)."""
    info = dict(getattr(data, "info", {}) or {})
    class_names = info.get("class_names")
    progress = progress or _progress_printer()
    out(title)
    if class_names:
        out(f"  classes ({len(class_names)}): {', '.join(map(str, class_names))}")
    grid: tuple[np.ndarray, list[str]] | None = None
    for name in splits:
        split = getattr(data, name, None)
        if split is None:
            raise UsageError(
                f"tensorweave data show: no split {name!r}. Fix: --split train or valid."
            )
        fields = _fields(split)
        if not fields:
            out(f"{name}: no fields")
            continue
        label = _label_field(info, fields)
        if count:
            n, counts = _count(split, name, label, progress)
            size = f"{n:,} example{'' if n == 1 else 's'}"
        else:
            n, counts, size = -1, None, "unknown examples (--no-count)"
        out(f"{name}: {size}")
        if count and n == 0:
            out("  (empty)")
            continue
        width = max(len(f) for f in fields)
        for f, (shape, dtype) in fields.items():
            dims = ", ".join("None" if d is None else str(d) for d in shape)
            mark = "  (label)" if f == label else ""
            out(f"  {f:<{width}}  {dtype:<8} [{dims}]{mark}")
        if counts:
            listed = sorted(counts.items(), key=lambda kv: (str(type(kv[0])), kv[0]))
            more = len(listed) - _MAX_CLASSES
            parts = [f"{_class_text(k, class_names)}: {v:,}" for k, v in listed[:_MAX_CLASSES]]
            out(f"  class counts: {', '.join(parts)}{f', ... ({more} more)' if more > 0 else ''}")
        if samples <= 0:
            continue
        taken: dict[str, list[Any]] = {f: [] for f in fields}
        for batch in _batches(split, batch=max(samples, 1)):
            for f in fields:
                taken[f] += list(batch[f][: samples - len(taken[f])])
            if len(next(iter(taken.values()))) >= samples:
                break
        got = len(next(iter(taken.values())))
        out(f"  first {got} sample(s):")
        for i in range(got):
            parts = []
            for f in fields:
                text = (
                    _class_text(taken[f][i], class_names)
                    if f == label
                    else describe_value(taken[f][i])
                )
                parts.append(f"{f}={text}")
            out(f"    [{i}] " + "  ".join(parts))
        image = next((f for f, (s, d) in fields.items() if _is_image(s, d)), None)
        if output and grid is None and image is not None and got:
            labels = [_class_text(v, class_names) for v in taken[label]] if label else [""] * got
            try:
                grid = (np.stack(taken[image]), labels)
            except ValueError:  # images of different sizes (no image_size): not tiled
                grid = None
    if output:
        if grid is None:
            raise DataInputError(
                f"tensorweave data show: -o {output}: the dataset has no image field with "
                "samples to draw (an image field is [None, height, width, 1|3|4]). "
                "Fix: drop -o, or show an image dataset."
            )
        images, labels = grid
        w, h = _write_grid(output, images)
        cols = max(1, min(8, len(images)))
        out(f"wrote {output}: {len(images)} samples, {w}x{h} pixels, {cols} per row")
        if any(labels):
            out(f"  labels, row by row: {', '.join(labels)}")


def cmd_show(argv: list[str]) -> int:
    """``tensorweave data show``."""
    opts = parse_show(argv)
    if opts.help or not opts.target:
        print(USAGE)
        print((__doc__ or "").split(">>>", 1)[0].rstrip())
        if not opts.help:
            raise UsageError("tensorweave data show: name a config file or a dataset.")
        return EXIT_OK
    title, data = load_target(opts)
    show(
        data,
        title=title,
        samples=opts.samples,
        count=opts.count,
        splits=opts.splits,
        output=opts.output,
    )
    return EXIT_OK
