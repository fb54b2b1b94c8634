"""A training run on a file dataset for the resume tests:
``python files_resume_script.py RUN_DIR OUT.npz SOURCE DELAY [KIND]``.

KIND ``image_folder`` (the default): a small CNN (the config of ``test_image_folder``) on
the folder SOURCE's streamed images (``image_folder_augmented``: with random steps in the
graph); KIND ``table``: the model of ``test_table``'s config on
the CSV file SOURCE (one input per column, shuffled in a seeded buffer). Either trains 3
epochs of 6 steps (batches of 4, shuffled, seed 7), checkpointing every 4 steps into RUN_DIR
and resuming from it when it holds a checkpoint; sleeps DELAY seconds per step so a test can
kill it mid-epoch; saves the final weights to OUT.npz.
"""

from __future__ import annotations

import sys
import time


def _model_and_data(source: str, kind: str):
    import tomllib

    from tensorweave_train.runs.job import build_model

    if kind == "table":
        from test_table import CONFIG

        from tensorweave_data.files.table import table

        data = table(
            source,
            label="expensive",
            columns=["size", "rooms"],
            types={"size": "float32", "rooms": "float32"},
            validation_split=0.0,
            shuffle_buffer=8,
        )
        return build_model(tomllib.loads(CONFIG)), data
    from test_image_folder import CONFIG

    from tensorweave_data.files.image_folder import image_folder

    model = build_model(tomllib.loads(CONFIG.format(root=source)))
    steps = []
    if kind == "image_folder_augmented":  # random steps in the graph: a resume repeats them
        steps = [
            {"@processors": "random_flip.v1", "field": "x", "seed": 5},
            {"@processors": "random_brightness.v1", "field": "x", "factor": 0.2},
        ]
    return model, image_folder(source, image_size=[8, 8], validation_split=0.0, steps=steps)


def main(run_dir: str, out: str, source: str, delay: str, kind: str = "image_folder") -> None:
    import numpy as np

    import tensorweave_train as twt

    model, data = _model_and_data(source, kind)
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
    main(*sys.argv[1:6])
