"""Training throughput on TensorLayer's benchmark models: tensorweave vs hand-written TF vs Keras 3.

Two of the three published models (the PTB LSTM is in ``bench_ptb_lstm.py``), with
synthetic data of the right shapes:

- **CIFAR-10 CNN** (images/s): conv 5x5x64 - maxpool 3/2 - conv 5x5x64 - maxpool 3/2 -
  dense 384 - dense 192 - dense 10, batch 128, 24x24x3 crops, SGD;
- **word2vec skip-gram with NCE** (words/s): vocabulary 50,000, 128-d embeddings, 64 negative
  samples, batch 128, SGD. Embedding and NCE gradients are ``tf.IndexedSlices``; an optimizer
  that densifies them pays for the whole table every step.

Each framework trains the same model on the same data with the same optimizer: tensorweave
through ``tensorweave-train``'s ``Model.train`` (layers and losses by registered name),
hand-written TensorFlow (variables + GradientTape + ``tf.function``), and Keras 3 ``fit``.
Windows of one epoch alternate between the three, after a warm-up; the figure is the median
throughput and its ratio to hand-written TF.

Fairness: the epoch timed right after a Keras ``fit`` epoch runs ~5% slower, whichever
framework it is (measured: CIFAR CNN 280 vs 267 ms for tensorweave, 284 vs 271 ms for
hand-written TF; a ``gc.collect()`` or an untimed warm-up batch in between does not remove
it). The fixed order tensorweave, hand-written, Keras put tensorweave after Keras in every
window (CNN 0.95x; 0.98-1.01x with hand-written first). So Keras runs first in each window
and the others rotate their order, over a multiple of their number of windows: each of them
follows Keras equally often (alternating two orders did not: with more than two variants,
``Model.train`` followed Keras in half the windows, the hand-written program in none).
``gc.collect()`` runs, untimed, before every epoch.

Run: ``python benchmarks/bench_models.py [--quick] [--only cnn|word2vec] [--json out.json]``
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

import tensorweave as tw

from common import keras_policy, peak_rss_mb, summary_row, variant_peak_rss, write_json

LR = 0.01
BF16 = tf.bfloat16
# TensorLayer's CIFAR-10 CNN has two LRN layers (norm1 after pool1, norm2 before pool2):
# ``lrn=True`` adds them (``bench_precision.py``); its float32 figures are without
LRN = {"depth_radius": 4, "k": 1.0, "alpha": 0.001 / 9.0, "beta": 0.75}
# the same settings in TensorFlow's spelling (``tf.nn.local_response_normalization`` calls k bias)
TF_LRN = {"depth_radius": 4, "bias": 1.0, "alpha": 0.001 / 9.0, "beta": 0.75}


# -- CIFAR-10 CNN -----------------------------------------------------------------------------
def cnn_data(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return (
        rng.standard_normal((n, 24, 24, 3)).astype("float32"),
        rng.integers(0, 10, n).astype("int64"),
    )


def cnn_tensorweave(
    how: str = "train", jit: bool = False, precision: str = "float32", lrn: bool = False
) -> Any:
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
    h = L["Reshape.v1"](h, (-1,))  # flatten each example (6 * 6 * 64)
    h = L["FC.v1"](h, 384, activation="relu")
    h = L["FC.v1"](h, 192, activation="relu")
    logits = L["Linear.v1"](h, 10)
    loss = tw.losses["sparse_categorical_cross_entropy.v1"](y, logits, from_logits=True)
    model = Model(
        inputs=x,
        outputs=logits,
        targets=y,
        loss=loss,
        optimizer=SGD(LR),
        jit_compile=jit or None,
        precision=precision,
    )
    return _tw_epoch(model, ("images", "labels"), how)


class _Terminal(io.StringIO):
    """A terminal that keeps what it is shown: the progress bar draws as on a screen."""

    def isatty(self) -> bool:
        return True


def _tw_epoch(model: Any, names: tuple[str, ...], how: str) -> Any:
    """One epoch of ``model``: ``Model.train`` (``how="train"``; ``"train_silent"``:
    ``verbose=0``; ``"train_logged"``: ``verbose=0`` plus a progress bar drawn on a terminal,
    TensorBoard and a CSV log at their default settings) or a Python loop calling the
    compiled one-step ``Model.train_on_batch`` on each batch (``how="train_step"``)."""
    from tensorweave_train import Progress

    logs = tempfile.mkdtemp(prefix="bench-logs-")
    shown = {
        "train": {},
        "train_silent": {"verbose": 0},
        "train_logged": {
            "verbose": 0,
            "callbacks": [
                Progress(1, file=_Terminal()),
                tw.callbacks["TensorBoard.v1"](log_dir=logs),
                tw.callbacks["CSVLogger.v1"](os.path.join(logs, "log.csv")),
            ],
        },
    }.get(how, {})

    # the display/logging pair: 10 epochs a call, so what they cost once per train call (a
    # TensorBoard writer's flush, the CSV file's sync) is spread as in a real run
    epochs = 10 if how in ("train_silent", "train_logged") else 1

    def train(data: tuple[np.ndarray, ...], batch: int) -> None:
        model.train(dict(zip(names, data)), epochs=epochs, batch_size=batch, shuffle=False, **shown)

    def train_step(data: tuple[np.ndarray, ...], batch: int) -> None:
        for i in range(0, len(data[0]) - batch + 1, batch):
            model.train_on_batch([d[i : i + batch] for d in data])

    return train_step if how == "train_step" else train


def _glorot(shape: list[int]) -> tf.Variable:
    fan_in = int(np.prod(shape[:-1]))
    limit = np.sqrt(6 / (fan_in + shape[-1]))
    return tf.Variable(tf.random.uniform(shape, -limit, limit))


def _low(x: tf.Tensor, bf16: bool) -> tf.Tensor:
    return tf.cast(x, BF16) if bf16 else x


def _lrn(x: tf.Tensor) -> tf.Tensor:
    """LRN in float32 (no bfloat16 kernel), handed back in the dtype it got."""
    return tf.cast(tf.nn.local_response_normalization(tf.cast(x, tf.float32), **TF_LRN), x.dtype)


def cnn_hand_written(jit: bool = False, bf16: bool = False, lrn: bool = False) -> Any:
    """The CNN in plain TensorFlow; ``bf16``: its mixed-bfloat16 twin (float32 variables,
    convolutions and matmuls on bfloat16 casts, LRN and the loss in float32)."""
    shapes = [[5, 5, 3, 64], [5, 5, 64, 64], [6 * 6 * 64, 384], [384, 192], [192, 10]]
    ws = [_glorot(s) for s in shapes]
    bs = [tf.Variable(tf.zeros([s[-1]])) for s in shapes]
    variables = ws + bs

    def forward(x: tf.Tensor) -> tf.Tensor:
        x = _low(x, bf16)
        for i in range(2):
            x = tf.nn.relu(tf.nn.conv2d(x, _low(ws[i], bf16), 1, "SAME") + _low(bs[i], bf16))
            x = _lrn(x) if lrn and i == 1 else x
            x = tf.nn.max_pool2d(x, 3, 2, "SAME")
            x = _lrn(x) if lrn and i == 0 else x
        x = tf.reshape(x, [-1, 6 * 6 * 64])
        x = tf.nn.relu(x @ _low(ws[2], bf16) + _low(bs[2], bf16))
        x = tf.nn.relu(x @ _low(ws[3], bf16) + _low(bs[3], bf16))
        logits = x @ _low(ws[4], bf16) + _low(bs[4], bf16)
        return tf.cast(logits, tf.float32) if bf16 else logits

    @tf.function(
        input_signature=[tf.TensorSpec([None, 24, 24, 3]), tf.TensorSpec([None], tf.int64)],
        jit_compile=jit or None,
    )
    def step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=forward(x))
            )
        for v, g in zip(variables, tape.gradient(loss, variables), strict=True):
            v.assign_sub(LR * g)
        return loss

    return _hand_loop(step)


def _hand_loop(step: Callable[..., Any]) -> Any:
    def epoch(data: tuple[np.ndarray, ...], batch: int) -> None:
        for i in range(0, len(data[0]) - batch + 1, batch):
            step(*(tf.convert_to_tensor(d[i : i + batch]) for d in data))

    return epoch


def cnn_keras(policy: str = "float32", lrn: bool = False) -> Any:
    """The CNN in Keras 3 under the dtype ``policy`` (a mixed one: a float32 linear
    activation last, as Keras's guide says; the LRN a float32 ``Lambda``)."""
    import keras

    def norm() -> list[Any]:
        lrn_layer = keras.layers.Lambda(
            tf.nn.local_response_normalization, arguments=TF_LRN, dtype="float32"
        )
        return [lrn_layer] if lrn else []

    last = [keras.layers.Activation("linear", dtype="float32")] if policy != "float32" else []
    with keras_policy(policy):
        model = keras.Sequential(
            [
                keras.Input((24, 24, 3)),
                keras.layers.Conv2D(64, 5, padding="same", activation="relu"),
                keras.layers.MaxPooling2D(3, 2, padding="same"),
                *norm(),
                keras.layers.Conv2D(64, 5, padding="same", activation="relu"),
                *norm(),
                keras.layers.MaxPooling2D(3, 2, padding="same"),
                keras.layers.Flatten(),
                keras.layers.Dense(384, activation="relu"),
                keras.layers.Dense(192, activation="relu"),
                keras.layers.Dense(10),
                *last,
            ]
        )
    model.compile(
        keras.optimizers.SGD(LR), keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    )

    def epoch(data: tuple[np.ndarray, np.ndarray], batch: int) -> None:
        model.fit(data[0], data[1], batch_size=batch, epochs=1, verbose=0, shuffle=False)

    return epoch


# -- word2vec skip-gram with NCE ----------------------------------------------------------------
VOCAB, DIM, SAMPLED = 50_000, 128, 64


def w2v_data(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    # Zipf-like ids, as word frequencies are
    words = np.minimum(rng.zipf(1.3, n), VOCAB) - 1
    context = np.minimum(rng.zipf(1.3, n), VOCAB) - 1
    return words.astype("int64"), context.astype("int64")[:, None]


def w2v_tensorweave(how: str = "train", jit: bool = False, precision: str = "float32") -> Any:
    from tensorweave_train import SGD, Model

    words = tw.Input(shape=(), dtype="int64", name="words")
    context = tw.Input(shape=(1,), dtype="int64", name="context")
    embedded = tw.layers["Lookup.v1"](words, VOCAB, DIM)
    out_w = tf.Variable(tf.random.normal([VOCAB, DIM], stddev=1 / np.sqrt(DIM)), name="nce_w")
    out_b = tf.Variable(tf.zeros([VOCAB]), name="nce_b")
    loss = tw.losses["nce.v1"](
        context, embedded, weights=out_w, biases=out_b, num_sampled=SAMPLED, num_classes=VOCAB
    )
    model = Model(
        inputs=words,
        outputs=embedded,
        targets=context,
        loss=loss,
        optimizer=SGD(LR),
        jit_compile=jit or None,
        precision=precision,
    )
    return _tw_epoch(model, ("words", "context"), how)


def w2v_hand_written() -> Any:
    table = tf.Variable(tf.random.uniform([VOCAB, DIM], -1.0, 1.0))
    out_w = tf.Variable(tf.random.normal([VOCAB, DIM], stddev=1 / np.sqrt(DIM)))
    out_b = tf.Variable(tf.zeros([VOCAB]))
    variables = [table, out_w, out_b]

    @tf.function(
        input_signature=[tf.TensorSpec([None], tf.int64), tf.TensorSpec([None, 1], tf.int64)]
    )
    def step(words: tf.Tensor, context: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            embedded = tf.nn.embedding_lookup(table, words)
            loss = tf.reduce_mean(tf.nn.nce_loss(out_w, out_b, context, embedded, SAMPLED, VOCAB))
        for v, g in zip(variables, tape.gradient(loss, variables), strict=True):
            if isinstance(g, tf.IndexedSlices):
                v.scatter_sub(tf.IndexedSlices(LR * g.values, g.indices))
            else:
                v.assign_sub(LR * g)
        return loss

    return _hand_loop(step)


def w2v_keras() -> Any:
    import keras

    class _NCE(keras.layers.Layer):
        """Keras has no NCE layer: a layer that owns the output embedding and returns the loss."""

        def build(self, input_shape: Any) -> None:
            self.w = self.add_weight(shape=(VOCAB, DIM), initializer="random_normal")
            self.b = self.add_weight(shape=(VOCAB,), initializer="zeros")

        def call(self, inputs: Any) -> Any:
            embedded, context = inputs
            return tf.nn.nce_loss(self.w, self.b, context, embedded, SAMPLED, VOCAB)

    words = keras.Input((), dtype="int64")
    context = keras.Input((1,), dtype="int64")
    embedded = keras.layers.Embedding(VOCAB, DIM)(words)
    per_example = _NCE(dtype="float32")([embedded, context])  # float32 under mixed policies
    model = keras.Model([words, context], per_example)
    model.compile(keras.optimizers.SGD(LR), loss=lambda _, y_pred: tf.reduce_mean(y_pred))

    def epoch(data: tuple[np.ndarray, np.ndarray], batch: int) -> None:
        dummy = np.zeros(len(data[0]), "float32")
        model.fit(list(data), dummy, batch_size=batch, epochs=1, verbose=0, shuffle=False)

    return epoch


# -- measurement ----------------------------------------------------------------------------------
HAND, KERAS, HAND_XLA = "hand-written TF", "keras 3 fit", "hand-written TF XLA"
SILENT, LOGGED = "tw Model.train silent", "tw Model.train bar+logs"


def variants(model: str, full: bool) -> dict[str, Callable[[], Any]]:
    """The programs timed for ``model`` (``cnn`` or ``word2vec``), by label."""
    tw_build, hand, keras_fit = {
        "cnn": (cnn_tensorweave, cnn_hand_written, cnn_keras),
        "word2vec": (w2v_tensorweave, w2v_hand_written, w2v_keras),
    }[model]
    out: dict[str, Callable[[], Any]] = {
        "tw Model.train": tw_build,
        "tw Model.train_step": lambda: tw_build("train_step"),
        HAND: hand,
        KERAS: keras_fit,
    }
    if full:  # what display and logging at their defaults cost (goal: at most 1%)
        out[SILENT] = lambda: tw_build("train_silent")
        out[LOGGED] = lambda: tw_build("train_logged")
    if full and model == "cnn":  # XLA cannot compile word2vec's NCE sampler (a host op)
        out["tw Model.train XLA"] = lambda: tw_build("train", jit=True)
        # XLA's ceiling on this machine: the hand-written program compiled by XLA
        out[HAND_XLA] = lambda: cnn_hand_written(jit=True)
    return out


def measure(
    name: str,
    builders: dict[str, Callable[[], Any]],
    data: tuple[np.ndarray, ...],
    batch: int,
    windows: int,
) -> dict[str, Any]:
    """Median examples/s per variant over ``windows`` interleaved epochs, and paired ratios
    (each window's rate over the hand-written program's rate in the same window)."""
    tf.random.set_seed(0)
    epochs = {k: build() for k, build in builders.items()}
    warm = tuple(d[: batch * 2] for d in data)
    for run in epochs.values():
        run(warm, batch)  # trace and warm up
    n = (len(data[0]) // batch) * batch
    times: dict[str, list[float]] = {k: [] for k in epochs}
    cpu: dict[str, list[float]] = {k: [] for k in epochs}  # process CPU time, same windows
    # Keras first (the epoch after it is slower), then the others in rotating order, over a
    # multiple of their number of windows: each of them follows Keras equally often
    others = [k for k in epochs if k != KERAS]
    first = [k for k in epochs if k == KERAS]
    windows = -(-windows // len(others)) * len(others)
    for w in range(windows):
        for k in first + others[w % len(others) :] + others[: w % len(others)]:
            gc.collect()
            start, start_cpu = time.perf_counter(), time.process_time()
            epochs[k](data, batch)
            times[k].append(time.perf_counter() - start)
            cpu[k].append(time.process_time() - start_cpu)
    out: dict[str, Any] = {}
    for k, ts in times.items():
        rates = [n / t for t in ts]
        paired = [b / t for t, b in zip(ts, times[HAND], strict=True)]
        out[k] = {
            "per_s": statistics.median(rates),
            "ratio": statistics.median(paired),
            "ratio_spread": (max(paired) - min(paired)) / 2,
        }
    if SILENT in times:  # on CPU time: a cost of ~1% drowns in the wall clock's noise
        paired = [s / t for t, s in zip(cpu[LOGGED], cpu[SILENT], strict=True)]
        out["logged_over_silent"] = {
            "ratio": statistics.median(paired),
            "ratio_spread": (max(paired) - min(paired)) / 2,
        }
    if "tw Model.train_step" in times:
        steps = times["tw Model.train_step"]
        paired = [s / t for t, s in zip(times["tw Model.train"], steps, strict=True)]
        out["train_over_train_step"] = {
            "ratio": statistics.median(paired),
            "ratio_spread": (max(paired) - min(paired)) / 2,
        }
    return out


def report(name: str, res: dict[str, Any], memory: dict[str, float]) -> None:
    for k, r in res.items():
        if k in ("train_over_train_step", "logged_over_silent", SILENT, LOGGED):
            continue  # the silent/logged pair: 10 epochs a window, only their ratio shown
        mem = f"{memory[k]:7.0f} MB" if k in memory else " " * 10
        print(
            f"{name:9s} {k:22s} {r['per_s']:9.0f}/s  {r['ratio']:5.3f}x hand-written "
            f"(±{r['ratio_spread']:.3f})  peak RSS {mem}",
            flush=True,
        )
    t = res["train_over_train_step"]
    print(f"{name:9s} Model.train / Model.train_step: {t['ratio']:.3f}x (±{t['ratio_spread']:.3f})")
    if "logged_over_silent" in res:
        t = res["logged_over_silent"]
        print(
            f"{name:9s} bar + TensorBoard + CSV / verbose=0, CPU time: {t['ratio']:.3f}x "
            f"(±{t['ratio_spread']:.3f})"
        )


def one_variant(spec: str, quick: bool) -> None:
    """``--memory-of model:label``: train that one variant alone (this process's peak RSS
    then is its own) and print the peak in MB."""
    model, label = spec.split(":", 1)
    data, batch = DATA[model](quick)
    run = variants(model, True)[label]()
    for _ in range(2):
        run(data, batch)
    print(f"{peak_rss_mb():.1f}")


DATA: dict[str, Callable[[bool], tuple[tuple[np.ndarray, ...], int]]] = {
    "cnn": lambda quick: (cnn_data(128 * (4 if quick else 12)), 128),
    "word2vec": lambda quick: (w2v_data(128 * (40 if quick else 200)), 128),
}


def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["cnn", "word2vec"])
    parser.add_argument("--json")
    parser.add_argument("--memory-of", help="internal: one variant's peak RSS (model:label)")
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-RSS runs")
    args = parser.parse_args()
    if args.memory_of:
        one_variant(args.memory_of, args.quick)
        return {}
    windows = 3 if args.quick else 8  # rounded up to a multiple of the rotating variants
    results: dict[str, Any] = {}
    summary = []
    for model in ("cnn", "word2vec"):
        if args.only not in (None, model):
            continue
        data, batch = DATA[model](args.quick)
        labels = variants(model, not args.quick)
        res = measure(model, labels, data, batch, windows)
        # peak memory: each variant alone in a subprocess (~15-25 s each: not with --quick)
        measured = [k for k in labels if k not in (SILENT, LOGGED)]
        wanted = [] if args.no_memory or args.quick else measured
        memory = {k: variant_peak_rss(__file__, f"{model}:{k}", args.quick) for k in wanted}
        for k, mb in memory.items():
            res[k]["peak_rss_mb"] = mb
        report(model, res, memory)
        results[model] = res
        for k in measured:
            if k == HAND:
                continue
            goal = {"tw Model.train": 0.99, "tw Model.train XLA": 1.2}.get(k)
            summary.append(
                summary_row(
                    f"{model} {k} (x hand-written TF)",
                    res[k]["ratio"],
                    goal,
                    higher_is_better=True,
                    unit="x",
                )
            )
        t = res["train_over_train_step"]["ratio"]
        summary.append(
            summary_row(
                f"{model} Model.train (x Model.train_step)",
                t,
                0.97,
                higher_is_better=True,
                unit="x",
            )
        )
        if "logged_over_silent" in res:
            summary.append(
                summary_row(
                    f"{model} Model.train bar+TensorBoard+CSV, CPU (x verbose=0)",
                    res["logged_over_silent"]["ratio"],
                    0.99,
                    higher_is_better=True,
                    unit="x",
                )
            )
        if HAND in memory and "tw Model.train" in memory:
            summary.append(
                summary_row(
                    f"{model} peak RSS Model.train (x hand-written TF)",
                    memory["tw Model.train"] / memory[HAND],
                    1.05,
                    unit="x",
                )
            )
    write_json(args.json, {**results, "summary": summary})
    return results


if __name__ == "__main__":
    main()
