"""Mixed precision's accuracy goals (issue 27): ``mixed_bfloat16`` against float32, over seeds.

- ``digits``: the default job (``tensorweave train digits``, the MLP on scikit-learn's 8x8
  digits), trained through ``train_job`` with ``--train.precision=...``: the final
  validation accuracy, goal within 0.5 points of float32 (mean over the seeds);
- ``cnn``: TensorLayer's CIFAR-10 CNN layer stack (conv 5x5x64, pool 3/2, LRN, conv 5x5x64,
  LRN, pool 3/2, FC 384, FC 192, 10 logits) on the same digits as 8x8x1 images (no
  CIFAR-10 here: nothing downloads), ``Model.train`` with Adam: validation accuracy, goal
  within 0.5 points;
- ``chars``: the character LSTM job (``tensorweave train chars``): validation perplexity,
  goal within 3% of float32 (the ratio of the means).

Each (task, precision, seed) trains from scratch in this process; the seed sets the
initial weights and the batch order (the validation split stays the configs' own).
Not a benchmark of speed and not a test: it takes minutes per seed (chars the most).

Run: ``python benchmarks/accuracy_precision.py [--only digits cnn chars] [--seeds 0 1 2]
[--precision mixed_bfloat16] [--epochs N] [--limit N] [--json out.json]``
(``--epochs``/``--limit`` shorten every task's training, for a smoke run only).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf
from bench_models import LRN

import tensorweave as tw

from common import summary_row, write_json

TASKS = ("digits", "cnn", "chars")


def job_figure(config: str, metric: str, precision: str, seed: int, args: argparse.Namespace) -> float:  # fmt: skip
    """Train the packaged job ``config`` with ``precision`` and ``seed``; its final
    validation ``metric``."""
    import tensorweave_train as twt

    overrides = [f"--train.precision={precision}", f"--train.seed={seed}"]
    overrides += [f"--train.epochs={args.epochs}"] if args.epochs else []
    overrides += [f"--train.limit={args.limit}"] if args.limit else []
    cfg = twt.load_config(config, overrides)
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="accuracy-") as where:
        os.chdir(where)  # what the job leaves (its run, a store's records) goes with it
        try:
            summary = twt.train_job(cfg, run_dir="run", out=None, progress=False)
        finally:
            os.chdir(here)
    return float(summary["valid"][metric])


def cnn_accuracy(precision: str, seed: int, args: argparse.Namespace) -> float:
    """The CIFAR-10 CNN's layer stack trained on 8x8 digits; validation accuracy."""
    from sklearn.datasets import load_digits

    from tensorweave_train import Adam, Model

    digits = load_digits()
    images = (digits.images / 16.0).astype("float32")[..., None]
    labels = digits.target.astype("int64")
    order = np.random.default_rng(0).permutation(len(labels))  # the split: fixed
    valid, train = order[: len(order) // 5], order[len(order) // 5 :]
    train = train[: args.limit] if args.limit else train
    tf.random.set_seed(seed)
    tw.reset_names()
    L = tw.layers
    x = tw.Input(shape=(8, 8, 1), name="images")
    y = tw.Input(shape=(), dtype="int64", name="labels")
    h = L["MaxPool2D.v1"](
        L["Conv2D.v1"](x, 64, 5, activation="relu", padding="same"), 3, strides=2, padding="same"
    )
    h = L["LocalResponseNorm.v1"](h, **LRN)
    h = L["LocalResponseNorm.v1"](
        L["Conv2D.v1"](h, 64, 5, activation="relu", padding="same"), **LRN
    )
    h = L["Reshape.v1"](L["MaxPool2D.v1"](h, 3, strides=2, padding="same"), (-1,))
    h = L["FC.v1"](L["FC.v1"](h, 384, activation="relu"), 192, activation="relu")
    logits = L["Linear.v1"](h, 10)
    model = Model(
        inputs=x,
        outputs=logits,
        targets=y,
        loss=tw.losses["sparse_categorical_cross_entropy.v1"](y, logits, from_logits=True),
        metrics={"accuracy": tw.metrics["sparse_accuracy.v1"](y, logits)},
        optimizer=Adam(0.001),
        precision=precision,
    )
    model.train(
        {"images": images[train], "labels": labels[train]},
        epochs=args.epochs or 15,
        batch_size=32,
        seed=seed,
        verbose=0,
    )
    figures = model.evaluate({"images": images[valid], "labels": labels[valid]}, batch_size=256)
    return float(figures["accuracy"])


def figure_of(task: str, precision: str, seed: int, args: argparse.Namespace) -> float:
    if task == "digits":
        return job_figure("digits", "accuracy", precision, seed, args)
    if task == "chars":
        return job_figure("chars", "perplexity", precision, seed, args)
    return cnn_accuracy(precision, seed, args)


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=TASKS, help="these tasks only")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--precision", default="mixed_bfloat16", choices=tw.Precision.NAMES[1:])
    parser.add_argument("--epochs", type=int, help="shorten training (smoke runs)")
    parser.add_argument("--limit", type=int, help="train on the first N examples (smoke runs)")
    parser.add_argument("--json")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    summary = []
    for task in args.only or TASKS:
        per = {p: [figure_of(task, p, s, args) for s in args.seeds] for p in ("float32", args.precision)}  # fmt: skip
        base, mixed = (statistics.mean(per[p]) for p in ("float32", args.precision))
        if task == "chars":
            label, value, goal = "perplexity (x float32)", mixed / base, 1.03
        else:
            label, value, goal = "accuracy - float32 (points)", 100 * abs(mixed - base), 0.5
        results[task] = {**per, label: value}
        print(
            f"{task:7s} float32 {per['float32']}  {args.precision} {per[args.precision]}  "
            f"{label}: {value:.3f} (goal <= {goal})",
            flush=True,
        )
        summary.append(summary_row(f"{task} {args.precision} {label}", value, goal))
    write_json(args.json, {**results, "summary": summary})
    return results


if __name__ == "__main__":
    main()
