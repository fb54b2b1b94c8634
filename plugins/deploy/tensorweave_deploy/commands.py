"""The pack's commands, added to ``tensorweave`` through the core hook ``tensorweave_add_commands``.

``tensorweave serve RUN|MODEL@STAGE|PATH``: see ``docs/serving.md`` and
``tensorweave_deploy.serving``. The server's modules load only when it runs.

>>> sorted(COMMANDS)
['serve']
>>> serve_parser().parse_args(["runs/a", "--port", "0"]).port
0
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import tensorweave as tw
from tensorweave.cli.command import (
    EXIT_CODES,
    EXIT_OK,
    Command,
    CommandParser,
    UsageError,
    add_commands,
)

__all__ = ["COMMANDS", "cmd_serve", "serve_parser", "tensorweave_add_commands"]

SERVE_INSTALL = "pip install 'tensorweave-deploy[serve]'"


def serve_parser() -> CommandParser:
    """The parser of ``tensorweave serve``."""
    p = CommandParser(
        prog="tensorweave serve",
        usage="tensorweave serve RUN|MODEL@STAGE|PATH [--name NAME] [--format savedmodel|onnx] "
        "[--host 127.0.0.1] [--port 8501] [options]",
        description="Serve a trained model over HTTP in TensorFlow Serving's REST shape: POST "
        '/v1/models/NAME:predict with {"instances": [...]} or {"inputs": {...}}, GET '
        "/v1/models/NAME, GET /healthz. Answers equal `tensorweave predict`'s (the run's "
        "pre- and post-processing are applied). SIGTERM finishes the requests under way and "
        "exits 0.",
        epilog="exit codes: " + "; ".join(f"{k} {v}" for k, v in EXIT_CODES.items()),
        add_help=False,
    )
    p.add_argument("-h", "--help", action="store_true", help="show this help")
    p.add_argument("--traceback", action="store_true", help="show the full traceback on errors")
    p.add_argument(
        "reference",
        nargs="?",
        metavar="RUN|MODEL@STAGE|PATH",
        help="a run directory, a model version of the store (digits@production), or an export (a `tensorweave export` folder, a SavedModel, an .onnx file)",
    )
    p.add_argument(
        "--name", help="the model's name in the URLs (default: the run's or model's name)"
    )
    p.add_argument(
        "--format",
        default="savedmodel",
        choices=["savedmodel", "onnx"],
        help="the runtime: a SavedModel (TensorFlow) or ONNX (ONNX Runtime, with the onnx exporter installed)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to bind (default 127.0.0.1: this machine only; 0.0.0.0 exposes the model to the network)",
    )
    p.add_argument(
        "--port",
        type=int,
        default=8501,
        help="the port (default 8501; 0 picks a free one, printed)",
    )
    p.add_argument(
        "--workers", type=int, default=1, help="processes serving (each loads the model)"
    )
    p.add_argument("--max-batch", type=int, default=64, help="rows merged into one backend call")
    p.add_argument(
        "--batch-timeout-ms",
        type=float,
        default=2.0,
        help="how long a request waits for others to share its call",
    )
    p.add_argument(
        "--max-body-mb", type=float, default=16.0, help="the largest request body (413 beyond)"
    )
    p.add_argument(
        "--max-instances",
        type=int,
        default=1024,
        help="the most instances in one request (413 beyond)",
    )
    return p


def cmd_serve(argv: list[str]) -> int:
    """``tensorweave serve``."""
    parser = serve_parser()
    args = parser.parse_args(argv)
    if args.help:
        parser.print_help()
        return EXIT_OK
    if args.reference is None:
        raise UsageError(
            "tensorweave serve: give the RUN directory, MODEL@STAGE or export PATH to serve"
        )
    for option in ("workers", "max_batch", "max_instances"):
        if getattr(args, option) < 1:
            raise UsageError(f"tensorweave serve: --{option.replace('_', '-')} must be >= 1")
    if args.batch_timeout_ms < 0 or args.max_body_mb <= 0 or not 0 <= args.port <= 65535:
        raise UsageError(
            "tensorweave serve: --batch-timeout-ms must be >= 0, --max-body-mb > 0, --port 0..65535"
        )
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as err:
        raise UsageError(
            f"tensorweave serve needs {err.name}, which is not installed. Fix: {SERVE_INSTALL}"
        ) from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"warning: tensorweave serve binds {args.host}: anyone who can reach this machine's "
            "port can send requests (no authentication, no TLS). Keep it on 127.0.0.1 behind a "
            "reverse proxy for that; see docs/serving.md and docs/security.md.",
            file=sys.stderr,
        )
    from tensorweave_deploy.serving.server import Settings, run_server
    from tensorweave_deploy.serving.source import resolve_source

    settings = Settings(
        host=args.host,
        port=args.port,
        workers=args.workers,
        max_batch=args.max_batch,
        batch_timeout_ms=args.batch_timeout_ms,
        max_body_mb=args.max_body_mb,
        max_instances=args.max_instances,
    )
    with tempfile.TemporaryDirectory(prefix="tensorweave-serve-") as workdir:
        source = resolve_source(
            args.reference, format=args.format, name=args.name, workdir=Path(workdir)
        )
        return run_server(source, settings)


COMMANDS: dict[str, tuple[Command, str]] = {
    "serve": (cmd_serve, "serve a trained model over HTTP (TF Serving's REST shape)"),
}


@tw.hookimpl
def tensorweave_add_commands(subparsers: Any) -> None:
    """Add this pack's commands to the ``tensorweave`` command line."""
    add_commands(subparsers, COMMANDS)
