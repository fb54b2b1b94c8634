"""What a compiled training step holds, and what it costs: tensorweave beside hand-written twins.

Issue 39 asks why tensorweave's mixed-bfloat16 CNN step trails a hand-written twin that adds
its biases with ``tf.nn.bias_add``. This benchmark answers by measurement, for the CIFAR-10 CNN
of TensorLayer's Table 1 (24x24x3, batch 128, SGD; ``--lrn`` adds its two LRN layers):

1. the operations of each step's graph, by type, side by side (before TensorFlow's graph
   optimizer): ``Cast``, ``ReadVariableOp``, ``BiasAdd``...;
2. the kernels each step actually runs and their time, from TensorFlow's profiler (after the
   graph optimizer and oneDNN's rewrites: ``_MklNativeFusedConv2D`` is convolution + bias +
   ReLU in one kernel, ``_MklNativeConv2DBackpropFilterWithBias`` the kernel gradient and the
   bias gradient in one);
3. steps/s of each program in interleaved windows (each window runs every program in turn),
   as paired ratios: median and range over the windows.

The programs: ``tw`` (``Model.train_on_batch``, the model of ``bench_models.cnn_tensorweave``),
``twin+`` (hand-written, biases added with ``+``, as ``bench_models.cnn_hand_written``) and
``twin_bias_add`` (hand-written with ``tf.nn.bias_add``, the twin of issue 39).

``--loop [mlp] [cnn]`` measures instead the per-step work outside the kernels: one epoch of
``Model.train`` (its default ``steps_per_execution``), of a ``train_on_batch`` loop over numpy
slices and of the hand-written ``for x, y in ds: step(x, y)`` (``tf.data``, calling the model's
own ``train_function``: only the loop differs), on a tiny MLP (8 features, batch 32, where
Python dominates) and on the CNN. Counted (noise does not move them): Python function calls
per step (``cProfile``), host syncs per step (``EagerTensor.numpy``/``__float__``), retraces;
timed: steps/s and process CPU ms per step in interleaved windows, as paired ratios.

Run: ``python benchmarks/bench_step_anatomy.py [--precision mixed_bfloat16|float32] [--lrn]
[--windows 11] [--steps 20] [--no-profile] [--loop [mlp] [cnn] [--loop-steps 200 8]]``.
Measure on a quiet machine.
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

import tensorweave as tw

BATCH = 128
LR = 0.01
LRN = {"depth_radius": 4, "k": 1.0, "alpha": 0.001 / 9.0, "beta": 0.75}
TF_LRN = {"depth_radius": 4, "bias": 1.0, "alpha": 0.001 / 9.0, "beta": 0.75}
Step = Callable[[tf.Tensor, tf.Tensor], Any]


def tensorweave_step(precision: str, lrn: bool) -> tuple[Step, Any]:
    """``Model.train_on_batch`` of the natural tensorweave model, and its ``tf.function``."""
    model = cnn_model(precision, lrn)
    return (lambda a, b: model.train_on_batch([a, b])), model.train_function


def cnn_model(precision: str, lrn: bool) -> Any:
    """The natural tensorweave model of the CNN (``Model``, SGD)."""
    from tensorweave_train import SGD, Model

    L = tw.layers
    x = tw.Input(shape=(24, 24, 3), name="images")
    y = tw.Input(shape=(), dtype="int64", name="labels")
    h = L["Conv2D.v1"](x, 64, 5, padding="same")
    h = L["Activation.v1"](h, "relu")
    h = L["MaxPool2D.v1"](h, 3, strides=2, padding="same")
    h = L["LocalResponseNorm.v1"](h, **LRN) if lrn else h
    h = L["Conv2D.v1"](h, 64, 5, padding="same")
    h = L["Activation.v1"](h, "relu")
    h = L["LocalResponseNorm.v1"](h, **LRN) if lrn else h
    h = L["MaxPool2D.v1"](h, 3, strides=2, padding="same")
    h = L["Reshape.v1"](h, (-1,))
    h = L["FC.v1"](h, 384, activation="relu")
    h = L["FC.v1"](h, 192, activation="relu")
    logits = L["Linear.v1"](h, 10)
    loss = tw.losses["sparse_categorical_cross_entropy.v1"](y, logits, from_logits=True)
    return Model(
        inputs=x, outputs=logits, targets=y, loss=loss, optimizer=SGD(LR), precision=precision
    )


def hand_written_step(precision: str, lrn: bool, bias_add: bool) -> tuple[Step, Any]:
    """The twin: float32 variables, each read and cast once per step; ``bias_add``: biases
    through ``tf.nn.bias_add`` (else ``+``)."""
    low = tf.bfloat16 if precision == "mixed_bfloat16" else tf.float32
    shapes = [[5, 5, 3, 64], [5, 5, 64, 64], [6 * 6 * 64, 384], [384, 192], [192, 10]]
    rng = np.random.default_rng(0)
    ws = [tf.Variable(rng.normal(0, 0.05, s).astype(np.float32)) for s in shapes]
    bs = [tf.Variable(tf.zeros([s[-1]])) for s in shapes]
    variables = ws + bs

    def add(h: tf.Tensor, b: tf.Tensor) -> tf.Tensor:
        return tf.nn.bias_add(h, b) if bias_add else h + b

    def norm(h: tf.Tensor) -> tf.Tensor:
        return tf.cast(tf.nn.local_response_normalization(tf.cast(h, tf.float32), **TF_LRN), low)

    def forward(images: tf.Tensor) -> tf.Tensor:
        w = [tf.cast(v, low) for v in ws]
        b = [tf.cast(v, low) for v in bs]
        h = tf.nn.relu(add(tf.nn.conv2d(tf.cast(images, low), w[0], 1, "SAME"), b[0]))
        h = tf.nn.max_pool2d(h, 3, 2, "SAME")
        h = norm(h) if lrn else h
        h = tf.nn.relu(add(tf.nn.conv2d(h, w[1], 1, "SAME"), b[1]))
        h = norm(h) if lrn else h
        h = tf.nn.max_pool2d(h, 3, 2, "SAME")
        h = tf.reshape(h, [tf.shape(h)[0], -1])
        h = tf.nn.relu(tf.matmul(h, w[2]) + b[2])
        h = tf.nn.relu(tf.matmul(h, w[3]) + b[3])
        return tf.cast(tf.matmul(h, w[4]) + b[4], tf.float32)

    @tf.function
    def step(images: tf.Tensor, labels: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=labels, logits=forward(images)
                )
            )
        for v, g in zip(variables, tape.gradient(loss, variables), strict=True):
            v.assign_sub(LR * g)
        return loss

    return step, step


def graph_ops(function: Any, batch: tuple[tf.Tensor, tf.Tensor]) -> collections.Counter[str]:
    """Operation types of ``function``'s traced graph (and the functions it calls)."""
    specs = [tf.TensorSpec(t.shape, t.dtype) for t in batch]
    try:
        graph = function.get_concrete_function(*specs).graph.as_graph_def()
    except (TypeError, ValueError):  # a step traced with its own signature
        graph = function._list_all_concrete_functions()[0].graph.as_graph_def()
    found = collections.Counter(n.op for n in graph.node)
    for f in graph.library.function:
        found.update(n.op for n in f.node_def)
    return found


def kernels(step: Step, batch: tuple[tf.Tensor, tf.Tensor], steps: int) -> dict[str, float]:
    """Microseconds per step spent in each kernel type that ``step`` runs (the profiler)."""
    from tensorflow.tsl.profiler.protobuf import xplane_pb2

    for _ in range(3):
        step(*batch)
    where = tempfile.mkdtemp(prefix="anatomy-")
    try:
        tf.profiler.experimental.start(where)
        for _ in range(steps):
            step(*batch)
        tf.profiler.experimental.stop()
        (path,) = glob.glob(f"{where}/**/*.xplane.pb", recursive=True)
        space = xplane_pb2.XSpace()
        with open(path, "rb") as f:
            space.ParseFromString(f.read())
    finally:
        shutil.rmtree(where, ignore_errors=True)
    spent: collections.Counter[str] = collections.Counter()
    for plane in space.planes:
        names = {k: v.name for k, v in plane.event_metadata.items()}
        for line in plane.lines:
            if not line.name.startswith("tf_Compute"):
                continue
            for event in line.events:
                name = names.get(event.metadata_id, "?")
                if ":" in name:  # "node name:KernelType"
                    spent[name.rsplit(":", 1)[1]] += event.duration_ps / 1e6 / steps
    return dict(spent)


def windows(programs: dict[str, Step], batch: Any, n: int, steps: int) -> dict[str, list[float]]:
    """Steps/s of each program in ``n`` interleaved windows (order rotated each window)."""
    rates: dict[str, list[float]] = {k: [] for k in programs}
    names = list(programs)
    for i in range(n):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            step = programs[name]
            for _ in range(2):
                step(*batch)
            start = time.perf_counter()
            for _ in range(steps):
                step(*batch)
            float(step(*batch))  # wait for the last step
            rates[name].append((steps + 1) / (time.perf_counter() - start))
    return rates


# -- --loop: the per-step work outside the kernels -------------------------------------------
def mlp_model(precision: str) -> Any:
    """A tiny MLP (8 features, 16 hidden, 3 classes): Python dominates its step."""
    from tensorweave_train import SGD, Model

    L = tw.layers
    x = tw.Input(n_units=8, name="features")
    y = tw.Input(shape=(), dtype="int64", name="labels")
    logits = L["Linear.v1"](L["FC.v1"](x, 16, activation="relu"), 3)
    loss = tw.losses["sparse_categorical_cross_entropy.v1"](y, logits, from_logits=True)
    return Model(
        inputs=x, outputs=logits, targets=y, loss=loss, optimizer=SGD(LR), precision=precision
    )


Loop = Callable[[], Any]


def loop_programs(model: Any, x: np.ndarray, y: np.ndarray, batch: int) -> dict[str, Loop]:
    """One epoch over ``(x, y)`` three ways, each running the same compiled step: ``train``
    (``Model.train``, its default ``steps_per_execution``), ``train_on_batch`` (a Python loop
    over numpy slices) and ``hand`` (the hand-written ``for x, y in ds: step(x, y)`` over a
    ``tf.data`` dataset, calling the model's ``train_function``)."""
    data = {model.feeds[0].name: x, model.feeds[1].name: y}
    slices = [(x[i : i + batch], y[i : i + batch]) for i in range(0, len(x), batch)]
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(batch)
    step = model.train_function

    def train() -> Any:
        return model.train(data, epochs=1, batch_size=batch, shuffle=False, verbose=0)

    def train_on_batch() -> Any:
        for a, b in slices:
            loss = model.train_on_batch([a, b])
        return float(loss)

    def hand() -> Any:
        for a, b in dataset:
            loss = step(a, b)
        return float(loss)

    return {"train": train, "train_on_batch": train_on_batch, "hand": hand}


def loop_counts(programs: dict[str, Loop], model: Any, steps: int) -> dict[str, dict[str, float]]:
    """Per step, for one epoch of each program: Python function calls (``cProfile``), host
    syncs (``EagerTensor.numpy``/``__float__``), and the train step's traces after it."""
    import cProfile
    import pstats

    eager = type(tf.constant(0.0))
    originals = {name: getattr(eager, name) for name in ("numpy", "__float__")}
    syncs = [0]

    def counting(original: Any) -> Any:
        def counted(self: Any) -> Any:
            syncs[0] += 1
            return original(self)

        return counted

    out = {}
    try:
        for name, method in originals.items():
            setattr(eager, name, counting(method))
        for name, program in programs.items():
            program()  # warm: traced
            traces = model.train_trace_count
            syncs[0] = 0
            profile = cProfile.Profile()
            profile.runcall(program)
            out[name] = {
                "python calls": pstats.Stats(profile).total_calls / steps,
                "host syncs": syncs[0] / steps,
                "retraces": float(model.train_trace_count - traces),
            }
    finally:
        for name, method in originals.items():
            setattr(eager, name, method)
    return out


def loop_windows(
    programs: dict[str, Loop], n: int, steps: int
) -> dict[str, dict[str, list[float]]]:
    """Steps/s and process CPU ms per step of each program, one epoch per program per
    window, in ``n`` interleaved windows (order rotated each window)."""
    got: dict[str, dict[str, list[float]]] = {k: {"steps/s": [], "cpu": []} for k in programs}
    names = list(programs)
    for i in range(n):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            wall, cpu = time.perf_counter(), time.process_time()
            programs[name]()
            got[name]["steps/s"].append(steps / (time.perf_counter() - wall))
            got[name]["cpu"].append(1e3 * (time.process_time() - cpu) / steps)
    return got


def loop_report(kind: str, precision: str, n: int, steps: int) -> None:
    """``--loop``: Model.train against train_on_batch and the hand-written loop."""
    rng = np.random.default_rng(0)
    if kind == "mlp":
        model, batch, shape, classes = mlp_model(precision), 32, (8,), 3
    else:
        model, batch, shape, classes = cnn_model(precision, False), BATCH, (24, 24, 3), 10
    x = rng.random((steps * batch, *shape), dtype=np.float32)
    y = rng.integers(0, classes, steps * batch).astype(np.int64)
    programs = loop_programs(model, x, y, batch)
    counts = loop_counts(programs, model, steps)
    print(f"\n{kind}, {precision}, batch {batch}, {steps} steps an epoch")
    print(f"  Model.train steps_per_execution: {model.steps_per_execution!r}")
    print(f"  {'per step (counted)':28s}" + "".join(f"{k:>16s}" for k in counts))
    for what in ("python calls", "host syncs", "retraces"):
        print(f"  {what:28s}" + "".join(f"{c[what]:16.3f}" for c in counts.values()))
    got = loop_windows(programs, n, steps)
    print(f"  {'median of ' + str(n) + ' windows':28s}" + "".join(f"{k:>16s}" for k in got))
    for what in ("steps/s", "cpu"):
        label = "process CPU ms/step" if what == "cpu" else what
        print(
            f"  {label:28s}" + "".join(f"{statistics.median(g[what]):16.3f}" for g in got.values())
        )
    print("  paired ratios over the windows, median (range):")
    for name in ("train", "train_on_batch"):
        print(
            f"    {name:15s}/ hand  steps/s {paired(got[name]['steps/s'], got['hand']['steps/s'])}"
        )
        print(f"    {'':15s}        CPU/step {paired(got[name]['cpu'], got['hand']['cpu'])}")
    print(
        f"    train / train_on_batch  steps/s {paired(got['train']['steps/s'], got['train_on_batch']['steps/s'])}"
    )


def paired(a: list[float], b: list[float]) -> str:
    ratios = [x / y for x, y in zip(a, b, strict=True)]
    return f"{statistics.median(ratios):.3f} (range {min(ratios):.3f}-{max(ratios):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--precision", default="mixed_bfloat16")
    parser.add_argument("--lrn", action="store_true")
    parser.add_argument("--windows", type=int, default=11)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument(
        "--loop",
        nargs="*",
        choices=["mlp", "cnn"],
        help="instead: the per-step work outside the kernels of Model.train, train_on_batch "
        "and a hand-written loop, on the tiny MLP and/or the CNN (default both)",
    )
    parser.add_argument("--loop-steps", type=int, nargs=2, default=[200, 8], metavar=("MLP", "CNN"))
    args = parser.parse_args()
    if args.loop is not None:
        for kind in args.loop or ["mlp", "cnn"]:
            steps = args.loop_steps[0 if kind == "mlp" else 1]
            loop_report(kind, args.precision, args.windows, steps)
        return

    rng = np.random.default_rng(0)
    batch = (
        tf.constant(rng.random((BATCH, 24, 24, 3), dtype=np.float32)),
        tf.constant(rng.integers(0, 10, BATCH).astype(np.int64)),
    )
    built = {
        "tw": tensorweave_step(args.precision, args.lrn),
        "twin+": hand_written_step(args.precision, args.lrn, bias_add=False),
        "twin_bias_add": hand_written_step(args.precision, args.lrn, bias_add=True),
    }
    steps = {k: v[0] for k, v in built.items()}
    for step in steps.values():
        step(*batch)
    print(f"CIFAR-10 CNN{' + LRN' if args.lrn else ''}, {args.precision}, batch {BATCH}")

    ops = {k: graph_ops(v[1], batch) for k, v in built.items()}
    print("\noperations in the traced step (types that differ):")
    print(f"  {'op':34s}" + "".join(f"{k:>15s}" for k in ops))
    print(f"  {'(total)':34s}" + "".join(f"{sum(c.values()):15d}" for c in ops.values()))
    for op in sorted(set().union(*ops.values())):
        counts = [c[op] for c in ops.values()]
        if len(set(counts)) > 1 or op in ("Cast", "ReadVariableOp", "BiasAdd"):
            print(f"  {op:34s}" + "".join(f"{n:15d}" for n in counts))

    if not args.no_profile:
        spent = {k: kernels(v, batch, args.steps) for k, v in steps.items()}
        print("\nkernels run, microseconds per step (the profiler; top 14 by the twins' time):")
        print(f"  {'kernel':40s}" + "".join(f"{k:>15s}" for k in spent))
        top = sorted(set().union(*spent.values()), key=lambda k: -spent["twin_bias_add"].get(k, 0))
        for kernel in top[:14]:
            print(
                f"  {kernel[:40]:40s}"
                + "".join(f"{s.get(kernel, 0):15.0f}" for s in spent.values())
            )
        print(f"  {'(sum)':40s}" + "".join(f"{sum(s.values()):15.0f}" for s in spent.values()))

    rates = windows(steps, batch, args.windows, args.steps)
    print(f"\nsteps/s, {args.windows} interleaved windows of {args.steps} steps (median):")
    for name, r in rates.items():
        print(f"  {name:15s} {statistics.median(r):8.2f}")
    print("paired ratios, median (range):")
    print(f"  tw / twin_bias_add     {paired(rates['tw'], rates['twin_bias_add'])}")
    print(f"  tw / twin+             {paired(rates['tw'], rates['twin+'])}")
    print(f"  twin_bias_add / twin+  {paired(rates['twin_bias_add'], rates['twin+'])}")


if __name__ == "__main__":
    main()
