"""Dispatch overhead: a compiled tensorweave graph against the same hand-written tf.function.

Both sides run the same maths on the same ``tf.Variable`` objects: a 3-layer MLP
(and a 10-layer one) forward pass and a train step (GradientTape + SGD update), and a
10-layer MLP and a small CNN built from ``tensorweave-layers``. Goal: a compiled call costs
at most 1% more than the hand-written ``tf.function`` (ratio <= 1.01), with the same number
of operations in the traced graph. Also: eager ``layer()`` against the raw eager ops.

How a 1% difference is resolved on a shared 2-core machine: TensorFlow runs on one thread
(intra- and inter-op pools pinned before any op), each side is timed in many short windows
of a few calls that alternate (AB, BA, ...), on the *process CPU time* (``process_time_ns``:
time another process held the core is not counted), the garbage collector off in the
windows. The figure is the median of the per-round ratios (tensorweave / hand-written, same
round) with a bootstrap 95% confidence interval; the goal is met when the whole interval is
at or below 1.01, missed when it is all above, undecided otherwise.

Run: ``python benchmarks/bench_dispatch.py [--quick] [--rounds N] [--threads 1] [--json out.json]``
(full: about 1-2 minutes; ``--quick``: under 30 s, a wider interval).
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

from common import Dense, paired, pin_tensorflow_threads, summary_row, verdict, write_json

GOAL = 1.01


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


def _op_counts(tw_fn: Any, tf_fn: Any) -> dict[str, int]:
    """Operations in each traced graph: the structural side of "no overhead"."""
    counts = {
        "tensorweave": len(tw_fn.get_concrete_function().graph.get_operations()),
        "hand_written": len(tf_fn.get_concrete_function().graph.get_operations()),
    }
    print(
        f"  traced ops: tensorweave {counts['tensorweave']}, hand-written {counts['hand_written']}"
    )
    return counts


def _kernel_and_bias(layer: tw.Layer) -> tuple[tf.Variable, tf.Variable]:
    """A layer's weight (rank >= 2) and bias (rank 1) variables."""
    variables = layer.trainable_variables
    kernel = next(v for v in variables if v.shape.rank >= 2)
    bias = next(v for v in variables if v.shape.rank == 1)
    return kernel, bias


def layer_pack_models(calls: int, rounds: int) -> dict[str, Any]:
    """A 10-layer MLP and a small CNN from ``tensorweave-layers``, by registered name,
    compiled, against the same maths hand-written in a ``tf.function`` over the same
    variables."""
    if "FC.v1" not in tw.layers or "Conv2D.v1" not in tw.layers:
        print("tensorweave-layers is not installed: skipping the layer-pack models")
        return {}
    out: dict[str, Any] = {}
    # 10-layer MLP
    x = tw.Input(n_units=32, name="mlp_x")
    h: tw.Layer = x
    fcs = []
    for _ in range(9):
        h = tw.layers["FC.v1"](h, 64, activation="relu")
        fcs.append(h)
    logits = tw.layers["Linear.v1"](h, 10)
    params = [_kernel_and_bias(layer) for layer in [*fcs, logits]]

    def mlp(t: tf.Tensor) -> tf.Tensor:
        for i, (w, b) in enumerate(params):
            t = tf.matmul(t, w) + b
            t = tf.nn.relu(t) if i < len(params) - 1 else t
        return t

    data = tf.random.normal([64, 32])
    compiled = tw.compile(logits)
    baseline = tf.function(mlp, input_signature=[tf.TensorSpec([None, 32])])
    np.testing.assert_allclose(compiled(data).numpy(), baseline(data).numpy(), rtol=1e-5, atol=1e-5)
    out["forward_mlp10_layers_pack"] = paired(
        lambda: compiled(data), lambda: baseline(data), calls, rounds
    )
    out["forward_mlp10_layers_pack"]["ops"] = _op_counts(compiled.function, baseline)
    # small CNN: conv 3x3x16 - relu - maxpool 2 - conv 3x3x32 - relu - global avg - linear
    img = tw.Input(shape=(16, 16, 3), name="cnn_x")
    c1 = tw.layers["Conv2D.v1"](img, 16, 3, padding="same")
    p1 = tw.layers["MaxPool2D.v1"](tw.layers["Activation.v1"](c1, "relu"), 2)
    c2 = tw.layers["Conv2D.v1"](p1, 32, 3, padding="same")
    g = tw.layers["GlobalAvgPool.v1"](tw.layers["Activation.v1"](c2, "relu"))
    head = tw.layers["Linear.v1"](g, 10)
    (k1, b1), (k2, b2), (wh, bh) = (_kernel_and_bias(layer) for layer in (c1, c2, head))

    def cnn(t: tf.Tensor) -> tf.Tensor:
        t = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(t, k1, 1, "SAME") + b1), 2, 2, "VALID")
        t = tf.nn.relu(tf.nn.conv2d(t, k2, 1, "SAME") + b2)
        return tf.matmul(tf.reduce_mean(t, axis=[1, 2]), wh) + bh

    images = tf.random.normal([32, 16, 16, 3])
    compiled_cnn = tw.compile(head)
    baseline_cnn = tf.function(cnn, input_signature=[tf.TensorSpec([None, 16, 16, 3])])
    np.testing.assert_allclose(
        compiled_cnn(images).numpy(), baseline_cnn(images).numpy(), rtol=1e-4, atol=1e-4
    )
    out["forward_small_cnn_layers_pack"] = paired(
        lambda: compiled_cnn(images), lambda: baseline_cnn(images), max(1, calls // 4), rounds
    )
    out["forward_small_cnn_layers_pack"]["ops"] = _op_counts(compiled_cnn.function, baseline_cnn)
    return out


def _print_table(results: dict[str, Any]) -> None:
    print(
        f"{'per call, process CPU time':30s} {'tensorweave':>11s} {'hand-written':>12s} "
        f"{'a-b':>7s} {'ratio':>6s} {'95% CI':>13s} {'wall':>6s}  goal <= {GOAL:g}"
    )
    rows = [(k, r) for k, r in results.items() if "tensorweave_us" in r]
    rows += [(f"{k} wrapper", r["wrapper"]) for k, r in results.items() if "wrapper" in r]
    for name, r in rows:
        lo, hi = r["ci95"]
        goal = "(reported)" if name.startswith("eager") else verdict(r["ci95"], GOAL)
        print(
            f"{name:30s} {r['tensorweave_us']:9.1f}us {r['baseline_us']:10.1f}us "
            f"{r['difference_us']:+5.1f}us {r['ratio']:6.3f} {lo:6.3f}-{hi:6.3f} {r['wall_ratio']:6.3f}  {goal}"
        )
    print(
        "(a-b: median paired difference per call; wrapper: the tw.compile'd call against its "
        "own tf.function - same traced graph, same variables - so only tensorweave's Python "
        "per call differs; wall: the paired median on the wall clock, for reference. The "
        "interval covers the noise within this run, not from one run to the next, which "
        "moved medians by up to ~0.5% on a loaded machine)"
    )


def _summary(results: dict[str, Any]) -> list[dict[str, Any]]:
    summary = [
        summary_row(
            f"dispatch {k} (x hand-written tf.function)", r["ratio"], GOAL, unit="x", ci=r["ci95"]
        )
        for k, r in results.items()
        if not k.startswith("eager")
    ]
    summary += [
        summary_row(
            f"dispatch {k} traced ops (tensorweave - hand-written)",
            r["ops"]["tensorweave"] - r["ops"]["hand_written"],
            0,
        )
        for k, r in results.items()
        if "ops" in r
    ]
    summary += [
        summary_row(
            f"dispatch {k} wrapper (x its own tf.function)",
            r["wrapper"]["ratio"],
            GOAL,
            unit="x",
            ci=r["wrapper"]["ci95"],
        )
        for k, r in results.items()
        if "wrapper" in r
    ]
    summary.append(
        summary_row(
            "eager layer() (x raw eager ops)", results["eager_3_layers"]["ratio"], None, unit="x"
        )
    )
    return summary


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds: under 30 s")
    parser.add_argument("--rounds", type=int, help="timed rounds per pair (AB or BA each)")
    parser.add_argument("--calls", type=int, help="calls per window (the CNN: a quarter)")
    parser.add_argument(
        "--threads", type=int, default=1, help="TensorFlow threads (default 1; 0: TF's default)"
    )
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.threads:
        pin_tensorflow_threads(args.threads)  # before any op runs
    calls = args.calls or 2  # short windows: most see no other process, the median keeps them
    rounds = args.rounds or (400 if args.quick else 4000)
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
            lambda c=compiled: c(data), lambda f=baseline: f(data), calls, rounds
        )
        results[f"forward_{depth}_layers"]["ops"] = _op_counts(compiled.function, baseline)
        # tensorweave's own Python per call: the compiled graph against its own tf.function
        # (same traced graph, same variables), so only the wrapper differs.
        results[f"forward_{depth}_layers"]["wrapper"] = paired(
            lambda c=compiled: c(data), lambda c=compiled: c.function(data), calls, rounds
        )
        variables = list(out.graph.trainable_variables)
        tw_step = train_step(lambda t, c=out.graph: c.compute(t), variables, n_in)
        tf_step = train_step(hand_written(layers), variables, n_in)
        results[f"train_step_{depth}_layers"] = paired(
            lambda s=tw_step: s(data, labels),
            lambda s=tf_step: s(data, labels),
            max(1, calls // 2),
            rounds,
        )
        results[f"train_step_{depth}_layers"]["ops"] = _op_counts(tw_step, tf_step)
    results.update(layer_pack_models(calls, rounds))
    # Eager: layer() runs the graph op by op; the baseline is the same ops, eagerly.
    x, layers = build(3, 64, n_in)
    x.value = data
    eager_raw = hand_written(layers)
    results["eager_3_layers"] = paired(
        lambda: layers[-1](), lambda: eager_raw(data), max(1, calls // 4), max(100, rounds // 4)
    )
    print(
        f"TensorFlow threads: {args.threads or 'default'}; {rounds} rounds of {calls} calls a "
        f"window (train steps {max(1, calls // 2)}); load average {os.getloadavg()[0]:.1f}"
    )
    _print_table(results)
    print(
        f"goal: every compiled ratio <= {GOAL:g} (the whole 95% interval) with the same traced "
        "op count; eager layer() overhead is reported, not a goal"
    )
    write_json(args.json, {**results, "summary": _summary(results)})
    return results


if __name__ == "__main__":
    main()
