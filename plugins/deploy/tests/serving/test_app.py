"""The serving application in this process, on a NumPy backend (no TensorFlow): TF Serving's
request and answer shapes, each bad request answered with a 4xx saying what to send, and
concurrent requests merged into one backend call with each getting its own rows."""

from __future__ import annotations

import asyncio
import json
import threading
import warnings
from collections.abc import Iterator, Mapping

import numpy as np
import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():  # starlette 1.x prefers httpx2 to httpx for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tensorweave_deploy.serving import app as served_app
from tensorweave_deploy.serving.app import make_app
from tensorweave_deploy.serving.backends import TensorInfo
from tensorweave_deploy.serving.batching import Batcher
from tensorweave_deploy.serving.model import ServedModel


class Scores:
    """x (4 numbers) -> scores (3): x @ W, recording each call's batch size."""

    format = "numpy"

    def __init__(self) -> None:
        self.inputs = [TensorInfo("x", (None, 4), "float32")]
        self.outputs = [TensorInfo("scores", (None, 3), "float32")]
        self.w = np.arange(12, dtype="float32").reshape(4, 3) % 5 - 2
        self.batches: list[int] = []
        self.lock = threading.Lock()

    def run(self, feed: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        with self.lock:
            self.batches.append(len(feed["x"]))
        return [feed["x"] @ self.w]


class TwoInputs:
    format = "numpy"
    inputs = [TensorInfo("a", (None, 2), "float32"), TensorInfo("ids", (None,), "int64")]
    outputs = [TensorInfo("sum", (None,), "float32"), TensorInfo("ids", (None,), "int64")]

    def run(self, feed: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        return [feed["a"].sum(axis=1), feed["ids"] * 2]


def _model(backend: object, **kw: object) -> ServedModel:
    return ServedModel(
        "m",
        backend,  # type: ignore[arg-type]
        preprocess=[{"@processors": "normalize.v1", "std": 2.0}],
        postprocess=[{"@processors": "argmax.v1"}],
        **kw,  # type: ignore[arg-type]
    )


@pytest.fixture
def scores() -> Scores:
    return Scores()


@pytest.fixture
def client(scores: Scores) -> Iterator[TestClient]:
    app = make_app(_model(scores, max_instances=50), max_body=4096)
    with TestClient(app) as c:
        yield c


def test_rows_and_columns_are_answered_with_the_steps_applied(
    client: TestClient, scores: Scores
) -> None:
    x = np.random.default_rng(0).integers(0, 16, size=(5, 4)).astype("float32")
    expected = np.argmax((x / 2.0) @ scores.w, axis=1).tolist()
    r = client.post("/v1/models/m:predict", json={"instances": x.tolist()})
    assert r.status_code == 200 and r.json() == {"predictions": expected}, r.text
    r = client.post("/v1/models/m:predict", json={"inputs": {"x": x.tolist()}})
    assert r.json() == {"outputs": expected}
    r = client.post("/v1/models/m/versions/1:predict", json={"inputs": x.tolist()})
    assert r.json() == {"outputs": expected}
    meta = client.get("/v1/models/m").json()
    assert meta["model_version_status"][0]["state"] == "AVAILABLE"
    assert meta["metadata"]["signature"]["inputs"] == [
        {"name": "x", "shape": [-1, 4], "dtype": "float32"}
    ]
    assert meta["metadata"]["preprocess"] == ["normalize.v1"]
    assert client.get("/healthz").json()["status"] == "ok"


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b'{"instances": [[1, 2', 400, "not valid JSON"),
        (b'{"rows": [[1, 2, 3, 4]]}', 400, "one of 'instances' or 'inputs'"),
        (
            b'{"inputs": {"y": [[1, 2, 3, 4]]}}',
            400,
            "missing input(s) ['x']; unknown input(s) ['y']",
        ),
        (
            b'{"instances": [[1, 2, 3]]}',
            400,
            "takes instances of shape [4] (float32); the request's have shape [3]",
        ),
        (b'{"instances": [["a", "b", "c", "d"]]}', 400, "the request gives strings"),
        (b'{"instances": [[true, false, true, true]]}', 400, "the request gives booleans"),
        (b'{"instances": [[1, 2, 3, 4], [1, 2]]}', 400, "not a rectangular array of numbers"),
        (b'{"instances": [[NaN, 2, 3, 4]]}', 400, "1 NaN/infinite value(s)"),
        (b'{"instances": []}', 400, "non-empty list"),
        (
            json.dumps({"instances": [[1, 2, 3, 4]] * 60}).encode(),
            413,
            "at most 50 (--max-instances)",
        ),
        (
            b'{"instances": [' + b"[1, 2, 3, 4]," * 400 + b"[1, 2, 3, 4]]}",
            413,
            "larger than this server takes",
        ),
    ],
)
def test_a_bad_request_gets_a_4xx_saying_what_to_send(
    client: TestClient, body: bytes, status: int, message: str
) -> None:
    r = client.post("/v1/models/m:predict", content=body)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert message in error, error
    if status == 400 and "JSON" in message:
        assert 'Send {"instances": [[4 numbers], ...]}' in error
    ok = client.post("/v1/models/m:predict", json={"instances": [[1, 2, 3, 4]]})
    assert ok.status_code == 200  # the server stays up


def test_a_chunked_body_past_the_limit_is_refused_before_its_end(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:  # no Content-Length: the server counts as it reads
        for _ in range(100):
            yield b" " * 1000

    r = client.post("/v1/models/m:predict", content=chunks())
    assert r.status_code == 413 and "larger than this server takes (4096 bytes" in r.json()["error"]


def test_a_request_the_model_fails_on_is_a_500_and_the_next_is_answered(scores: Scores) -> None:
    def run(feed: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        if (feed["x"] < 0).any():
            raise ValueError("negative pixels")
        return Scores.run(scores, feed)

    scores.run = run  # type: ignore[method-assign]
    with TestClient(make_app(_model(scores))) as c:
        r = c.post("/v1/models/m:predict", json={"instances": [[-1, 2, 3, 4]]})
        assert r.status_code == 500, r.text
        assert (
            "the model 'm' failed on this request (ValueError: negative pixels)"
            in r.json()["error"]
        )
        assert c.post("/v1/models/m:predict", json={"instances": [[1, 2, 3, 4]]}).status_code == 200
        assert c.get("/v1/models/m").json()["requests"] == {
            "answered": 1,
            "refused": 0,
            "failed": 1,
        }


def test_unknown_model_and_verb_are_404_naming_the_served_model(client: TestClient) -> None:
    r = client.post("/v1/models/other:predict", json={"instances": [[1, 2, 3, 4]]})
    assert r.status_code == 404 and "serves 'm': POST /v1/models/m:predict" in r.json()["error"]
    assert client.get("/v1/models/other").status_code == 404
    r = client.post("/v1/models/m:classify", json={"instances": [[1, 2, 3, 4]]})
    assert r.status_code == 404 and "answers :predict" in r.json()["error"]


def test_several_inputs_by_name_and_several_outputs_by_name() -> None:
    model = ServedModel("two", TwoInputs())  # type: ignore[arg-type]
    with TestClient(make_app(model)) as c:
        rows = {"instances": [{"a": [1, 2], "ids": 3}, {"a": [0.5, 0.5], "ids": 4}]}
        assert c.post("/v1/models/two:predict", json=rows).json() == {
            "predictions": [{"sum": 3.0, "ids": 6}, {"sum": 1.0, "ids": 8}]
        }
        columns = {"inputs": {"a": [[1, 2]], "ids": [3]}}
        assert c.post("/v1/models/two:predict", json=columns).json() == {
            "outputs": {"sum": [3.0], "ids": [6]}
        }
        r = c.post("/v1/models/two:predict", json={"instances": [[1, 2]]})
        assert r.status_code == 400 and '{"a": [2 numbers], "ids": a number}' in r.json()["error"]
        r = c.post("/v1/models/two:predict", json={"inputs": {"a": [[1, 2]], "ids": [2.5]}})
        assert r.status_code == 400 and "fractional numbers" in r.json()["error"]
        r = c.post("/v1/models/two:predict", json={"inputs": {"a": [[1, 2]], "ids": [1, 2]}})
        assert r.status_code == 400 and "different numbers of instances" in r.json()["error"]


def test_concurrent_requests_share_backend_calls_each_getting_its_own_rows() -> None:
    calls: list[int] = []

    def run(feed: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        calls.append(len(feed["x"]))
        return [feed["x"] * 10]

    async def main() -> list[list[float]]:
        batcher = Batcher(run, max_batch=8, timeout=0.05)
        batcher.start()
        sizes = [1, 2, 3, 1, 4, 1]  # 12 rows: at most 8 per call
        feeds = [np.full((n, 1), k, dtype="float32") for k, n in enumerate(sizes)]
        outs = await asyncio.gather(*(batcher.submit({"x": f}, len(f)) for f in feeds))
        await batcher.stop()
        assert (batcher.requests, batcher.rows) == (6, 12)
        return [o[0].ravel().tolist() for o in outs]

    answers = asyncio.run(main())
    assert answers == [[0.0], [10.0] * 2, [20.0] * 3, [30.0], [40.0] * 4, [50.0]]
    assert len(calls) == 2 and max(calls) <= 8 and sum(calls) == 12, calls


@pytest.mark.parametrize("fast", [True, False])
def test_bodies_parse_the_same_with_and_without_orjson(
    fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """orjson where installed, json otherwise: the same values; a NaN literal (which orjson
    refuses) still reaches the model's finite-number check through json."""
    if fast:
        pytest.importorskip("orjson")
    else:
        monkeypatch.setattr(served_app, "orjson", None)
    body = json.dumps({"instances": [[0.1, -2.5e-7, 3, 1e30]]}).encode()
    assert served_app.parse_json(body) == json.loads(body)
    assert np.isnan(served_app.parse_json(b'{"instances": [[NaN]]}')["instances"][0][0])
    answer = served_app.JSONAnswer({"predictions": [[0.1, 2]]})
    assert json.loads(answer.body) == {"predictions": [[0.1, 2]]}
