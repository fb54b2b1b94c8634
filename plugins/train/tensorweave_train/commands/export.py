"""``tensorweave export RUN -o PATH [--format NAME]``: a trained run in an export format.

The formats are registered components (``tw.exporters``): ``savedmodel`` (this pack; the
default) writes ``PATH/model`` (a SavedModel: ``tf.saved_model.load``) and
``PATH/predictor.json`` (the run's pre- and post-processing, so
``tensorweave_train.Predictor.load(PATH)`` answers raw input as ``tensorweave predict``
does); tensorweave-deploy adds ``onnx`` and ``litert`` (``--quantize dynamic|float16|int8``,
``--calibration N``). Every export writes ``PATH/model.json``. ``--format`` alone lists the
installed formats with the distribution providing each.

>>> cmd_export(["--help"])  # doctest: +ELLIPSIS
usage: tensorweave export RUN -o PATH [--format NAME] [--quantize MODE] [--calibration N] [--overwrite]
...
0
"""

from __future__ import annotations

from pathlib import Path

from tensorweave.cli.command import EXIT_OK, UsageError
from tensorweave_train.commands.arguments import need_run_dir, parse_command_line, run_parser

__all__ = ["cmd_export"]

_LIST = "\0list"


def cmd_export(argv: list[str]) -> int:
    """``tensorweave export``."""
    parser = run_parser("export", "Write a trained run in an export format (model.json beside).")
    parser.usage = (
        "tensorweave export RUN -o PATH [--format NAME] [--quantize MODE] [--calibration N] "
        "[--overwrite]"
    )
    parser.add_argument("-o", "--output", help="the export directory to write (must not exist)")
    parser.add_argument(
        "--format",
        nargs="?",
        const=_LIST,
        default="savedmodel",
        help="the export format (default savedmodel); alone, lists the installed formats",
    )
    parser.add_argument(
        "--quantize", help="dynamic, float16 or int8, for a format that has quantization"
    )
    parser.add_argument(
        "--calibration",
        type=int,
        help="int8: representative examples taken from the run's training split (default 100)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace PATH if it is an earlier export"
    )
    args, _ = parse_command_line(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    from tensorweave_train.runs.export.formats import export_formats, formats_text
    from tensorweave_train.runs.export.trained_run import export_trained_run
    from tensorweave_train.runs.run import Run

    if args.format == _LIST or args.format not in [n for n, _ in export_formats()]:
        known = f"installed export formats:\n{formats_text()}"
        if args.format == _LIST:
            print(known)
            return EXIT_OK
        raise UsageError(f"tensorweave export: no export format {args.format!r}; {known}")
    run_dir = need_run_dir(args, parser)
    if args.output is None:
        raise UsageError("tensorweave export: give the directory to write: -o PATH")
    out = Path(args.output)
    where = export_trained_run(
        Run(run_dir, args.run_dir),
        out,
        format=args.format,
        quantize=args.quantize,
        calibration=args.calibration,
        overwrite=args.overwrite,
    )
    if args.format == "savedmodel":
        print(
            f"wrote {where}/model (SavedModel), {where}/predictor.json and {where}/model.json\n"
            f"  serve it: tensorweave_train.Predictor.load({str(where)!r})(raw) or "
            f"tf.saved_model.load({str(where / 'model')!r})"
        )
    else:
        print(f"wrote {where} ({args.format}) and {where}/model.json")
    return EXIT_OK
