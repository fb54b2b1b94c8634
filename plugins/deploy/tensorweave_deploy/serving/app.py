"""The HTTP application (Starlette, an ASGI app): TensorFlow Serving's REST shape.

- ``POST /v1/models/NAME:predict`` (also ``/v1/models/NAME/versions/V:predict``): a JSON
  body ``{"instances": [...]}`` or ``{"inputs": ...}``; the answer ``{"predictions": [...]}``
  or ``{"outputs": ...}``; a bad request ``{"error": "what is wrong. What to send."}`` with a
  4xx status (400 bad JSON/names/shapes/dtypes, 404 unknown model, 413 body or instances
  beyond the limits); a request the model fails on, 500 with the error (the server goes on).
- ``GET /v1/models/NAME``: its version status, signature and metadata (also ``/metadata``).
- ``GET /healthz``: ``{"status": "ok"}``.

A body larger than ``max_body`` bytes is refused from its ``Content-Length`` before it is
read (or as soon as a chunked body passes the limit); a client that leaves mid-request is
let go. Concurrent requests share backend calls (``batching.Batcher``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tensorweave_deploy.serving.batching import Batcher
from tensorweave_deploy.serving.errors import RequestError
from tensorweave_deploy.serving.model import ServedModel

orjson: Any
try:  # orjson parses a body of numbers ~9x faster than json (70 against 630 us for a 24x24x3 image)
    import orjson
except ImportError:  # the serve extra installs it; json is the fallback
    orjson = None

__all__ = ["make_app", "parse_json", "JSONAnswer"]

logger = logging.getLogger("tensorweave.serve")


def parse_json(body: bytes) -> Any:
    """A request body's JSON: orjson where installed, else (and for what orjson refuses,
    such as ``NaN`` literals, so that the messages stay json's) the standard library's.

    >>> parse_json(b'{"instances": [[1, 2.5]]}')
    {'instances': [[1, 2.5]]}
    """
    if orjson is not None:
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass
    return json.loads(body)


class JSONAnswer(JSONResponse):
    """A JSON response, encoded by orjson where installed (else as Starlette's)."""

    def render(self, content: Any) -> bytes:
        if orjson is None:
            return super().render(content)
        return orjson.dumps(content)


def _error(status: int, message: str) -> JSONResponse:
    return JSONAnswer({"error": message}, status_code=status)


async def _read_body(request: Request, max_body: int) -> bytes:
    """The body, refused (413) past ``max_body`` bytes without reading the rest."""
    limit = f"{max_body // (1 << 20)} MB" if max_body >= 1 << 20 else f"{max_body} bytes"
    declared = request.headers.get("content-length")
    too_big = (
        f"the request body is larger than this server takes ({limit}, --max-body-mb). Send "
        "fewer instances per request."
    )
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise RequestError(400, f"Content-Length {declared!r} is not a number.") from None
        if size > max_body:
            raise RequestError(413, f"{too_big} (Content-Length {size})")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_body:
            raise RequestError(413, too_big)
        chunks.append(chunk)
    return b"".join(chunks)


def make_app(
    model: ServedModel,
    *,
    max_batch: int = 64,
    batch_timeout: float = 0.002,
    max_body: int = 16 << 20,
) -> Starlette:
    """The application serving ``model`` (see the module docstring)."""
    batcher = Batcher(model.backend.run, max_batch=max_batch, timeout=batch_timeout)
    counts = {"answered": 0, "refused": 0, "failed": 0}

    def unknown(name: str) -> JSONResponse:
        return _error(
            404,
            f"no model named {name!r} here; this server serves {model.name!r}: POST "
            f"/v1/models/{model.name}:predict, GET /v1/models/{model.name}.",
        )

    async def predict(request: Request) -> Response:
        name, verb = request.path_params["name"], request.path_params["verb"]
        if name != model.name:
            return unknown(name)
        if verb != "predict":
            return _error(
                404,
                f"this server answers :predict, not :{verb}. POST /v1/models/{model.name}:predict.",
            )
        try:
            with batcher.arriving():
                body = await _read_body(request, max_body)
                try:
                    parsed = parse_json(body)
                except ValueError as err:
                    raise RequestError(
                        400, f"the body is not valid JSON ({err}). {model.what_to_send()}"
                    ) from None
                prepared = model.prepare(parsed)
            outputs = await batcher.submit(prepared.feed, prepared.rows)
            answer = model.answer(prepared, outputs)
        except RequestError as err:
            counts["refused"] += 1
            return _error(err.status, str(err))
        except ClientDisconnect:  # the client left: nobody to answer
            return Response(status_code=499)
        except Exception as err:  # the model or a step failed: said, and the server goes on
            counts["failed"] += 1
            logger.exception("tensorweave serve: %s failed on a request", model.name)
            text = (str(err).strip().splitlines() or [""])[0][:300]
            return _error(
                500,
                f"the model {model.name!r} failed on this request ({type(err).__name__}: "
                f"{text}); the server's log has the traceback.",
            )
        counts["answered"] += 1
        return JSONAnswer(answer)

    async def status(request: Request) -> Response:
        name = request.path_params["name"]
        if name != model.name:
            return unknown(name)
        version = str(model.metadata.get("version", "1"))
        return JSONAnswer(
            {
                "model_version_status": [
                    {
                        "version": version,
                        "state": "AVAILABLE",
                        "status": {"error_code": "OK", "error_message": ""},
                    }
                ],
                "name": model.name,
                "metadata": model.describe(),
                "batching": {
                    "max_batch": batcher.max_batch,
                    "timeout_ms": batcher.timeout * 1000,
                    "backend_calls": batcher.calls,
                    "rows": batcher.rows,
                    "requests": batcher.requests,
                },
                "requests": dict(counts),
            }
        )

    async def healthz(request: Request) -> Response:
        return JSONAnswer({"status": "ok", "model": model.name})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        batcher.start()
        yield
        await batcher.stop()

    routes = [
        Route("/v1/models/{name}:{verb}", predict, methods=["POST"]),
        Route("/v1/models/{name}/versions/{version}:{verb}", predict, methods=["POST"]),
        Route("/v1/models/{name}", status, methods=["GET"]),
        Route("/v1/models/{name}/metadata", status, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.batcher = batcher
    app.state.counts = counts
    return app
