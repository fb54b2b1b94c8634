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

VOCAB, UNITS, LAYERS, STEPS, BATCH, LR = 10_000, 200, 2, 20, 20, 1.0


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
def build_tensorweave(fast: bool = True, jit: bool = False, static: bool = True):
    embedding = tf.Variable(tf.random.uniform([VOCAB, UNITS], -0.1, 0.1), name="embedding")
    w_out = tf.Variable(tf.random.uniform([UNITS, VOCAB], -0.1, 0.1), name="w_out")
    b_out = tf.Variable(tf.zeros([VOCAB]), name="b_out")
    # a length known when tracing lets RNN unroll its loop (``static=False``: while_loop)
    tokens = tw.Input(batch_shape=(None, STEPS if static else None), dtype="int32", name="tokens")
    h = tw.Lambda(lambda t: tf.gather(embedding, t), tokens, variables=[embedding])
    rnns = []
    for _ in range(LAYERS):
        h = tw.layers["RNN.v1"](
            h,
            cell="LSTMCell.v1",
            n_units=UNITS,
            fused_gradient=fast,
            hoist_inputs=fast,
            return_sequences=True,
        )
        rnns.append(h)
    logits = tw.Lambda(
        lambda t: tf.nn.bias_add(tf.matmul(tf.reshape(t, [-1, UNITS]), w_out), b_out),
        h,
        variables=[w_out, b_out],
    )
    model = tw.compile(tw.Graph.build(tokens, logits))
    forward = model  # called while train_step traces: its layers run inline (one graph)
    variables = list(model.graph.trainable_variables)

    @tf.function(jit_compile=jit or None)
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
def build_handwritten(weights, unrolled: bool = False):
    """Variables copied from the tensorweave model, so both compute the same losses.
    ``unrolled``: a Python loop over the (static) time steps instead of a while_loop, the
    input projection of all steps in one matmul before it (the fastest hand-written form)."""
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

    def unrolled_layer(xs, kernel, recurrent, bias):  # xs: (time, batch, features)
        steps = xs.shape[0]
        zx = tf.reshape(
            tf.nn.bias_add(tf.matmul(tf.reshape(xs, [-1, xs.shape[-1]]), kernel), bias),
            [steps, -1, 4 * UNITS],
        )
        h = c = tf.zeros([tf.shape(xs)[1], UNITS])
        outputs = []
        for z_in in tf.unstack(zx, num=steps):
            i, f, g, o = tf.split(z_in + tf.matmul(h, recurrent), 4, axis=1)
            c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
            h = tf.sigmoid(o) * tf.tanh(c)
            outputs.append(h)
        return tf.stack(outputs)

    layer = unrolled_layer if unrolled else lstm_layer

    def forward(x):
        h = tf.transpose(tf.gather(embedding, x), [1, 0, 2])
        for kernel, recurrent, bias in cells:
            h = layer(h, kernel, recurrent, bias)
        h = tf.transpose(h, [1, 0, 2])
        return tf.nn.bias_add(tf.matmul(tf.reshape(h, [-1, UNITS]), w_out), b_out)

    @tf.function(input_signature=[tf.TensorSpec([None, STEPS], tf.int32)] * 2)
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


def _paired(times, ref) -> tuple[float, float]:
    """Median and half-range of the per-window ratios (ref time / time: >1 is faster)."""
    ratios = [r[0] / t[0] for t, r in zip(times, ref, strict=True)]
    return statistics.median(ratios), (max(ratios) - min(ratios)) / 2


def summarize(label: str, words: int, times, loop, unrolled) -> dict:
    wall = [words / w for w, _ in times]
    cpu = [words / c for _, c in times]
    med, med_cpu = statistics.median(wall), statistics.median(cpu)
    vs_loop, vs_unrolled = _paired(times, loop), _paired(times, unrolled)
    cpu_vs_unrolled = med_cpu / statistics.median([words / c for _, c in unrolled])
    print(
        f"  {label:<44} {med:>7,.0f} words/s  {vs_loop[0]:.3f}x (±{vs_loop[1]:.3f}) while_loop"
        f"  {vs_unrolled[0]:.3f}x (±{vs_unrolled[1]:.3f}) unrolled"
        f"  | CPU {cpu_vs_unrolled:.3f}x unrolled"
    )
    return {
        "words_per_s": med,
        "vs_loop": vs_loop,
        "vs_unrolled": vs_unrolled,
        "cpu_vs_unrolled": cpu_vs_unrolled,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a run under 60 s")
    parser.add_argument("--json", help="write the figures (summary rows for run_all.py)")
    parser.add_argument(
        "--no-xla",
        action="store_true",
        help="skip the XLA variants (tensorweave and hand-unrolled TF with jit_compile=True; "
        "each compiles for ~15 s; --quick skips them too)",
    )
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
    windows = args.windows or (3 if args.quick else 25)  # the 25 rounds
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
    steps = {
        "a": tw_step,
        "b": build_handwritten(weights),
        "u": build_handwritten(weights, unrolled=True),
    }
    if not args.quick:
        chosen = [("d", {"static": False}), ("a'", {"fast": False, "static": False})]
        if not args.no_xla:
            chosen.insert(0, ("x", {"jit": True}))
            # the ceiling: the fastest hand-written program, compiled by XLA
            steps["ux"] = tf.function(steps["u"].python_function, jit_compile=True)
        for key, options in chosen:
            step, own, _ = build_tensorweave(**options)
            for v, w in zip(_flat(own), _flat(weights), strict=True):
                v.assign(w)  # the same starting weights as the others
            steps[key] = step
    keras_model = build_keras(weights)
    # the same weights give the same first loss (before any update); the others' own
    # copies start equal too, so their first losses agree
    lk = float(loss_fn(tf.reshape(keras_model(xs[0]), [-1, VOCAB]), ys[0]))
    first = {k: float(step(xs[0], ys[0])) for k, step in steps.items() if k in "abu"}
    print(f"  first-step loss: {first}, keras {lk:.6f}")
    if max(first.values()) - min(first.values()) > 1e-4 or abs(first["a"] - lk) > 1e-3:
        print("  WARNING: the models disagree on the first loss", file=sys.stderr)
    for k in range(warmup):
        for key, step in steps.items():
            if k or key not in first:
                step(xs[k], ys[k])
    keras_runs = KerasWindows(keras_model, xs, ys, window)
    keras_runs.warm_up(warmup)
    runs = {
        k: (lambda start, st=st: time_window(st, xs, ys, start, window)) for k, st in steps.items()
    }
    runs["c"] = lambda start: keras_runs()
    print(f"  build + trace + warm-up: {time.perf_counter() - t0:.1f} s")

    times: dict[str, list[tuple[float, float]]] = {k: [] for k in runs}
    order = list(runs)
    for w in range(windows):  # rotate the order so drift and noise hit every model alike
        for key in order[w % len(order) :] + order[: w % len(order)]:
            times[key].append(runs[key](warmup + w * window))

    labels = {
        "b": "b) hand-written TF, while_loop",
        "u": "u) hand-unrolled TF",
        "a": "a) tensorweave (static length: unrolled)",
        "d": "d) tensorweave, dynamic length (while_loop)",
        "a'": "a') tensorweave, per-step autodiff, dynamic",
        "x": "x) tensorweave + XLA (jit_compile)",
        "ux": "ux) hand-unrolled TF + XLA (jit_compile)",
        "c": "c) Keras 3 model.fit",
    }
    print("  median words/s of the windows; paired ratios (median, ±half-range) over windows:")
    figures = {k: summarize(labels[k], words, times[k], times["b"], times["u"]) for k in times}
    a_u = figures["a"]["vs_unrolled"]
    verdict = "met" if a_u[0] >= 0.99 else "NOT met"
    print(f"  goal tensorweave >= 0.99x hand-unrolled (wall): {verdict}")
    if args.json:
        from common import summary_row, write_json

        rows = [
            summary_row(
                "ptb_lstm tensorweave (x hand-unrolled TF)",
                a_u[0],
                0.99,
                higher_is_better=True,
                unit="x",
            ),
            summary_row(
                "ptb_lstm tensorweave, CPU time (x hand-unrolled TF)",
                figures["a"]["cpu_vs_unrolled"],
                0.99,
                higher_is_better=True,
                unit="x",
            ),
            summary_row(
                "ptb_lstm tensorweave (x hand-written while_loop)",
                figures["a"]["vs_loop"][0],
                None,
                unit="x",
            ),
            summary_row(
                "ptb_lstm keras 3 fit (x hand-written while_loop)",
                figures["c"]["vs_loop"][0],
                None,
                unit="x",
            ),
        ]
        if "x" in figures:
            rows += [
                summary_row(
                    "ptb_lstm tensorweave XLA (x hand-unrolled TF)",
                    figures["x"]["vs_unrolled"][0],
                    1.2,
                    higher_is_better=True,
                    unit="x",
                ),
                summary_row(
                    "ptb_lstm tensorweave XLA, CPU time (x hand-unrolled TF)",
                    figures["x"]["cpu_vs_unrolled"],
                    1.2,
                    higher_is_better=True,
                    unit="x",
                ),
                summary_row(
                    "ptb_lstm hand-unrolled XLA (x hand-unrolled TF): XLA's ceiling here",
                    figures["ux"]["vs_unrolled"][0],
                    None,
                    unit="x",
                ),
            ]
        write_json(args.json, {"figures": figures, "summary": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
