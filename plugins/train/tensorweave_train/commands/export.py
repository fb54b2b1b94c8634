"""``tensorweave export RUN OUT``: a trained run as a SavedModel with its processors.

``OUT/model`` is the SavedModel (TensorFlow alone serves it: ``tf.saved_model.load``);
``OUT/predictor.json`` names the run's pre- and post-processing steps, so
``tensorweave_train.Predictor.load(OUT)`` answers raw input as ``tensorweave predict`` does.

>>> cmd_export(["--help"])  # doctest: +ELLIPSIS
usage: tensorweave export RUN_DIR OUT
...
0
"""

from __future__ import annotations

from pathlib import Path

from tensorweave.cli.command import EXIT_OK, UsageError
from tensorweave_train.commands.arguments import need_run_dir, parse_command_line, run_parser

__all__ = ["cmd_export"]


def cmd_export(argv: list[str]) -> int:
    """``tensorweave export``."""
    from tensorweave_train.runs.run import Run

    parser = run_parser("export", "Write a trained run as a SavedModel with its processors.")
    parser.usage = "tensorweave export RUN_DIR OUT"
    parser.add_argument("out", nargs="?", help="the directory to write (must not exist)")
    args, _ = parse_command_line(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    run_dir = need_run_dir(args, parser)
    if args.out is None:
        raise UsageError("tensorweave export: give the OUT directory to write")
    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"tensorweave export: {out} exists and is not empty; choose a new OUT")
    where = Run(run_dir).export(out)
    print(
        f"wrote {where}/model (SavedModel) and {where}/predictor.json\n"
        f"  serve it: tensorweave_train.Predictor.load({str(where)!r})(raw) or "
        f"tf.saved_model.load({str(where / 'model')!r})"
    )
    return EXIT_OK
