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

What one split shows (fields, counts, a value in one line, the image grid) is
``tensorweave_data.split_summary``.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave.cli.command import EXIT_OK, UsageError
from tensorweave_data.split_summary import (
    batches_of,
    class_text,
    count_split,
    describe_value,
    fields_of,
    is_image_field,
    label_field,
    progress_printer,
    tile_images,
)

__all__ = [
    "ShowOptions",
    "DataInputError",
    "parse_show",
    "load_target",
    "show",
    "cmd_show",
]

USAGE = (
    "usage: tensorweave data show CONFIG|DATASET [--KEY VALUE ...] [--samples N] "
    "[--no-count] [--split SPLIT] [-o GRID.png] [--traceback]"
)
_CONFIG_SUFFIXES = (".toml", ".cfg", ".ini", ".json", ".yaml", ".yml")
_MAX_CLASSES = 30  # distinct label values listed when a dataset has no class names


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
    progress = progress or progress_printer()
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
        fields = fields_of(split)
        if not fields:
            out(f"{name}: no fields")
            continue
        label = label_field(info, fields)
        if count:
            n, counts = count_split(split, name, label, progress)
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
            parts = [f"{class_text(k, class_names)}: {v:,}" for k, v in listed[:_MAX_CLASSES]]
            out(f"  class counts: {', '.join(parts)}{f', ... ({more} more)' if more > 0 else ''}")
        if samples <= 0:
            continue
        taken: dict[str, list[Any]] = {f: [] for f in fields}
        for batch in batches_of(split, batch=max(samples, 1)):
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
                    class_text(taken[f][i], class_names)
                    if f == label
                    else describe_value(taken[f][i])
                )
                parts.append(f"{f}={text}")
            out(f"    [{i}] " + "  ".join(parts))
        image = next((f for f, (s, d) in fields.items() if is_image_field(s, d)), None)
        if output and grid is None and image is not None and got:
            labels = [class_text(v, class_names) for v in taken[label]] if label else [""] * got
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
