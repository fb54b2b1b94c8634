"""A training run on ``image_folder.v1`` for the resume test:
``python files_resume_script.py RUN_DIR OUT.npz FOLDER DELAY``.

A small CNN (the config of ``test_image_folder``) trains 3 epochs of 6 steps on the
folder's streamed images (shuffled, seed 7), checkpointing every 4 steps into RUN_DIR and
resuming from it when it holds a checkpoint; sleeps DELAY seconds per step so a test can
kill it mid-epoch; saves the final weights to OUT.npz.
"""

from __future__ import annotations

import sys
import time


def main(run_dir: str, out: str, folder: str, delay: str) -> None:
    import tomllib

    import numpy as np
    from test_image_folder import CONFIG

    import tensorweave_train as twt
    from tensorweave_data.files.image_folder import image_folder
    from tensorweave_train.runs.job import build_model

    model = build_model(tomllib.loads(CONFIG.format(root=folder)))
    data = image_folder(folder, image_size=[8, 8], validation_split=0.0)
    callbacks = [
        twt.CheckpointCallback(run_dir, every_steps=4, every_epochs=None, keep=2),
        twt.LambdaCallback(lambda ev, st: time.sleep(float(delay)), twt.on_step()),
        twt.LambdaCallback(
            lambda ev, st: print(f"started-at {st.step}", flush=True), twt.on_train("start")
        ),
    ]
    model.train(
        dict(data.train), epochs=3, batch_size=4, seed=7, callbacks=callbacks, resume=run_dir,
        verbose=0,
    )  # fmt: skip
    np.savez(out, *[v.numpy() for v in model.variables])
    print("done", flush=True)


if __name__ == "__main__":
    import os

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(*sys.argv[1:5])
