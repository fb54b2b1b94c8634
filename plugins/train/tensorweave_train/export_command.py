"""``tensorweave export RUN OUT``: a trained run as a SavedModel with its processors.

``OUT/model`` is the SavedModel (TensorFlow alone serves it: ``tf.saved_model.load``);
``OUT/predictor.json`` names the run's pre- and post-processing steps, so
``tensorweave_train.Predictor.load(OUT)`` answers raw input as ``tensorweave predict`` does.
Registered in ``commands.COMMANDS`` (imported only when the command runs).
"""

from __future__ import annotations

from pathlib import Path

from tensorweave_train.command_args import need_run_dir, parse, run_parser
from tensorweave_train.command_line import EXIT_OK, UsageError

__all__ = ["cmd_export"]


def cmd_export(argv: list[str]) -> int:
    from tensorweave_train.restore import export_run

    parser = run_parser("export", "Write a trained run as a SavedModel with its processors.")
    parser.usage = "tensorweave export RUN_DIR OUT"
    parser.add_argument("out", nargs="?", help="the directory to write (must not exist)")
    args, _ = parse(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    run_dir = need_run_dir(args, parser)
    if args.out is None:
        raise UsageError("tensorweave export: give the OUT directory to write")
    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"tensorweave export: {out} exists and is not empty; choose a new OUT")
    where = export_run(run_dir, out)
    print(
        f"wrote {where}/model (SavedModel) and {where}/predictor.json\n"
        f"  serve it: tensorweave_train.Predictor.load({str(where)!r})(raw) or "
        f"tf.saved_model.load({str(where / 'model')!r})"
    )
    return EXIT_OK
