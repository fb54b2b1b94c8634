"""``tensorweave evaluate RUN``: the loss and metrics of a trained run on its data.

Prints one JSON object, the figures exactly as ``summary.json`` and ``log.csv`` hold them.
Only the run's model and data are built: a training callback whose pack is gone does not
stop it.

>>> cmd_evaluate(["--help"])  # doctest: +ELLIPSIS
usage: tensorweave evaluate RUN_DIR ...
...
0
"""

from __future__ import annotations

import json

from tensorweave.cli.command import EXIT_OK
from tensorweave_train.commands.arguments import need_run_dir, parse_command_line, run_parser

__all__ = ["cmd_evaluate"]


def cmd_evaluate(argv: list[str]) -> int:
    """``tensorweave evaluate``."""
    from tensorweave_train.runs.run import Run

    parser = run_parser("evaluate", "Evaluate a trained run on its validation data.")
    parser.add_argument("--split", default="valid", choices=["valid", "train"])
    args, overrides = parse_command_line(argv, parser)
    if args.help:
        parser.print_help()
        return EXIT_OK
    metrics = Run(need_run_dir(args, parser)).evaluate(args.split, overrides)
    print(json.dumps(metrics))  # the figures exactly as summary.json and log.csv hold them
    return EXIT_OK
