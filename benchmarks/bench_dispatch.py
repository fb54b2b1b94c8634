"""Dispatch overhead: a compiled tensorweave graph against the same hand-written tf.function.

Both sides run the same maths on the same ``tf.Variable`` objects: a 3-layer MLP
(and a 10-layer one) forward pass and a train step (GradientTape + SGD update). Calls
alternate between the two sides in timed windows, so machine noise hits both alike; the
figure is the ratio of medians (tensorweave / hand-written; 1.00 = no overhead). Also:
eager ``layer()`` against the raw eager ops it runs.

Run: ``python benchmarks/bench_dispatch.py [--quick] [--json out.json]``
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

import tensorweave as tw

from common import Dense, paired, summary_row, write_json


def build(depth: int, width: int, n_in: int) -> tuple[tw.Input, list[Dense]]:
    x = tw.Input(n_units=n_in, name="x")
    layers, h = [], x
    for i in range(depth):
        h = Dense(h, width if i < depth - 1 else 10, relu=i < depth - 1)
        layers.append(h)
    return x, layers


def hand_written(layers: list[Dense]) -> Callable[[tf.Tensor], tf.Tensor]:
    params = [(layer.state.w, layer.state.b, layer.relu) for layer in layers]

    def forward(x: tf.Tensor) -> tf.Tensor:
        for w, b, relu in params:
            x = tf.matmul(x, w) + b
            x = tf.nn.relu(x) if relu else x
        return x

    return forward


def train_step(
    forward: Callable[[tf.Tensor], tf.Tensor], variables: list[tf.Variable], n_in: int
) -> Any:
    @tf.function(input_signature=[tf.TensorSpec([None, n_in]), tf.TensorSpec([None], tf.int32)])
    def step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            logits = forward(x)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
            )
        for v, g in zip(variables, tape.gradient(loss, variables), strict=True):
            v.assign_sub(0.01 * g)
        return loss

    return step


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    calls, windows = (200, 5) if args.quick else (1000, 11)
    tf.random.set_seed(0)
    n_in, batch = 32, 64
    data = tf.random.normal([batch, n_in])
    labels = tf.random.uniform([batch], 0, 10, tf.int32)
    results: dict[str, Any] = {}
    for depth in (3, 10):
        x, layers = build(depth, 64, n_in)
        out = layers[-1]
        compiled = tw.compile(out)
        baseline = tf.function(hand_written(layers), input_signature=[tf.TensorSpec([None, n_in])])
        np.testing.assert_allclose(compiled(data).numpy(), baseline(data).numpy(), rtol=1e-6)
        results[f"forward_{depth}_layers"] = paired(
            lambda c=compiled: c(data), lambda f=baseline: f(data), calls, windows
        )
        variables = list(out.graph.trainable_variables)
        tw_step = train_step(lambda t, c=out.graph: c.compute(t), variables, n_in)
        tf_step = train_step(hand_written(layers), variables, n_in)
        results[f"train_step_{depth}_layers"] = paired(
            lambda s=tw_step: s(data, labels),
            lambda s=tf_step: s(data, labels),
            calls // 2,
            windows,
        )
    # Eager: layer() runs the graph op by op; the baseline is the same ops, eagerly.
    x, layers = build(3, 64, n_in)
    x.value = data
    eager_raw = hand_written(layers)
    results["eager_3_layers"] = paired(
        lambda: layers[-1](), lambda: eager_raw(data), max(20, calls // 10), windows
    )
    print(f"{'benchmark':24s} {'tensorweave':>12s} {'hand-written':>13s} {'ratio':>7s} {'±':>6s}")
    for name, r in results.items():
        print(
            f"{name:24s} {r['tensorweave_us']:10.1f}us {r['baseline_us']:11.1f}us "
            f"{r['ratio']:7.3f} {r['ratio_spread']:6.3f}"
        )
    print("goal: compiled ratios <= 1.03 (eager layer() overhead is reported, not a goal)")
    summary = [
        summary_row(f"dispatch {k} (x hand-written tf.function)", r["ratio"], 1.03, unit="x")
        for k, r in results.items()
        if not k.startswith("eager")
    ]
    summary.append(
        summary_row(
            "eager layer() (x raw eager ops)", results["eager_3_layers"]["ratio"], None, unit="x"
        )
    )
    write_json(args.json, {**results, "summary": summary})
    return results


if __name__ == "__main__":
    main()
