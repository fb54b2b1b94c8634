"""``Batcher``: under concurrent requests the backend runs on a thread of its own, so the
event loop goes on reading requests during a call and those requests share the next call;
a lone client's calls stay on the loop's thread; ``stop`` lets a call under way answer its
requests."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Mapping

import numpy as np
from tensorweave_deploy.serving.batching import Batcher


class SlowModel:
    """Twice its input, 50 ms a call; records the thread of each call."""

    def __init__(self) -> None:
        self.threads: list[str] = []

    def __call__(self, feed: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        self.threads.append(threading.current_thread().name)
        time.sleep(0.05)
        return [feed["x"] * 2]


def test_the_loop_keeps_running_during_a_call_and_what_arrives_forms_the_next_batch() -> None:
    model = SlowModel()

    async def main() -> tuple[list[list[float]], int, int]:
        batcher = Batcher(model, max_batch=64, timeout=0.0)
        batcher.start()
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.002)
                ticks += 1

        ticker = asyncio.create_task(tick())
        first = asyncio.create_task(batcher.submit({"x": np.full((1, 1), 1.0)}, 1))
        await asyncio.sleep(0.01)  # the first call is under way
        ticks_before = ticks
        later = [
            asyncio.create_task(batcher.submit({"x": np.full((1, 1), float(k))}, 1))
            for k in (2, 3, 4)
        ]
        outs = await asyncio.gather(first, *later)
        ticker.cancel()
        await batcher.stop()
        return [o[0].ravel().tolist() for o in outs], batcher.calls, ticks - ticks_before

    answers, calls, ticks = asyncio.run(main())
    assert answers == [[2.0], [4.0], [6.0], [8.0]]
    assert calls == 2  # the three requests that came during the first call shared one
    # the first (lone) call ran on the loop's thread; the shared one on the backend's,
    # while the loop went on ticking
    assert model.threads[0] == threading.main_thread().name
    assert model.threads[1].startswith("tensorweave-serve-backend")
    assert ticks >= 10


def test_a_lone_clients_calls_stay_on_the_loops_thread() -> None:
    model = SlowModel()

    async def main() -> None:
        batcher = Batcher(model, max_batch=8, timeout=0.0)
        batcher.start()
        for k in range(3):
            out = await batcher.submit({"x": np.full((1, 1), float(k))}, 1)
            assert out[0].ravel().tolist() == [2.0 * k]
        await batcher.stop()

    asyncio.run(main())
    assert model.threads == [threading.main_thread().name] * 3


def test_stop_during_a_call_still_answers_its_requests() -> None:
    model = SlowModel()

    async def main() -> list[float]:
        batcher = Batcher(model, max_batch=8, timeout=0.0)
        batcher.start()
        # two requests together: the load is concurrent, calls go to the backend's thread
        await asyncio.gather(*(batcher.submit({"x": np.zeros((1, 1))}, 1) for _ in range(2)))
        request = asyncio.create_task(batcher.submit({"x": np.full((2, 1), 5.0)}, 2))
        await asyncio.sleep(0.01)  # the call is under way, on the backend's thread
        await batcher.stop()
        out = await request
        return out[0].ravel().tolist()

    assert asyncio.run(main()) == [10.0, 10.0]
    assert model.threads[-1].startswith("tensorweave-serve-backend")


def test_a_failing_backend_fails_each_request_of_its_batch_and_the_next_batch_runs() -> None:
    calls = []

    def flaky(feed: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        calls.append(len(feed["x"]))
        if len(calls) == 1:
            raise ValueError("the model failed")
        return [feed["x"] + 1]

    async def main() -> tuple[str, list[float]]:
        batcher = Batcher(flaky, max_batch=8, timeout=0.0)
        batcher.start()
        try:
            await batcher.submit({"x": np.zeros((1, 1))}, 1)
            raise AssertionError("the failure was not raised")
        except ValueError as err:
            failed = str(err)
        ok = await batcher.submit({"x": np.zeros((1, 1))}, 1)
        await batcher.stop()
        return failed, ok[0].ravel().tolist()

    assert asyncio.run(main()) == ("the model failed", [1.0])
