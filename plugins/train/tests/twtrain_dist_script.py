"""Distributed-training runs for the tests.

``python twtrain_dist_script.py mirrored OUT.npz``: 2 logical CPU devices, trains the same
model single-device and under MirroredStrategy, saves both weight sets.
``python twtrain_dist_script.py worker INDEX PORT0 PORT1 OUT.npz``: one of 2
MultiWorkerMirroredStrategy workers on localhost (TF_CONFIG set here).
"""

from __future__ import annotations

import json
import os
import sys


def _train(strategy=None):
    import tensorflow as tf
    from twtrain_helpers import regression_data, regression_model, weights

    import tensorweave_train as twt

    if strategy is None:
        model = regression_model(seed=3, optimizer=twt.Adam(0.01))
    else:
        with strategy.scope():
            model = regression_model(seed=3, optimizer=twt.Adam(0.01), strategy=strategy)
    h = model.train(regression_data(n=65), epochs=3, batch_size=16, seed=2)  # last batch: 1
    assert model.train_trace_count == 1
    del tf
    return weights(model), [e["loss"] for e in h]


def mirrored(out: str) -> None:
    import numpy as np
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
    )
    single, single_loss = _train()
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    assert strategy.num_replicas_in_sync == 2
    dist, dist_loss = _train(strategy)
    np.savez(out, *single, *dist, single_loss=single_loss, dist_loss=dist_loss)
    print("ok", flush=True)


def worker(index: int, ports: list[int], out: str) -> None:
    os.environ["TF_CONFIG"] = json.dumps(
        {
            "cluster": {"worker": [f"127.0.0.1:{p}" for p in ports]},
            "task": {"type": "worker", "index": index},
        }
    )
    import numpy as np
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    assert strategy.num_replicas_in_sync == 2
    dist, dist_loss = _train(strategy)
    single, single_loss = _train()
    np.savez(out, *single, *dist, single_loss=single_loss, dist_loss=dist_loss)
    print("ok", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if sys.argv[1] == "mirrored":
        mirrored(sys.argv[2])
    else:
        worker(int(sys.argv[2]), [int(sys.argv[3]), int(sys.argv[4])], sys.argv[5])
