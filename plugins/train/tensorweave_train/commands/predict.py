"""``tensorweave predict RUN [RUN ...]``: a trained model on raw input, with its processors.

Raw input comes from ``--input FILE`` (``.npy``, ``.npz``, ``.json`` or text) or ``--text``;
a run trained on image files (``image_folder.v1``) takes ``--input`` image files or folders,
decoded and resized exactly as training decoded them, and answers one JSON object per file
(``{"file": ..., "class": ..., "id": ..., "probability": ...}``);
a model with several inputs takes one array per input, by name (an ``.npz`` file or a JSON
object). The run's saved pre-processing turns it into the model's input and its
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
        "JSON object with one array per input name); a run trained on image files also takes "
        "image files and folders of them",
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


def _raw(args: argparse.Namespace) -> Any:
    if args.text is not None:
        return args.text
    if not args.input:
        raise UsageError("tensorweave predict: give --input FILE or --text TEXT")
    if len(args.input) > 1:
        raise UsageError(
            "tensorweave predict: several --input files are image files only (a run trained "
            "on image_folder.v1); give one .npy, .npz, .json or text file"
        )
    # one reader per format: a bad file is a BadFileError naming it (exit code 2)
    return read_input(Path(args.input[0]), owner=_OWNER)


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
    raw = _raw(args)
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
