"""``tensorweave predict RUN [RUN ...]``: a trained model on raw input, with its processors.

Raw input comes from ``--input FILE`` (``.npy``, ``.npz``, ``.json`` or text) or ``--text``;
a run trained on image files (``image_folder.v1``) takes ``--input`` image files or folders,
decoded and resized exactly as training decoded them, and answers one JSON object per file
(``{"file": ..., "class": ..., "id": ..., "probability": ...}``);
a model with several inputs takes one array per input, by name (an ``.npz`` file or a JSON
object), or **raw rows**: a JSON list of objects (``[{"age": 41, "city": "rome"}, ...]``) or
a ``.csv`` file with a header line, one row per example, its values typed as the run's
``table.v1`` columns were (strings stay strings: the model's lookups map them, an unseen
one to the OOV index). The run's saved pre-processing turns it into the model's input and its
post-processing turns the outputs into answers (class ids). A file that cannot be read
is refused with exit code 2 naming it (``tensorweave_data.read_input``); input holding NaN
or infinite values is refused with their count, or predicted with one warning under
``--allow-nan``. ``--probabilities`` and ``--top-k K`` print class
probabilities instead; several runs predict as an ensemble combined by ``--voter``;
``--generate N`` extends a sequence N items.

>>> predict_parser().parse_args(["runs/a", "runs/b", "--text", "x"]).more_runs
['runs/b']
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from tensorweave.cli.command import EXIT_OK, CommandParser, UsageError
from tensorweave_data import IMAGE_SUFFIXES, read_input
from tensorweave_train.commands.arguments import need_run_dir, parse_command_line, run_parser

__all__ = ["predict_parser", "cmd_predict"]


def predict_parser() -> CommandParser:
    """The parser of ``tensorweave predict``."""
    p = run_parser("predict", "Run a trained model on raw input, with its processors.")
    p.usage = (
        "tensorweave predict RUN [RUN ...] [--voter NAME] (--input FILE [FILE ...] | --text TEXT)"
    )
    p.add_argument(
        "--input",
        nargs="+",
        metavar="FILE",
        help="a .npy, .npz, .json or .txt file of raw examples (several inputs: an .npz or a "
        "JSON object with one array per input name, or rows: a JSON list of objects or a .csv "
        "file with a header); a run trained on image files also takes image files and folders "
        "of them",
    )
    p.add_argument("--text", help="raw text input (character models)")
    p.add_argument("--generate", type=int, default=0, help="append N predicted items")
    p.add_argument("--probabilities", action="store_true", help="print class probabilities")
    p.add_argument("--top-k", type=int, metavar="K", help="print the K likeliest classes")
    p.add_argument(
        "--allow-nan",
        action="store_true",
        help="predict on input holding NaN/inf values (one warning with the count) instead of "
        "refusing it",
    )
    p.add_argument("more_runs", nargs="*", metavar="RUN", help="more runs: predict as an ensemble")
    p.add_argument("--voter", help="how an ensemble combines (default mean_probabilities.v1)")
    return p


_OWNER = "tensorweave predict --input"


def _raw(args: argparse.Namespace, run: Any = None) -> Any:
    if args.text is not None:
        return args.text
    if not args.input:
        raise UsageError("tensorweave predict: give --input FILE or --text TEXT")
    if len(args.input) > 1:
        raise UsageError(
            "tensorweave predict: several --input files are image files only (a run trained "
            "on image_folder.v1); give one .npy, .npz, .json or text file"
        )
    path = Path(args.input[0])
    types = _column_types(run)
    if path.suffix.lower() == ".csv":
        return _csv_columns(path, types)
    # one reader per format: a bad file is a BadFileError naming it (exit code 2)
    raw = read_input(path, owner=_OWNER)
    if isinstance(raw, list) and raw and all(isinstance(r, dict) for r in raw):
        return _row_columns(raw, str(path))
    return raw


def _column_types(run: Any) -> dict[str, str]:
    """The run's ``table.v1`` column types (``{"age": "int64", "city": "string"}``), or {}."""
    if run is None:
        return {}
    try:
        types = run.processors.info.get("types")
    except (OSError, ValueError, AttributeError):
        return {}
    return dict(types) if isinstance(types, dict) else {}


def _row_columns(rows: list[dict[str, Any]], where: str) -> dict[str, list[Any]]:
    """Rows (objects of one value per input) as one list per input, in row order.

    >>> _row_columns([{"a": 1, "c": "x"}, {"a": 2, "c": "y"}], "rows.json")
    {'a': [1, 2], 'c': ['x', 'y']}
    """
    from tensorweave_train.runs.processors import PredictInputError

    names = list(rows[0])
    for i, row in enumerate(rows):
        if set(row) != set(names):
            missing = sorted(set(names) - set(row)) or sorted(set(row) - set(names))
            raise PredictInputError(
                f"{_OWNER}: row {i} of {where} does not have the fields of row 0 ({names}): "
                f"{missing[0]!r} differs. Fix: give every row the same fields (one per input)."
            )
    return {n: [row[n] for row in rows] for n in names}


def _csv_columns(path: Path, types: dict[str, str]) -> dict[str, list[Any]]:
    """A CSV file's rows as one list per column, each value typed as the run's column (a
    number column parsed, a string column kept); columns of unknown type are numbers when
    every value parses as one."""
    from tensorweave_train.runs.processors import PredictInputError

    try:
        with path.open(newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError) as err:
        raise PredictInputError(f"{_OWNER}: cannot read {path}: {err}") from err
    if len(rows) < 2:
        raise PredictInputError(
            f"{_OWNER}: {path} has no rows. Fix: a header line with the input names, then one "
            "line per example."
        )
    header, body = rows[0], rows[1:]
    columns: dict[str, list[Any]] = {}
    for j, name in enumerate(header):
        values = []
        for line, row in enumerate(body, start=2):
            if len(row) != len(header):
                raise PredictInputError(
                    f"{_OWNER}: {path} line {line} has {len(row)} fields, the header "
                    f"{len(header)}. Fix: one value per column on every line."
                )
            values.append(row[j])
        columns[name] = _typed(values, types.get(name), f"{path} column {name!r}")
    return columns


def _typed(values: list[str], kind: str | None, where: str) -> list[Any]:
    from tensorweave_train.runs.processors import PredictInputError

    if kind == "string":
        return values
    parse = int if kind in ("int64", "int32") else float
    try:
        return [parse(v) for v in values]
    except ValueError as err:
        if kind is None:
            return values  # not numbers: strings
        raise PredictInputError(
            f"{_OWNER}: {where} holds {err.args[0].split(': ')[-1]}, not {kind} (the type the "
            "run was trained on). Fix: give a number there."
        ) from err


def _names_images(inputs: list[str] | None, run: Any) -> bool:
    """Whether ``--input`` names image files (or folders, for a run trained on images)
    rather than one file of arrays."""
    from tensorweave_train.runs.processors import image_decoding

    if not inputs:
        return False
    if any(Path(i).suffix.lower() in IMAGE_SUFFIXES for i in inputs):
        return True
    folders = any(Path(i).is_dir() for i in inputs)
    return folders and image_decoding(run.processors.info) is not None


def cmd_predict(argv: list[str]) -> int:
    """``tensorweave predict``."""
    from tensorweave_train.runs.run import Run

    parser = predict_parser()
    args, _ = parse_command_line(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    run = Run(need_run_dir(args, parser))
    if _names_images(args.input, run):
        return _predict_images(run, args)
    raw = _raw(args, run)
    if args.probabilities or args.top_k is not None:
        return _print_scores(run, raw, args)
    if args.more_runs or args.voter:
        from tensorweave_train.runs.ensemble import Ensemble

        if args.generate or args.allow_nan:
            raise UsageError(
                "tensorweave predict: --generate and --allow-nan work with one run, not an ensemble"
            )
        voter = args.voter or "mean_probabilities.v1"
        result = Ensemble([str(run.path), *args.more_runs], voter=voter).predict(raw)
    else:
        result = run.predict(raw, generate=args.generate, allow_nan=args.allow_nan)
    print(result if isinstance(result, str) else json.dumps(np.asarray(result).tolist()))
    return EXIT_OK


def _print_scores(run: Any, raw: Any, args: argparse.Namespace) -> int:
    """``--probabilities``: one row of class probabilities per example; ``--top-k K``: the K
    likeliest ``[class, probability]`` pairs per example (JSON)."""
    from tensorweave_train.runs.processors import probabilities, top_k

    if args.more_runs or args.voter or args.generate:
        raise UsageError("tensorweave predict: --probabilities/--top-k take one run, no --generate")
    if args.top_k is not None and args.top_k < 1:
        raise UsageError(f"tensorweave predict: --top-k must be >= 1, got {args.top_k}")
    scores = run.predict(raw, postprocess=False, allow_nan=args.allow_nan)
    if args.top_k is not None:
        print(json.dumps(top_k(scores, args.top_k)))
    else:
        print(json.dumps(np.round(probabilities(scores), 6).tolist()))
    return EXIT_OK


def _predict_images(run: Any, args: argparse.Namespace) -> int:
    """``--input`` image files or folders: each decoded as the run's training decoded its
    images, one JSON object per file, in order: ``file``, ``class`` (the class name),
    ``id`` and ``probability``; ``--probabilities`` adds every class's, ``--top-k K`` the
    K likeliest ``[class, probability]`` pairs. A bad image is named (exit code 2)."""
    from tensorweave_train.runs.processors import (
        PredictInputError,
        image_decoding,
        probabilities,
        read_images,
    )

    processors = run.processors
    settings = image_decoding(processors.info)
    if settings is None:
        raise PredictInputError(
            f"{_OWNER}: {run.path} was not trained on image files (its data is not "
            "image_folder.v1), so it takes no images. Fix: give one .npy, .npz or .json file "
            "of arrays, or predict with a run trained on an image folder."
        )
    if args.generate or args.text is not None:
        raise UsageError("tensorweave predict: image files take no --generate or --text")
    if args.top_k is not None and args.top_k < 1:
        raise UsageError(f"tensorweave predict: --top-k must be >= 1, got {args.top_k}")
    files, pixels = read_images(args.input, settings, owner=_OWNER)
    if args.more_runs or args.voter:
        from tensorweave_train.runs.ensemble import Ensemble

        voter = args.voter or "mean_probabilities.v1"
        result = Ensemble([str(run.path), *args.more_runs], voter=voter).predict(pixels)
        answers = np.asarray(result).tolist()
        print(json.dumps([{"file": str(f), "class": a} for f, a in zip(files, answers)]))
        return EXIT_OK
    scores = run.predict(pixels, postprocess=False, allow_nan=args.allow_nan)
    names = processors.info.get("class_names")
    if not names:  # no labels (an unsupervised model): the post-processed outputs
        outputs = np.asarray(processors.finish(scores)).tolist()
        print(json.dumps([{"file": str(f), "output": o} for f, o in zip(files, outputs)]))
        return EXIT_OK
    probs = probabilities(scores).reshape(len(files), -1)
    rows = []
    for file, p in zip(files, probs, strict=True):
        best = int(np.argmax(p))
        row: dict[str, Any] = {
            "file": str(file),
            "class": str(names[best]),
            "id": best,
            "probability": round(float(p[best]), 6),
        }
        if args.probabilities:
            row["probabilities"] = {str(n): round(float(v), 6) for n, v in zip(names, p)}
        if args.top_k is not None:
            order = np.argsort(-p, kind="stable")[: args.top_k]
            row["top_k"] = [[str(names[c]), round(float(p[c]), 6)] for c in order]
        rows.append(row)
    print(json.dumps(rows))
    return EXIT_OK
