"""``let_go``: a finished iterator is deleted on the background thread, not the caller's."""

from __future__ import annotations

import threading

import tensorflow as tf

from tensorweave_data.files.iterators import let_go
from tensorweave_data.files.streaming import Stream


class _Recorder:
    """Records the thread its deletion runs on."""

    def __init__(self, done: threading.Event, where: list[str]) -> None:
        self.done, self.where = done, where

    def __del__(self) -> None:
        self.where.append(threading.current_thread().name)
        self.done.set()


def test_the_iterator_is_deleted_on_the_release_thread() -> None:
    done, where = threading.Event(), []
    held = [_Recorder(done, where)]
    let_go(held)
    assert done.wait(10), "the iterator was never deleted"
    assert where == ["tf.data iterator release"]
    assert held == []


def test_a_streams_epoch_hands_its_iterator_over_and_reads_every_batch() -> None:
    stream = Stream(
        "n", lambda order: tf.data.Dataset.from_tensor_slices({"x": tf.range(10)}), length=10
    )
    epochs = [
        [b[0].numpy().tolist() for b in stream.batches(["x"], batch_size=4, shuffle=True, epoch=e)]
        for e in range(3)
    ]
    for batches in epochs:
        assert [len(b) for b in batches] == [4, 4, 2]
        assert sorted(v for b in batches for v in b) == list(range(10))
    # a generator closed mid-epoch (training stopped) lets its iterator go as well
    gen = stream.batches(["x"], batch_size=4)
    assert next(gen)[0].numpy().tolist() == [0, 1, 2, 3]
    gen.close()
