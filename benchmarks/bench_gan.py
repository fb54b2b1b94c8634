"""A DCGAN trained through ``Model.train`` (``twt.GAN``: two optimizers, two losses) against
the same step hand-written in a ``tf.function`` (issue 24's goal: within 3%).

The networks are the TensorFlow DCGAN tutorial's, on 28x28x1 images: a generator from
100-d noise (a 7x7 transposed convolution standing for the tutorial's dense + reshape,
then 5x5 transposed convolutions 128 -> 64 -> 1, BatchNorm and leaky ReLU, no biases
before a BatchNorm, tanh out) and a discriminator (5x5 strided convolutions 64 -> 128,
leaky ReLU, a dense logit); Adam(2e-4, beta_1=0.5) each, the non-saturating loss, batch 64.

Both programs run the same tensorweave networks (each its own copy) and draw their noise
from a ``tf.random.Generator``; they differ in who drives the step:

- ``Model.train``: ``twt.GAN(...).train(images, epochs=1, shuffle=False, verbose=0)`` - its
  multi-step execution, callbacks, metrics and history;
- hand-written: ``for batch in ...: step(batch)`` with a ``tf.function`` step of two tapes
  and two ``apply_gradients``, the discriminator's then the generator's (as ``GAN``'s
  step with ``d_steps=1``: the tutorial's ``train_step`` with its updates in turn).

Windows of one epoch alternate (AB, BA, ...) after a warm-up, on the process CPU time
(time another process took is not counted); the figure is the median of the per-round
ratios ``Model.train / hand-written`` with its block-bootstrap 95% interval.

Run: ``python benchmarks/bench_gan.py [--quick] [--json out.json]``
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

import tensorweave as tw

from common import bootstrap_median_ci, summary_row, write_json

LATENT, BATCH = 100, 64
GOAL = 1.03  # Model.train at most 3% over the hand-written step


def networks(width: int) -> tuple[tw.Module, tw.Module]:
    """The tutorial's generator and discriminator at ``width`` (64 in the tutorial)."""
    L = tw.layers
    z = tw.Input(shape=(1, 1, LATENT), name="z")
    h = L["Conv2DTranspose.v1"](
        z, n_units=4 * width, kernel_size=7, padding="valid", add_bias=False
    )
    for n_units, strides in ((2 * width, 1), (width, 2)):
        h = L["Activation.v1"](L["BatchNorm.v1"](h), activation="leaky_relu")
        h = L["Conv2DTranspose.v1"](
            h, n_units=n_units, kernel_size=5, strides=strides, padding="same", add_bias=False
        )
    h = L["Activation.v1"](L["BatchNorm.v1"](h), activation="leaky_relu")
    image = L["Conv2DTranspose.v1"](
        h, n_units=1, kernel_size=5, strides=2, padding="same", activation="tanh"
    )
    x = tw.Input(shape=(28, 28, 1), name="x")
    h = L["Conv2D.v1"](
        x, n_units=width, kernel_size=5, strides=2, activation="leaky_relu", padding="same"
    )
    h = L["Conv2D.v1"](
        h, n_units=2 * width, kernel_size=5, strides=2, activation="leaky_relu", padding="same"
    )
    logit = L["Linear.v1"](L["Flatten.v1"](h), n_units=1)
    return tw.Module(z, image, name="generator"), tw.Module(x, logit, name="discriminator")


def gan(width: int) -> Any:
    from tensorweave_train import GAN, Adam

    generator, discriminator = networks(width)
    optimizer = {n: Adam(2e-4, beta_1=0.5) for n in ("generator", "discriminator")}
    return GAN(generator, discriminator, optimizer=optimizer)


def through_model_train(width: int) -> Callable[[np.ndarray], Any]:
    model = gan(width)

    def epoch(images: np.ndarray) -> None:
        model.train(images, epochs=1, batch_size=BATCH, shuffle=False, verbose=0)

    return epoch


def hand_written(width: int) -> Callable[[np.ndarray], Any]:
    """The step ``GAN`` runs, written by hand: the discriminator updated on real images
    and fresh fakes, then the generator on fresh fakes (the tutorial's ``train_step``,
    its updates in turn)."""
    model = gan(width)  # for its networks and optimizers alone
    g_net, d_net = model.generator, model.discriminator
    g_opt, d_opt = model.optimizers["generator"], model.optimizers["discriminator"]
    g_vars, d_vars = model.variables_of("generator"), model.variables_of("discriminator")
    rng = tf.random.Generator.from_seed(0)

    def cross_entropy(labels: tf.Tensor, logits: tf.Tensor) -> tf.Tensor:
        per = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        return tf.reduce_mean(per)

    @tf.function(input_signature=[tf.TensorSpec([None, 28, 28, 1])])
    def step(images: tf.Tensor) -> tf.Tensor:
        shape = [tf.shape(images)[0], 1, 1, LATENT]
        with tf.GradientTape() as tape:
            real_score, fake_score = (
                d_net.compute(images),
                d_net.compute(g_net.compute(rng.normal(shape))),
            )
            d_loss = cross_entropy(tf.ones_like(real_score), real_score) + cross_entropy(
                tf.zeros_like(fake_score), fake_score
            )
        d_opt.apply_gradients(zip(tape.gradient(d_loss, d_vars), d_vars))
        with tf.GradientTape() as tape:
            fake_score = d_net.compute(g_net.compute(rng.normal(shape)))
            g_loss = cross_entropy(tf.ones_like(fake_score), fake_score)
        g_opt.apply_gradients(zip(tape.gradient(g_loss, g_vars), g_vars))
        return d_loss + g_loss

    def epoch(images: np.ndarray) -> None:
        for i in range(0, len(images) - BATCH + 1, BATCH):
            step(tf.convert_to_tensor(images[i : i + BATCH]))

    return epoch


def measure(width: int, steps: int, rounds: int) -> dict[str, Any]:
    """Per-step CPU time of each program over ``rounds`` interleaved one-epoch windows of
    ``steps`` steps, and the paired ratios."""
    tf.random.set_seed(0)
    images = np.random.default_rng(0).uniform(-1, 1, (steps * BATCH, 28, 28, 1))
    images = images.astype("float32")
    programs = {"Model.train": through_model_train(width), "hand-written": hand_written(width)}
    for run in programs.values():
        run(images[: 2 * BATCH])  # trace and warm up
    cpu: dict[str, list[float]] = {k: [] for k in programs}
    order = list(programs)
    for round_ in range(rounds):
        for key in order if round_ % 2 == 0 else order[::-1]:
            gc.collect()
            start = time.process_time()
            programs[key](images)
            cpu[key].append((time.process_time() - start) / steps)
    ratios = [a / b for a, b in zip(cpu["Model.train"], cpu["hand-written"], strict=True)]
    return {
        "step_ms": {k: statistics.median(v) * 1e3 for k, v in cpu.items()},
        "ratio": statistics.median(ratios),
        "ci95": bootstrap_median_ci(ratios),
        "rounds": rounds,
        "steps_per_window": steps,
    }


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="narrow networks, few rounds")
    parser.add_argument("--json")
    args = parser.parse_args()
    width, steps, rounds = (8, 4, 4) if args.quick else (64, 16, 20)
    res = measure(width, steps, rounds)
    ms = res["step_ms"]
    lo, hi = res["ci95"]
    print(
        f"dcgan width {width}, batch {BATCH}: Model.train {ms['Model.train']:.2f} ms/step, "
        f"hand-written {ms['hand-written']:.2f} ms/step (CPU time); Model.train / "
        f"hand-written {res['ratio']:.3f}x [{lo:.3f}-{hi:.3f}] over {rounds} rounds",
        flush=True,
    )
    summary = [
        summary_row(
            "dcgan GAN Model.train step (x hand-written tf.function)",
            res["ratio"],
            GOAL,
            unit="x",
            ci=res["ci95"],
        )
    ]
    write_json(args.json, {"dcgan": res, "summary": summary})
    return res


if __name__ == "__main__":
    main()
