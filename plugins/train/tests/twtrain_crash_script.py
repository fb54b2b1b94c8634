"""A training run for the crash tests:
``python twtrain_crash_script.py RUN_DIR OUT.npz [delay] [dropout] [model]``.

Trains ``model`` for 6 epochs of 8 steps on shuffled data (seed 7), checkpointing every 5
steps into RUN_DIR and resuming from it when it holds a checkpoint: ``regression`` (the
helpers' regression model with Adam; ``dropout`` > 0 adds a Dropout layer, random masks
every step) or ``dcgan`` (the helpers' DCGAN: two Adam optimizers, BatchNorm, fresh noise
every step). Sleeps ``delay`` seconds per step so a test can kill it mid-epoch. Prints the
step it started from, then saves the final weights to OUT.npz.
"""

from __future__ import annotations

import sys
import time


def main(
    run_dir: str, out: str, delay: float, dropout: float = 0.0, kind: str = "regression"
) -> None:
    import numpy as np
    from twtrain_helpers import dcgan, gan_images, regression_data, regression_model, weights

    import tensorweave_train as twt

    if kind == "dcgan":
        model, data = dcgan(seed=11), gan_images(64)
    else:
        model = regression_model(seed=11, optimizer=twt.Adam(0.01), dropout=dropout)
        data = regression_data()
    started = []
    cbs = [
        twt.CheckpointCallback(run_dir, every_steps=5, every_epochs=None, keep=2),
        twt.LambdaCallback(lambda ev, st: started.append(st.step), twt.on_train("start")),
        twt.LambdaCallback(lambda ev, st: time.sleep(delay), twt.on_step()),
        twt.LambdaCallback(
            lambda ev, st: print(f"started-at {st.step} epoch {st.epoch}", flush=True),
            twt.on_train("start"),
        ),
    ]
    model.train(data, epochs=6, batch_size=8, seed=7, callbacks=cbs, resume=run_dir)
    np.savez(out, *weights(model))
    print("done", flush=True)


if __name__ == "__main__":
    import os

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(*sys.argv[1:3], *[float(a) for a in sys.argv[3:5]], *sys.argv[5:6])
