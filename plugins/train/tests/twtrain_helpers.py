"""Models built from the core only (no other pack), and the command line as the tests run it,
shared by the tests and subprocesses."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt


class Dense(tw.Layer):
    """``x @ w + b``: a tiny layer with variables, defined here to stay independent of packs."""

    def __init__(self, x, n_units, *, name=None, share_state_with=None):
        self.n_in = x.n_units
        self.units = n_units
        super().__init__(
            x, shape=(*x.shape[:-1], n_units), name=name, share_state_with=share_state_with
        )

    def init_state(self):
        self.state.w = tf.Variable(tf.random.normal([self.n_in, self.units], stddev=0.5), name="w")
        self.state.b = tf.Variable(tf.zeros([self.units]), name="b")

    def compute(self, x):
        return x @ self.state.w + self.state.b


class Embed(tw.Layer):
    """Mean of embedding rows of int ids: its gradient is ``tf.IndexedSlices``."""

    def __init__(self, ids, vocab, dim, *, name=None, share_state_with=None):
        self.vocab, self.dim = vocab, dim
        super().__init__(ids, shape=(None, dim), name=name, share_state_with=share_state_with)

    def init_state(self):
        self.state.table = tf.Variable(tf.random.normal([self.vocab, self.dim]), name="table")

    def compute(self, ids):
        return tf.reduce_mean(tf.gather(self.state.table, ids), axis=1)


def mse(y, t):
    return tf.reduce_mean(tf.square(y - t))


def regression_model(seed=0, optimizer=None, dropout=0.0, model_class=twt.Model, **kw):
    """x(4) -> Dense(8) -> tanh [-> Dropout] -> Dense(1); loss mse, metric mae."""
    tw.reset_names()
    tf.random.set_seed(seed)
    x = tw.Input(n_units=4, name="x")
    t = tw.Input(n_units=1, name="t")
    h = tw.Lambda(tf.tanh, Dense(x, 8))
    if dropout:
        h = tw.layers["Dropout.v1"](h, rate=dropout)
    y = Dense(h, 1, name="y")
    loss = tw.Lambda(mse, y, t, name="mse")
    mae = tw.Lambda(lambda a, b: tf.reduce_mean(tf.abs(a - b)), y, t, name="mae")
    return model_class(
        inputs=x,
        outputs=y,
        targets=t,
        loss=loss,
        metrics={"mae": mae},
        optimizer=optimizer if optimizer is not None else twt.SGD(0.05),
        **kw,
    )


def regression_data(n=64, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype("float32")
    t = (np.sin(x[:, :1]) + 0.5 * x[:, 1:2]).astype("float32")
    return {"x": x, "t": t}


def weights(model):
    return [v.numpy().copy() for v in model.variables]


class Crash(Exception):
    """A simulated crash (``crash_at``)."""


def crash_at(step):
    """A callback raising ``Crash`` at the end of ``step``, after the checkpoint's."""

    def fn(ev, st):
        if st.step == step:
            raise Crash(f"simulated crash at step {step}")

    return twt.LambdaCallback(fn, twt.on_step(), priority=1000)


# -- runs and the command line -----------------------------------------------------------------
TINY = ["--data.limit=200", "--train.epochs=2", "--train.batch_size=64", "--dims.hidden=8"]


def trained_run(where: Path, overrides: list[str] | None = None, config: str | None = None) -> Path:
    """A run of the built-in ``config`` (digits) that ``train_job`` made in ``where``, with
    ``overrides`` (default ``TINY``); the conflict demo blocked while it trains."""
    tw.plugins.block("tensorweave-conflict-demo")
    try:
        cfg = twt.load_config(config, TINY if overrides is None else overrides)
        twt.train_job(cfg, run_dir=where, source=twt.config_path(config), out=None)
    finally:
        tw.plugins.unblock("tensorweave-conflict-demo")
    return where


def copied(run: Path, where: Path) -> Path:
    """A copy of ``run`` in ``where`` (a test may change it)."""
    import shutil

    shutil.copytree(run, where)
    return where


TENSORWEAVE = str(Path(sys.executable).with_name("tensorweave"))


def cli_env() -> dict[str, str]:
    """The environment of a ``tensorweave`` subprocess: quiet, the conflict demo blocked."""
    return {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo",
    }


def tensorweave(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real ``tensorweave`` command (``python -m tensorweave_train.commands`` before
    the entry point is installed), run to its end."""
    exe = Path(TENSORWEAVE)
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "tensorweave_train.commands"]
    return subprocess.run(
        [*command, *argv], capture_output=True, text=True, env=cli_env(), timeout=300, cwd=cwd
    )


def run_cli(capsys: Any, *argv: str) -> tuple[int, str, str]:
    """``tensorweave ARGV`` in this process: its exit code, stdout and stderr."""
    from tensorweave.cli import main as cli_main

    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def files_of(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` and its bytes (to show that nothing was written)."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def lock_holder(lock: Path) -> subprocess.Popen[str]:
    """A real process that holds ``lock`` (its own pid in it) until killed."""
    code = (
        "import os, sys, time\n"
        f"open({str(lock)!r}, 'w').write(str(os.getpid()))\n"
        "print('ready', flush=True)\n"
        "time.sleep(120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


# -- a small DCGAN on generated 8x8 images -----------------------------------------------------
def gan_images(n=64, seed=0):
    """``n`` 8x8x1 images in [-1, 1]: a bright square at a random place on a dark field."""
    rng = np.random.default_rng(seed)
    images = -np.ones((n, 8, 8, 1), "float32")
    for image, (row, col) in zip(images, rng.integers(0, 5, size=(n, 2)), strict=True):
        image[row : row + 4, col : col + 4] = 1.0
    return images + rng.normal(scale=0.05, size=images.shape).astype("float32")


def dcgan_networks(seed=0, latent=8, batch_norm=True):
    """A DCGAN's generator (noise (1, 1, latent) -> 8x8x1, transposed convolutions and
    BatchNorm) and discriminator (8x8x1 -> a logit, strided convolutions), as modules."""
    tw.reset_names()
    tf.random.set_seed(seed)
    L = tw.layers
    z = tw.Input(shape=(1, 1, latent), name="z")
    # no bias before a BatchNorm (it would only learn rounding noise), as the DCGAN paper
    h = L["Conv2DTranspose.v1"](
        z, n_units=16, kernel_size=2, padding="valid", add_bias=not batch_norm
    )
    if batch_norm:
        h = L["BatchNorm.v1"](h, momentum=0.9)
    h = L["Activation.v1"](h, activation="relu")
    h = L["Conv2DTranspose.v1"](
        h, n_units=8, kernel_size=4, strides=2, add_bias=not batch_norm, padding="same"
    )
    if batch_norm:
        h = L["BatchNorm.v1"](h, momentum=0.9)
    h = L["Activation.v1"](h, activation="relu")
    image = L["Conv2DTranspose.v1"](
        h, n_units=1, kernel_size=4, strides=2, activation="tanh", padding="same"
    )
    generator = tw.Module(z, image, name="generator")
    x = tw.Input(shape=(8, 8, 1), name="x")
    h = L["Conv2D.v1"](
        x, n_units=8, kernel_size=4, strides=2, activation="leaky_relu", padding="same"
    )
    h = L["Conv2D.v1"](
        h, n_units=16, kernel_size=4, strides=2, activation="leaky_relu", padding="same"
    )
    logit = L["Linear.v1"](L["Flatten.v1"](h), n_units=1)
    return generator, tw.Module(x, logit, name="discriminator")


def dcgan(seed=0, **kw):
    """A ``twt.GAN`` of ``dcgan_networks`` (``kw``: the GAN's options)."""
    batch_norm = kw.pop("batch_norm", True)
    generator, discriminator = dcgan_networks(seed, batch_norm=batch_norm)
    optimizer = kw.pop("optimizer", None) or {
        "generator": twt.Adam(2e-3, beta_1=0.5),
        "discriminator": twt.Adam(2e-3, beta_1=0.5),
    }
    return twt.GAN(generator, discriminator, optimizer=optimizer, **kw)


# -- training processes killed with SIGKILL ----------------------------------------------------
TESTS = Path(__file__).parent


def crash_run(run_dir, out, delay, *, model="regression", dropout=0.0):
    """``twtrain_crash_script.py``: a training process of ``model`` that resumes from
    ``run_dir``, sleeping ``delay`` s per step, its final weights in ``out``."""
    env = dict(os.environ, PYTHONPATH=str(TESTS), TF_CPP_MIN_LOG_LEVEL="3")
    script = str(TESTS / "twtrain_crash_script.py")
    return subprocess.Popen(
        [sys.executable, script, str(run_dir), str(out), str(delay), str(dropout), model],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def kill_after(victim, ckpt_dir, step):
    """SIGKILL ``victim`` a little after it wrote a checkpoint at ``step`` or later; the
    step of its newest checkpoint."""
    deadline = time.time() + 240
    while time.time() < deadline:
        done = [p for p in ckpt_dir.glob("ckpt-*")] if ckpt_dir.exists() else []
        if any(p.name >= f"ckpt-{step:010d}" for p in done):
            break
        assert victim.poll() is None, victim.communicate()
        time.sleep(0.05)
    time.sleep(0.2)  # a couple of steps past the checkpoint: mid-epoch (8 steps per epoch)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    assert victim.returncode == -signal.SIGKILL
    return int(max(p.name for p in ckpt_dir.glob("ckpt-*")).split("-")[1])


def killed_twice_and_resumed(tmp_path, model, dropout=0.0):
    """The final weights (``np.load``-ed) of an uninterrupted run of ``model`` and of one
    SIGKILLed twice mid-epoch and resumed, with the crash script."""
    ref = crash_run(tmp_path / "ref", tmp_path / "ref.npz", 0.0, model=model, dropout=dropout)
    run, ckpt_dir = tmp_path / "run", tmp_path / "run" / "checkpoints"
    kills = []
    for at in (15, 30):
        victim = crash_run(run, tmp_path / "run.npz", 0.1, model=model, dropout=dropout)
        kills.append(kill_after(victim, ckpt_dir, at))
    assert kills[0] < kills[1] and all(k % 8 for k in kills), kills  # both mid-epoch
    resumed = crash_run(run, tmp_path / "run.npz", 0.0, model=model, dropout=dropout)
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert int(out.split("started-at ")[1].split()[0]) == kills[1]
    ref_out, ref_err = ref.communicate(timeout=300)
    assert ref.returncode == 0, ref_err
    assert "started-at 0 " in ref_out
    return np.load(tmp_path / "ref.npz"), np.load(tmp_path / "run.npz")
