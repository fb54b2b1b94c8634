"""One of 2 ``MultiWorkerMirroredStrategy`` workers on localhost training on TFRecord shards
(``tfrecord.v1``), for ``loop/test_distribute_files.py``.

``python twtrain_files_dist_script.py INDEX PORT0 PORT1 SHARDS OUT.json``: trains through
``Model.train`` (the loop reads this worker's share, ``Stream.sharded``), records the ``id``
of every example it trained on per epoch and its final weights; worker 0 then trains the
same model in one process on the global batches the two workers made together (worker 0's
batch then worker 1's, step by step) and records those weights too.
"""

from __future__ import annotations

import json
import os
import sys

EPOCHS, BATCH, SEED = 2, 8, 2


def _dataset(root: str):
    from tensorweave_data.files.tfrecord import tfrecord

    features = {
        "id": "int64",
        "x": {"dtype": "float32", "shape": [4]},
        "t": {"dtype": "float32", "shape": [1]},
    }
    return tfrecord(root, features=features, validation_split=0.0, shuffle_buffer=16)


def _record_ids(seen: dict[int, list[int]]):
    """Make ``Stream.batches`` also read ``id`` and note the ids the loop consumed; returns
    the function that puts the original back."""
    from tensorweave_data.files.streaming import Stream

    original = Stream.batches

    def batches(self, fields, *, epoch=0, **kw):
        for batch in original(self, [*fields, "id"], epoch=epoch, **kw):
            seen.setdefault(epoch, []).extend(int(i) for i in batch[-1].numpy())
            yield batch[:-1]

    Stream.batches = batches  # type: ignore[method-assign]
    return lambda: setattr(Stream, "batches", original)


def main(index: int, ports: list[int], root: str, out: str) -> None:
    os.environ["TF_CONFIG"] = json.dumps(
        {
            "cluster": {"worker": [f"127.0.0.1:{p}" for p in ports]},
            "task": {"type": "worker", "index": index},
        }
    )
    import tensorflow as tf
    from twtrain_helpers import regression_model, weights

    import tensorweave_train as twt
    from tensorweave_train.loop.data import Batches

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    train = _dataset(root).train
    seen: dict[int, list[int]] = {}
    undo = _record_ids(seen)
    with strategy.scope():
        model = regression_model(seed=3, optimizer=twt.Adam(0.01), strategy=strategy)
    model.train({"x": train["x"], "t": train["t"]}, epochs=EPOCHS, batch_size=BATCH, seed=SEED)
    undo()
    result = {"ids": seen, "weights": [w.tolist() for w in weights(model)]}
    if index == 0:  # one process, on the global batches the two workers made together
        shares = [train.sharded(2, i) for i in range(2)]

        def together(epoch: int, skip: int):
            parts = [
                s.batches(["x", "t"], batch_size=BATCH // 2, shuffle=True, seed=SEED, epoch=epoch)
                for s in shares
            ]
            for a, b in zip(*parts, strict=True):
                yield tuple(tf.concat([u, v], 0) for u, v in zip(a, b, strict=True))

        single = regression_model(seed=3, optimizer=twt.Adam(0.01))
        single.train(Batches(together), epochs=EPOCHS)
        result["single"] = [w.tolist() for w in weights(single)]
    with open(out, "w") as f:
        json.dump(result, f)
    print("ok", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(int(sys.argv[1]), [int(sys.argv[2]), int(sys.argv[3])], sys.argv[4], sys.argv[5])
