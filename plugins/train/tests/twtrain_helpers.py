"""Models built from the core only (no other pack), and the command line as the tests run it,
shared by the tests and subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
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
