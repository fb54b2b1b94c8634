"""Running the application under uvicorn, and stopping it cleanly.

``run_server(source, settings)`` loads the model, binds ``settings.host:settings.port``
(``127.0.0.1`` unless told), prints one ``serving ...`` line once it accepts connections,
and serves until SIGTERM or SIGINT: then it stops accepting, lets every request under way
get its answer, and returns 0 (SIGTERM) or 130 (SIGINT, the command line's code for an
interruption). ``--workers N`` > 1 runs N processes sharing the socket (uvicorn's
supervisor), each loading the model.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools is not installed: h11 serves
    HttpToolsProtocol = None  # type: ignore[assignment,misc]

from tensorweave_deploy.serving.source import Source, load_served

__all__ = ["Settings", "run_server", "app_from_environment", "NoDelayH11Protocol", "SETTINGS_ENV"]

SETTINGS_ENV = "TENSORWEAVE_SERVE_SETTINGS"  # how worker processes get the settings


@dataclass
class Settings:
    """The options of ``tensorweave serve`` that shape the server."""

    host: str = "127.0.0.1"
    port: int = 8501
    workers: int = 1
    max_batch: int = 64
    batch_timeout_ms: float = 2.0
    max_body_mb: float = 16.0
    max_instances: int = 1024


def _app(source: Source, settings: Settings) -> Any:
    from tensorweave_deploy.serving.app import make_app

    model = load_served(source, max_instances=settings.max_instances)
    # The loaded model is hundreds of thousands of Python objects that live as long as the
    # server: out of the collector's full scans, which otherwise stalled a request for up
    # to 200 ms (CIFAR CNN, 8 clients: p99 11 ms frozen, 210 ms not).
    gc.collect()
    gc.freeze()
    return make_app(
        model,
        max_batch=settings.max_batch,
        batch_timeout=settings.batch_timeout_ms / 1000,
        max_body=int(settings.max_body_mb * (1 << 20)),
    )


def app_from_environment() -> Any:
    """The application a worker process builds (``--workers`` > 1), from ``SETTINGS_ENV``."""
    saved = json.loads(os.environ[SETTINGS_ENV])
    return _app(Source(**saved["source"]), Settings(**saved["settings"]))


def _no_delay(transport: Any) -> None:
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with ``TCP_NODELAY`` on every connection: on a socket the
    server is handed (ours, bound first to know the port; the workers' shared one) asyncio
    does not set it, and a response's headers and body, written apart, then wait for the
    client's delayed ACK (~40 ms a request)."""

    def connection_made(self, transport: Any) -> None:
        _no_delay(transport)
        super().connection_made(transport)


if HttpToolsProtocol is not None:

    class NoDelayHttpToolsProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol (its HTTP parser in C) with ``TCP_NODELAY``, as
        ``NoDelayH11Protocol``: chosen when ``httptools`` is installed (the ``serve`` extra)."""

        def connection_made(self, transport: Any) -> None:
            _no_delay(transport)
            super().connection_made(transport)


def http_protocol() -> str:
    """The HTTP protocol class uvicorn runs, as its ``http=`` import string: the C parser
    (httptools) where installed, else h11 (pure Python)."""
    name = "NoDelayHttpToolsProtocol" if HttpToolsProtocol is not None else "NoDelayH11Protocol"
    return f"{__name__}:{name}"


def event_loop() -> str:
    """uvicorn's ``loop=``: uvloop where installed (``auto`` picks it), else asyncio."""
    return "auto"


class _Server(uvicorn.Server):
    """uvicorn's server, saying when it is ready and returning (not re-raising) the
    signal that stopped it."""

    stopped_by: int | None = None
    banner: str = ""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        handled = (signal.SIGINT, signal.SIGTERM)
        original = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.stopped_by is None:
            self.stopped_by = sig
            print(
                f"tensorweave serve: {signal.Signals(sig).name}: finishing the requests under way, then exiting",
                file=sys.stderr,
                flush=True,
            )
        super().handle_exit(sig, frame)

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and self.banner:
            print(self.banner, flush=True)


def run_server(source: Source, settings: Settings) -> int:
    """Serve ``source`` until a signal (see the module docstring); the exit code."""
    common: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "log_level": "warning",
        "access_log": False,
        "timeout_graceful_shutdown": None,
        "lifespan": "on",
        "http": http_protocol(),
        "loop": event_loop(),
    }
    if settings.workers > 1:
        os.environ[SETTINGS_ENV] = json.dumps(
            {"source": source.to_json(), "settings": asdict(settings)}
        )
        config = uvicorn.Config(
            "tensorweave_deploy.serving.server:app_from_environment",
            factory=True,
            workers=settings.workers,
            **common,
        )
    else:
        config = uvicorn.Config(_app(source, settings), **common)
    sock = config.bind_socket()
    host, port = sock.getsockname()[:2]
    server = _Server(config)
    server.banner = (
        f"serving {source.name!r} ({source.format}) at http://{host}:{port}: POST "
        f"/v1/models/{source.name}:predict, GET /v1/models/{source.name}, GET /healthz "
        f"(pid {os.getpid()}, {settings.workers} worker(s))"
    )
    if settings.workers > 1:
        from uvicorn.supervisors import Multiprocess

        print(server.banner, flush=True)
        supervisor = Multiprocess(config, sockets=[sock])
        supervisor.run()  # SIGTERM/SIGINT: each worker finishes its requests, then returns
        return 0
    server.run(sockets=[sock])
    if server.stopped_by == signal.SIGINT:
        return 130
    return 0
