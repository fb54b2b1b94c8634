"""PTB-style LSTM language model: training words/s of tensorweave vs hand-written TF vs Keras 3.

The model (Zaremba et al.'s "small" configuration): vocabulary 10,000, an embedding read
with ``tf.gather`` on a variable, two LSTM layers of 200 units unrolled over 35 steps,
batch 20, a softmax over the vocabulary with cross-entropy, plain SGD. Data are synthetic
token ids (speed does not depend on the text). Three implementations, the same weights:

a) tensorweave: ``tw.layers["RNN.v1"]`` x2 with ``LSTMCell.v1``, compiled with
   ``tw.compile``, its ``tf.function`` called inside a ``tf.function`` train step with a
   ``GradientTape`` and an SGD update. By default the RNN computes ``x @ kernel + bias``
   for all 35 steps in one matmul before its loop (``hoist_inputs=True``) and
   ``LSTMCell`` uses its hand-written step gradient (``fused_gradient=True``). The full
   run also times
a') the same with ``hoist_inputs=False, fused_gradient=False``: autodiff of exactly the
   hand-written maths, one step at a time (under ``tw.compile`` the batch size is dynamic,
   which costs autodiff some shape bookkeeping per step);
b) hand-written TensorFlow: variables, the same cell maths in a ``tf.while_loop`` over a
   ``TensorArray``, the same train step;
c) Keras 3: ``Embedding -> LSTM -> LSTM -> Dense`` trained with ``model.fit`` (SGD).

Each is warmed up (tracing, first steps), then timed over several windows of train steps;
the script prints the median words/s of the windows, their spread (min-max) and the ratio
to hand-written TF. The models take turns window by window (rotating order), so drift and
other processes hit them alike.

Run: ``python benchmarks/bench_ptb_lstm.py`` (about 3-4 minutes on 2 CPU cores) or
``python benchmarks/bench_ptb_lstm.py --quick`` (under a minute); ``--threads 1`` pins
TensorFlow to one thread, which makes the figures steadier on a shared machine. Besides
wall-clock words/s the script prints words per CPU-second of this process, which other
processes competing for the cores disturb much less.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "-1")

import keras
import numpy as np
import tensorflow as tf

import tensorweave as tw

VOCAB, UNITS, LAYERS, STEPS, BATCH, LR = 10_000, 200, 2, 35, 20, 1.0


def make_data(n_batches: int, seed: int = 0) -> tuple[tf.Tensor, tf.Tensor]:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, VOCAB, size=(n_batches, BATCH, STEPS + 1)).astype("int32")
    return tf.constant(ids[:, :, :-1]), tf.constant(ids[:, :, 1:])


def sgd(variables, grads) -> None:
    for v, g in zip(variables, grads, strict=True):
        if isinstance(g, tf.IndexedSlices):
            v.scatter_sub(tf.IndexedSlices(LR * g.values, g.indices, g.dense_shape))
        else:
            v.assign_sub(LR * g)


def loss_fn(logits: tf.Tensor, targets: tf.Tensor) -> tf.Tensor:
    return tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.reshape(targets, [-1]), logits)
    )


# -- a) tensorweave ------------------------------------------------------------------------
def build_tensorweave(fast: bool = True):
    embedding = tf.Variable(tf.random.uniform([VOCAB, UNITS], -0.1, 0.1), name="embedding")
    w_out = tf.Variable(tf.random.uniform([UNITS, VOCAB], -0.1, 0.1), name="w_out")
    b_out = tf.Variable(tf.zeros([VOCAB]), name="b_out")
    tokens = tw.Input(shape=(None, None), dtype="int32", name="tokens")
    h = tw.Lambda(lambda t: tf.gather(embedding, t), tokens, variables=[embedding])
    rnns = []
    for _ in range(LAYERS):
        h = tw.layers["RNN.v1"](
            h, cell="LSTMCell.v1", n_units=UNITS, fused_gradient=fast, hoist_inputs=fast
        )
        rnns.append(h)
    logits = tw.Lambda(
        lambda t: tf.nn.bias_add(tf.matmul(tf.reshape(t, [-1, UNITS]), w_out), b_out),
        h,
        variables=[w_out, b_out],
    )
    model = tw.compile(tw.Graph.build(tokens, logits))
    forward = model.function
    variables = list(model.graph.trainable_variables)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(forward(x), y)
        sgd(variables, tape.gradient(loss, variables))
        return loss

    cells = [r.cell for r in rnns]
    weights = {
        "embedding": embedding,
        "w_out": w_out,
        "b_out": b_out,
        "cells": [(c.kernel, c.recurrent_kernel, c.bias) for c in cells],
    }
    return train_step, weights, model


def _flat(weights) -> list[tf.Variable]:
    cells = [v for c in weights["cells"] for v in c]
    return [weights["embedding"], *cells, weights["w_out"], weights["b_out"]]


# -- b) hand-written TensorFlow --------------------------------------------------------------
def build_handwritten(weights):
    """Variables copied from the tensorweave model, so both compute the same losses."""
    embedding = tf.Variable(weights["embedding"])
    w_out, b_out = tf.Variable(weights["w_out"]), tf.Variable(weights["b_out"])
    cells = [tuple(tf.Variable(v) for v in c) for c in weights["cells"]]
    variables = [embedding, *[v for c in cells for v in c], w_out, b_out]

    def lstm_layer(xs, kernel, recurrent, bias):  # xs: (time, batch, features)
        steps, batch = tf.shape(xs)[0], tf.shape(xs)[1]
        inputs = tf.TensorArray(tf.float32, size=steps).unstack(xs)
        outputs = tf.TensorArray(tf.float32, size=steps, element_shape=[None, UNITS])

        def body(t, h, c, outputs):
            z = tf.nn.bias_add(tf.matmul(inputs.read(t), kernel) + tf.matmul(h, recurrent), bias)
            i, f, g, o = tf.split(z, 4, axis=1)
            c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
            h = tf.sigmoid(o) * tf.tanh(c)
            return t + 1, h, c, outputs.write(t, h)

        zeros = tf.zeros([batch, UNITS])
        _, _, _, outputs = tf.while_loop(
            lambda t, *_: t < steps, body, (tf.constant(0), zeros, zeros, outputs)
        )
        return outputs.stack()

    def forward(x):
        h = tf.transpose(tf.gather(embedding, x), [1, 0, 2])
        for kernel, recurrent, bias in cells:
            h = lstm_layer(h, kernel, recurrent, bias)
        h = tf.transpose(h, [1, 0, 2])
        return tf.nn.bias_add(tf.matmul(tf.reshape(h, [-1, UNITS]), w_out), b_out)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(forward(x), y)
        sgd(variables, tape.gradient(loss, variables))
        return loss

    return train_step


# -- c) Keras 3 ----------------------------------------------------------------------------
def build_keras(weights):
    model = keras.Sequential(
        [
            keras.Input((STEPS,), dtype="int32"),
            keras.layers.Embedding(VOCAB, UNITS),
            *[keras.layers.LSTM(UNITS, return_sequences=True) for _ in range(LAYERS)],
            keras.layers.Dense(VOCAB),
        ]
    )
    flat = [weights["embedding"], *[v for c in weights["cells"] for v in c]]
    model.set_weights([np.asarray(v) for v in [*flat, weights["w_out"], weights["b_out"]]])
    model.compile(
        optimizer=keras.optimizers.SGD(LR),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return model


# -- timing --------------------------------------------------------------------------------
def time_window(step, xs, ys, start: int, n: int) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of ``n`` train steps."""
    w0, c0 = time.perf_counter(), time.process_time()
    loss = None
    for k in range(start, start + n):
        i = k % xs.shape[0]
        loss = step(xs[i], ys[i])
    float(loss)  # wait for the last step
    return time.perf_counter() - w0, time.process_time() - c0


class KerasWindows:
    """Times ``model.fit`` epochs of ``window`` steps (epoch begin to end, so the set-up of
    each ``fit`` call is not counted)."""

    def __init__(self, model, xs, ys, window: int) -> None:
        self.model, self.window = model, window
        self.data = tf.data.Dataset.from_tensor_slices((xs, ys)).repeat()
        self.times: list[tuple[float, float]] = []
        outer = self

        class Clock(keras.callbacks.Callback):
            def on_epoch_begin(self, epoch, logs=None):
                self.t = (time.perf_counter(), time.process_time())

            def on_epoch_end(self, epoch, logs=None):
                w0, c0 = self.t
                outer.times.append((time.perf_counter() - w0, time.process_time() - c0))

        self.clock = Clock()

    def warm_up(self, steps: int) -> None:
        self.model.fit(self.data, steps_per_epoch=steps, epochs=1, verbose=0)

    def __call__(self) -> tuple[float, float]:
        self.model.fit(
            self.data, steps_per_epoch=self.window, epochs=1, verbose=0, callbacks=[self.clock]
        )
        return self.times[-1]


def summarize(label: str, words: int, times: list[tuple[float, float]], ref) -> tuple[float, float]:
    wall = [words / w for w, _ in times]
    cpu = [words / c for _, c in times]
    med, med_cpu = statistics.median(wall), statistics.median(cpu)
    ratio = f"{med / ref[0]:.3f}x" if ref else "1.000x"
    ratio_cpu = f"{med_cpu / ref[1]:.3f}x" if ref else "1.000x"
    print(
        f"  {label:<33} {med:>7,.0f} words/s wall (min {min(wall):,.0f}, max {max(wall):,.0f})"
        f" {ratio:>7} | {med_cpu:>7,.0f} words/CPU-s (min {min(cpu):,.0f}, max {max(cpu):,.0f})"
        f" {ratio_cpu:>7}"
    )
    return med, med_cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a run under 60 s")
    parser.add_argument("--json", help="write the figures (summary rows for run_all.py)")
    parser.add_argument("--windows", type=int, default=None, help="timed windows per model")
    parser.add_argument("--window", type=int, default=None, help="train steps per window")
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="TensorFlow intra/inter-op threads (0: TF default); 1 gives steadier figures "
        "on a busy machine",
    )
    parser.add_argument(
        "--vocab",
        type=int,
        default=10_000,
        help="vocabulary size (default 10,000; a small one isolates the recurrent part, "
        "which the 10,000-way softmax otherwise dominates)",
    )
    args = parser.parse_args(argv)
    globals()["VOCAB"] = args.vocab  # the model builders read the module constant
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    window = args.window or (3 if args.quick else 8)
    windows = args.windows or (3 if args.quick else 9)
    warmup = 2 if args.quick else 4
    tf.random.set_seed(0)
    xs, ys = make_data(16)
    words = window * BATCH * STEPS

    print(
        f"PTB-style LSTM LM: vocab {VOCAB}, {LAYERS}x{UNITS} LSTM, {STEPS} steps, batch "
        f"{BATCH}; tensorflow {tf.__version__}, keras {keras.__version__}, "
        f"{os.cpu_count()} CPUs, threads {args.threads or 'default'}, load average "
        f"{os.getloadavg()[0]:.1f}; "
        f"{windows} windows x {window} steps after {warmup} warm-up steps"
    )
    t0 = time.perf_counter()
    tw_step, weights, _ = build_tensorweave()
    hw_step = build_handwritten(weights)
    keras_model = build_keras(weights)
    # the same weights give the same first loss (before any update)
    lk = float(loss_fn(tf.reshape(keras_model(xs[0]), [-1, VOCAB]), ys[0]))
    la, lb = float(tw_step(xs[0], ys[0])), float(hw_step(xs[0], ys[0]))
    print(f"  first-step loss: tensorweave {la:.6f}, hand-written {lb:.6f}, keras {lk:.6f}")
    if abs(la - lb) > 1e-4 or abs(la - lk) > 1e-3:
        print("  WARNING: the three models disagree on the first loss", file=sys.stderr)
    for k in range(1, warmup):
        tw_step(xs[k], ys[k])
        hw_step(xs[k], ys[k])
    keras_runs = KerasWindows(keras_model, xs, ys, window)
    keras_runs.warm_up(warmup)
    runs = {
        "a": lambda start: time_window(tw_step, xs, ys, start, window),
        "b": lambda start: time_window(hw_step, xs, ys, start, window),
        "c": lambda start: keras_runs(),
    }
    if not args.quick:
        plain_step, plain_weights, _ = build_tensorweave(fast=False)
        for v, w in zip(_flat(plain_weights), _flat(weights), strict=True):
            v.assign(w)
        for k in range(warmup):
            plain_step(xs[k], ys[k])
        runs["a'"] = lambda start: time_window(plain_step, xs, ys, start, window)
    print(f"  build + trace + warm-up: {time.perf_counter() - t0:.1f} s")

    times: dict[str, list[tuple[float, float]]] = {k: [] for k in runs}
    order = list(runs)
    for w in range(windows):  # rotate the order so drift and noise hit every model alike
        for key in order[w % len(order) :] + order[: w % len(order)]:
            times[key].append(runs[key](warmup + w * window))

    print("  median of windows (spread); ratio vs hand-written:")
    ref = summarize("b) hand-written TF (tf.function)", words, times["b"], None)
    tw_rate = summarize("a) tensorweave (tw.compile)", words, times["a"], ref)
    if "a'" in times:
        summarize("a') tensorweave, per-step autodiff", words, times["a'"], ref)
    keras_rate = summarize("c) Keras 3 model.fit", words, times["c"], ref)
    verdict = "met" if tw_rate[0] >= 0.99 * ref[0] else "NOT met"
    print(
        f"  goal tensorweave >= 0.99x hand-written (wall): {verdict}; CPU-time ratio "
        f"{tw_rate[1] / ref[1]:.3f}x (robust to other processes on the machine)"
    )
    if args.json:
        from common import summary_row, write_json

        write_json(
            args.json,
            {
                "words_per_s": {
                    "tensorweave": tw_rate[0],
                    "hand-written": ref[0],
                    "keras": keras_rate[0],
                },
                "summary": [
                    summary_row(
                        "ptb_lstm tensorweave (x hand-written TF)",
                        tw_rate[0] / ref[0],
                        0.99,
                        higher_is_better=True,
                        unit="x",
                    ),
                    summary_row(
                        "ptb_lstm tensorweave, CPU time (x hand-written TF)",
                        tw_rate[1] / ref[1],
                        0.99,
                        higher_is_better=True,
                        unit="x",
                    ),
                    summary_row(
                        "ptb_lstm keras 3 fit (x hand-written TF)",
                        keras_rate[0] / ref[0],
                        None,
                        unit="x",
                    ),
                ],
            },
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
