"""``GANTrainer.v1``: the built-in ``dcgan`` config trained by the real ``tensorweave train``,
resumed and loaded back; config mistakes reported by dotted path before anything runs."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from twtrain_helpers import tensorweave

import tensorweave.config as twc
import tensorweave_train as twt

pytestmark = pytest.mark.usefixtures("no_conflict_demo")

TINY = ["--data.limit=128", "--train.batch_size=32", "--dims.latent=4"]


@pytest.mark.slow  # real subprocesses (each imports TensorFlow)
def test_the_dcgan_config_trains_through_the_real_command(tmp_path):
    run = tmp_path / "run"
    done = tensorweave("train", "dcgan", *TINY, "--train.epochs=1", "--run-dir", str(run))
    assert done.returncode == 0, done.stderr
    assert "generator_loss" in done.stdout and "val_discriminator_loss" in done.stdout
    again = tensorweave("resume", str(run), "--train.epochs=2", "--trainer.d_steps=2")
    assert again.returncode == 0, again.stderr
    with (run / "log.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["1", "2"]
    assert {"generator_loss", "discriminator_loss", "val_generator_loss"} <= set(rows[0])
    summary = json.loads((run / "summary.json").read_text())
    assert set(summary["valid"]) == {"loss", "generator_loss", "discriminator_loss"}
    gan = twt.load_model(run)  # the GAN, from the saved config and its newest checkpoint
    assert isinstance(gan, twt.GAN) and gan.d_steps == 2
    assert int(gan.optimizers["generator"].iterations) == 2 * 4  # 4 steps an epoch
    assert int(gan.optimizers["discriminator"].iterations) == 4 + 2 * 4
    images = gan.predict(np.zeros((3, 1, 1, 4), "float32"))
    assert images.shape == (3, 8, 8, 1) and np.abs(images).max() <= 1.0


def test_gan_config_mistakes_name_their_path():
    one_optimizer = twt.load_config("dcgan", [*TINY, "--trainer.generator=gen"])
    one_optimizer["optimizer"] = {"@optimizers": "Adam.v1"}
    with pytest.raises(twc.ConfigError) as info:
        twt.build_model(one_optimizer)
    errors = dict(info.value.errors)
    assert errors["trainer.generator"].startswith("no node 'gen' in [model.nodes]")
    assert "[optimizer.generator] and [optimizer.discriminator]" in errors["optimizer"]
    bad = twt.load_config("dcgan", ["--trainer.d_steps=zero", "--optimizer.generator=3"])
    problems = dict(twc.validate(bad) + twt.runs.job.check_settings(bad))
    assert problems["trainer.d_steps"].startswith("expected int")
    assert "expected an optimizer table" in problems["optimizer.generator"]
