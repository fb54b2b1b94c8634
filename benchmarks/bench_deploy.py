"""Models out (issue 40): inference latency and throughput of every way a trained model runs,
and ``tensorweave serve`` against its backend called directly.

For two models, the digits CNN (``examples/cnn_digits/cnn_digits.toml``, trained a few
epochs here) and TensorLayer's CIFAR-10 CNN (``bench_models.py``'s layer stack, 24x24x3,
trained one short epoch on synthetic arrays: its figures are speed, not accuracy):

- batch-1 latency (p50, p99) and batch-64 throughput (rows/s) of: Keras 3 ``predict`` and
  ``model(x)`` (the same architecture in Keras), tensorweave ``predict`` (the run's
  ``Predictor``: pre-processing, ``Model.predict``, post-processing), the SavedModel's
  ``serving_default`` signature (``tensorweave export``), ONNX Runtime float32, LiteRT
  float32 and int8. The last three come from the ``exporters`` kind by name (``onnx``,
  ``litert``: ``tensorweave export RUN --format NAME``) when a pack registers them; without
  one the script prints a note and goes on. Variants take turns call window by call window
  (rotating order) over ``--rounds`` rounds; a variant's ratio to the SavedModel signature
  is paired (its batch-1 p50 over the signature's in the same round), reported as the
  median and range of the rounds' ratios;
- ``tensorweave serve`` (a real process on a free localhost port, serving the exported
  SavedModel): one client in sequence (p50/p99, and the difference to the signature called
  directly with the run's steps: goal <= 1 ms at p50), then ``--clients`` concurrent clients
  (requests/s, p50/p99) against the backend called from as many threads;
- int8 accuracy against float32 on the digits validation split (goal: within 1 point), and
  the model files' sizes.

Run: ``python benchmarks/bench_deploy.py [--quick] [--only digits cifar] [--rounds N]
[--calls N] [--batch-calls N] [--clients N] [--requests N] [--epochs N] [--json out.json]``.
``--quick`` trains one epoch on little data and takes few calls (a smoke run: its figures
mean little). Run it on a quiet machine: the serving part starts a server process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np

from common import summary_row, write_json

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DIGITS_CONFIG = ROOT / "examples" / "cnn_digits" / "cnn_digits.toml"

CIFAR_CONFIG = """
[run]
name = "cifar-cnn"

[data]
"@datasets" = "arrays.v1"
path = "{data}"
valid_fraction = 0.2

[model]
inputs = ["x"]
targets = ["y"]
outputs = ["logits"]
loss = "loss"

[model.nodes]
x = {{ input = [24, 24, 3] }}
y = {{ input = [], dtype = "int64" }}
conv1 = {{ "@layers" = "Conv2D.v1", inputs = ["x"], n_units = 64, kernel_size = 5, padding = "same", activation = "relu" }}
pool1 = {{ "@layers" = "MaxPool2D.v1", inputs = ["conv1"], pool_size = 3, strides = 2, padding = "same" }}
conv2 = {{ "@layers" = "Conv2D.v1", inputs = ["pool1"], n_units = 64, kernel_size = 5, padding = "same", activation = "relu" }}
pool2 = {{ "@layers" = "MaxPool2D.v1", inputs = ["conv2"], pool_size = 3, strides = 2, padding = "same" }}
flat = {{ "@layers" = "Reshape.v1", inputs = ["pool2"], shape = [-1] }}
fc1 = {{ "@layers" = "FC.v1", inputs = ["flat"], n_units = 384, activation = "relu" }}
fc2 = {{ "@layers" = "FC.v1", inputs = ["fc1"], n_units = 192, activation = "relu" }}
logits = {{ "@layers" = "Linear.v1", inputs = ["fc2"], n_units = 10 }}
loss = {{ "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["y", "logits"], from_logits = true }}

[optimizer]
"@optimizers" = "SGD.v1"
learning_rate = 0.01

[train]
epochs = 1
batch_size = 64
seed = 0
"""


# -- the models ---------------------------------------------------------------------------------
def train_run(name: str, work: Path, args: argparse.Namespace) -> Path:
    """A trained run of ``name`` (``digits`` or ``cifar``) in ``work``."""
    import tensorweave_train as twt

    run = work / f"{name}-run"
    if name == "digits":
        overrides = [f"--train.epochs={args.epochs}"] + (["--data.limit=400"] if args.quick else [])
        config = twt.load_config(str(DIGITS_CONFIG), overrides)
    else:
        rng = np.random.default_rng(0)
        n = 128 if args.quick else 512
        data = work / "cifar.npz"
        np.savez(
            data,
            x=rng.standard_normal((n, 24, 24, 3)).astype("float32"),
            y=rng.integers(0, 10, n).astype("int64"),
        )
        path = work / "cifar.toml"
        path.write_text(CIFAR_CONFIG.format(data=data))
        config = twt.load_config(str(path))
    twt.train_job(config, run_dir=run, out=None)
    return run


def keras_model(name: str) -> Any:
    """The same architecture in Keras 3 (untrained: only its speed is measured)."""
    import keras

    L = keras.layers
    if name == "digits":
        layers = [
            keras.Input((8, 8, 1)),
            L.Conv2D(32, 3, padding="same", activation="relu"),
            L.Conv2D(32, 3, padding="same", activation="relu"),
            L.MaxPooling2D(2),
            L.Conv2D(64, 3, padding="same", activation="relu"),
            L.GlobalAveragePooling2D(),
            L.Dropout(0.25),
            L.Dense(10, activation="softmax"),
        ]
    else:
        layers = [
            keras.Input((24, 24, 3)),
            L.Conv2D(64, 5, padding="same", activation="relu"),
            L.MaxPooling2D(3, 2, padding="same"),
            L.Conv2D(64, 5, padding="same", activation="relu"),
            L.MaxPooling2D(3, 2, padding="same"),
            L.Flatten(),
            L.Dense(384, activation="relu"),
            L.Dense(192, activation="relu"),
            L.Dense(10),
        ]
    return keras.Sequential(layers)


def raw_examples(name: str, run: Path, n: int) -> tuple[np.ndarray, np.ndarray | None]:
    """``n`` raw examples the run takes (digits: the validation split's pixels 0..16, with
    their labels), as ``tensorweave predict --input`` takes them."""
    import tensorweave_train as twt

    if name == "digits":
        job = twt.Run(run).job()
        valid = job.split("valid")
        batches = list(valid) if not isinstance(valid, dict) else [valid]
        xs = np.concatenate([np.asarray(b["x"]) for b in batches])
        ys = np.concatenate([np.asarray(b["y"]) for b in batches])
        # the split holds normalised [8, 8, 1] images (the run's normalize.v1, std 16, then
        # reshape.v1): raw input is 64 pixel values 0..16 per image, as the predictor takes it
        raw = xs.reshape(len(xs), -1) * 16.0
        return raw.astype("float32"), ys
    rng = np.random.default_rng(1)
    return rng.standard_normal((n, 24, 24, 3)).astype("float32"), None


def steps(blocks: list[Any]) -> Callable[[Any], Any]:
    """A run's saved steps as one function (the data pack's ``Pipeline.v1``, by name), as
    ``tensorweave predict`` and ``tensorweave serve`` run them."""
    import tensorweave as tw

    if not blocks:
        return lambda value: value
    return tw.resolve("pipelines", "Pipeline.v1")(list(blocks), workers=0)  # type: ignore[no-any-return]


# -- the exported formats -----------------------------------------------------------------------
def exporter_installed(fmt: str) -> str | None:
    """``None`` when the ``fmt`` exporter is registered, else why not."""
    import tensorweave as tw

    try:
        tw.resolve("exporters", fmt, owner="bench_deploy")
    except tw.TensorweaveError as err:
        return str(err).splitlines()[0]
    return None


def export_with(run: Path, fmt: str, out: Path, *extra: str) -> Path | None:
    """``tensorweave export RUN --format FMT -o OUT [EXTRA]``, in this process; the file it
    wrote (``*.onnx``, ``*.tflite``), or ``None`` with a printed note."""
    from tensorweave.cli import main as cli_main

    why = exporter_installed(fmt)
    if why is not None:
        print(f"  note: no {fmt} exporter installed, skipped ({why})")
        return None
    code = cli_main(["export", str(run), "--format", fmt, "-o", str(out), *extra])
    found = [p for p in out.rglob("*") if p.suffix in (".onnx", ".tflite")] if out.exists() else []
    if code != 0 or not found:
        print(
            f"  note: tensorweave export --format {fmt} {' '.join(extra)} failed (exit {code}); skipped"
        )
        return None
    return found[0]


def takes_raw(artifact: Path) -> bool:
    """Whether an export takes raw input (its pre-processing inside the graph): unless its
    ``model.json`` lists the run's normalisation among the steps left outside."""
    meta = artifact.parent / "model.json"
    if not meta.is_file():
        return False
    try:
        info = json.loads(meta.read_text())
    except ValueError:
        return False
    return "normalize" not in json.dumps(info.get("outside", []))


def onnx_runner(path: Path) -> Callable[[np.ndarray], Any] | None:
    try:
        import onnxruntime as ort
    except ImportError:
        print("  note: onnxruntime not installed (pip install 'tensorweave-deploy[onnx]'); skipped")
        return None
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    return lambda x: session.run(None, {name: x})[0]


def litert_runner(path: Path) -> Callable[[np.ndarray], Any]:
    """A LiteRT interpreter of ``path`` (``ai_edge_litert``, else ``tf.lite``), resized to
    each batch size it meets; int8 inputs and outputs (de)quantised as their details say."""
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        import tensorflow as tf

        Interpreter = tf.lite.Interpreter
    interpreters: dict[tuple[int, ...], Any] = {}

    def run(x: np.ndarray) -> Any:
        it = interpreters.get(x.shape)
        if it is None:
            it = Interpreter(model_path=str(path))
            it.resize_tensor_input(it.get_input_details()[0]["index"], list(x.shape))
            it.allocate_tensors()
            interpreters[x.shape] = it
        inp, out = it.get_input_details()[0], it.get_output_details()[0]
        value = x
        if inp["dtype"] in (np.int8, np.uint8):
            scale, zero = inp["quantization"]
            value = np.round(x / scale + zero).astype(inp["dtype"])
        it.set_tensor(inp["index"], value.astype(inp["dtype"], copy=False))
        it.invoke()
        y = it.get_tensor(out["index"])
        if out["dtype"] in (np.int8, np.uint8):
            scale, zero = out["quantization"]
            y = (y.astype("float32") - zero) * scale
        return y

    return run


def size_mb(path: Path) -> float:
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 1e6


# -- timing -------------------------------------------------------------------------------------
def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def time_variants(
    variants: dict[str, tuple[Callable[[np.ndarray], Any], np.ndarray]],
    args: argparse.Namespace,
) -> dict[str, dict[str, Any]]:
    """Batch-1 latencies and batch-64 throughput of each variant, in rounds of call windows
    taking turns (rotating order); per-round batch-1 p50, for paired ratios."""
    names = list(variants)
    for fn, x in variants.values():  # warm-up: tracing, allocation
        for _ in range(3):
            fn(x[:1])
            fn(x[: args.batch])
    lat: dict[str, list[float]] = {n: [] for n in names}
    p50s: dict[str, list[float]] = {n: [] for n in names}
    rates: dict[str, list[float]] = {n: [] for n in names}
    for r in range(args.rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            fn, x = variants[name]
            this = []
            for k in range(args.calls):
                one = x[k % len(x) : k % len(x) + 1]
                t0 = time.perf_counter()
                fn(one)
                this.append(time.perf_counter() - t0)
            lat[name] += this
            p50s[name].append(statistics.median(this))
            batch = x[: args.batch]
            t0 = time.perf_counter()
            for _ in range(args.batch_calls):
                fn(batch)
            rates[name].append(args.batch * args.batch_calls / (time.perf_counter() - t0))
    return {
        n: {
            "p50_ms": percentile(lat[n], 50) * 1e3,
            "p99_ms": percentile(lat[n], 99) * 1e3,
            "rows_per_s": statistics.median(rates[n]),
            "round_p50s": p50s[n],
        }
        for n in names
    }


def paired_ratio(a: list[float], b: list[float]) -> tuple[float, float, float]:
    """The median of the per-round ratios ``a/b`` and their range."""
    ratios = [x / y for x, y in zip(a, b) if y > 0]
    return statistics.median(ratios), min(ratios), max(ratios)


# -- the server ---------------------------------------------------------------------------------
class Served:
    """``tensorweave serve EXPORT`` on a free localhost port."""

    def __init__(self, export: Path, name: str, log: Path) -> None:
        exe = Path(sys.executable).with_name("tensorweave")
        command = [str(exe)] if exe.exists() else [sys.executable, "-m", "tensorweave"]
        self.log = log
        with log.open("w") as stderr:
            self.proc = subprocess.Popen(
                [*command, "serve", str(export), "--port", "0", "--name", name],
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if not found:
            raise RuntimeError(f"tensorweave serve did not start: {line!r}\n{log.read_text()}")
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()
        self.url = f"http://127.0.0.1:{found[1]}/v1/models/{name}:predict"

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)


def serve_figures(
    export: Path,
    name: str,
    raw: np.ndarray,
    direct: Callable[[np.ndarray], Any],
    args: argparse.Namespace,
) -> dict[str, Any]:
    """The server under one client and ``args.clients`` clients, against ``direct`` (the
    backend with the run's steps, called in this process) under as many threads.

    Each client is the standard library's ``http.client`` on one kept-alive connection, the
    leanest Python client, so that the figures are the server's: httpx, measured the same
    way, adds about 0.5 ms of its own per request (``--client httpx``)."""
    import http.client
    import urllib.parse

    server = Served(export, name, export.parent / f"{name}-serve.log")
    bodies = [json.dumps({"instances": raw[k : k + 1].tolist()}).encode() for k in range(len(raw))]
    headers = {"content-type": "application/json"}
    url = urllib.parse.urlsplit(server.url)

    def client(k: int, n: int, out: list[float]) -> None:
        if args.client == "httpx":
            import httpx

            with httpx.Client(timeout=60) as c:
                for i in range(n):
                    body = bodies[(k * n + i) % len(bodies)]
                    t0 = time.perf_counter()
                    r = c.post(server.url, content=body, headers=headers)
                    out.append(time.perf_counter() - t0)
                    assert r.status_code == 200, r.text
            return
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        try:
            for i in range(n):
                body = bodies[(k * n + i) % len(bodies)]
                t0 = time.perf_counter()
                conn.request("POST", url.path, body, headers)
                answer = conn.getresponse()
                text = answer.read()
                out.append(time.perf_counter() - t0)
                assert answer.status == 200, text
        finally:
            conn.close()

    def local(k: int, n: int, out: list[float]) -> None:
        for i in range(n):
            x = raw[(k * n + i) % len(raw) :][:1]
            t0 = time.perf_counter()
            direct(x)
            out.append(time.perf_counter() - t0)

    def load(
        fn: Callable[[int, int, list[float]], None], clients: int, n: int
    ) -> tuple[float, list[float]]:
        lists: list[list[float]] = [[] for _ in range(clients)]
        t0 = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(lambda k: fn(k, n, lists[k]), range(clients)))
        return clients * n / (time.perf_counter() - t0), [v for lst in lists for v in lst]

    try:
        load(client, 1, 20), load(local, 1, 20)  # warm-up
        figures: dict[str, dict[str, list[float]]] = {}
        for r in range(args.rounds):
            plan = [("serve x1", client, 1), ("direct x1", local, 1)]
            plan += [
                (f"serve x{args.clients}", client, args.clients),
                (f"direct x{args.clients}", local, args.clients),
            ]
            for label, fn, clients in plan if r % 2 == 0 else plan[::-1]:
                rate, lat = load(fn, clients, args.requests)
                slot = figures.setdefault(label, {"rates": [], "lat": [], "p50s": []})
                slot["rates"].append(rate)
                slot["lat"] += lat
                slot["p50s"].append(statistics.median(lat))
    finally:
        code = server.stop()
    out: dict[str, Any] = {"exit_code_after_sigterm": code}
    for label, slot in figures.items():
        out[label] = {
            "requests_per_s": statistics.median(slot["rates"]),
            "p50_ms": percentile(slot["lat"], 50) * 1e3,
            "p99_ms": percentile(slot["lat"], 99) * 1e3,
        }
    diffs = [
        (a - b) * 1e3 for a, b in zip(figures["serve x1"]["p50s"], figures["direct x1"]["p50s"])
    ]
    out["p50_overhead_ms"] = statistics.median(diffs)
    return out


# -- one model ----------------------------------------------------------------------------------
def bench_model(
    name: str, work: Path, args: argparse.Namespace
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    import tensorflow as tf

    import tensorweave_train as twt

    print(f"\n== {name}: training a run", flush=True)
    run = train_run(name, work, args)
    raw, labels = raw_examples(name, run, 256)
    runner = twt.Run(run)
    processors = runner.processors
    model = runner.model()
    predictor = twt.Predictor(model, processors.preprocess, processors.postprocess)
    pre, post = steps(processors.preprocess), steps(processors.postprocess)
    fed = np.asarray(pre(raw), dtype="float32")  # the model's input

    export = runner.export(work / f"{name}-savedmodel")
    loaded = tf.saved_model.load(str(export / "model"))
    signature = loaded.signatures["serving_default"]
    input_name = next(iter(signature.structured_input_signature[1]))
    kmodel = keras_model(name)

    variants: dict[str, tuple[Callable[[np.ndarray], Any], np.ndarray]] = {
        "Keras predict": (lambda x: kmodel.predict(x, verbose=0), fed),
        "Keras model(x)": (lambda x: kmodel(x, training=False), fed),
        "tensorweave predict": (predictor, raw),
        "SavedModel signature": (lambda x: signature(**{input_name: tf.constant(x)}), fed),
    }
    sizes = {"SavedModel": size_mb(export / "model")}
    artifacts: dict[str, Path] = {}
    print(f"== {name}: exporting", flush=True)
    onnx = export_with(run, "onnx", work / f"{name}-onnx")
    if onnx is not None:
        fn = onnx_runner(onnx)
        if fn is not None:
            variants["ONNX Runtime fp32"] = (fn, raw if takes_raw(onnx) else fed)
            artifacts["ONNX fp32"] = onnx
    for label, extra in (("LiteRT fp32", ()), ("LiteRT int8", ("--quantize", "int8"))):
        tfl = export_with(run, "litert", work / f"{name}-{label.split()[1]}", *extra)
        if tfl is not None:
            variants[label] = (litert_runner(tfl), raw if takes_raw(tfl) else fed)
            artifacts[label] = tfl
    sizes.update({k: size_mb(v) for k, v in artifacts.items()})

    print(f"== {name}: timing {len(variants)} variants, {args.rounds} rounds", flush=True)
    timed = time_variants(variants, args)
    base = timed["SavedModel signature"]["round_p50s"]
    print(f"\n{name}: batch-1 latency and batch-{args.batch} throughput")
    print(
        f"{'variant':22s} {'p50 ms':>8s} {'p99 ms':>8s} {'rows/s':>9s} {'p50 / signature (range)':>26s}"
    )
    summary = []
    for label, t in timed.items():
        ratio, lo, hi = paired_ratio(t["round_p50s"], base)
        t["p50_ratio_to_signature"] = [ratio, lo, hi]
        print(
            f"{label:22s} {t['p50_ms']:8.3f} {t['p99_ms']:8.3f} {t['rows_per_s']:9.0f} {ratio:10.2f}x ({lo:.2f}-{hi:.2f})"
        )
    exported = [k for k in timed if k.startswith(("ONNX", "LiteRT"))]
    if exported:
        best = min(exported, key=lambda k: timed[k]["p50_ratio_to_signature"][0])
        speedup = 1 / timed[best]["p50_ratio_to_signature"][0]
        summary.append(
            summary_row(
                f"{name}: fastest export ({best}) batch-1 speed-up over the SavedModel signature",
                speedup,
                2.0,
                higher_is_better=True,
                unit="x",
            )
        )

    accuracy: dict[str, float] = {}
    if labels is not None:
        for label in ("LiteRT fp32", "LiteRT int8"):
            if label in variants:
                fn, x = variants[label]
                scores = np.concatenate([np.asarray(fn(x[i : i + 1])) for i in range(len(x))])
                accuracy[label] = float((scores.argmax(-1) == labels).mean())
        if len(accuracy) == 2:
            drop = (accuracy["LiteRT fp32"] - accuracy["LiteRT int8"]) * 100
            print(
                f"int8 accuracy {accuracy['LiteRT int8']:.4f} vs float32 {accuracy['LiteRT fp32']:.4f}: {drop:+.2f} points"
            )
            summary.append(
                summary_row(f"{name}: int8 accuracy loss vs float32", drop, 1.0, unit="points")
            )

    print(
        f"\n{name}: tensorweave serve ({args.clients} clients x {args.requests} requests, {args.rounds} rounds)"
    )

    def direct(x: np.ndarray) -> Any:
        return post(signature(**{input_name: tf.constant(pre(x))})["output_0"].numpy())

    served = serve_figures(export, name, raw, direct, args)
    for label in ("serve x1", "direct x1", f"serve x{args.clients}", f"direct x{args.clients}"):
        f = served[label]
        print(
            f"{label:14s} {f['requests_per_s']:9.0f} req/s  p50 {f['p50_ms']:7.3f} ms  p99 {f['p99_ms']:7.3f} ms"
        )
    print(
        f"server p50 overhead over its backend (one client): {served['p50_overhead_ms']:.3f} ms; exit code after SIGTERM {served['exit_code_after_sigterm']}"
    )
    summary.append(
        summary_row(
            f"{name}: serve p50 - backend p50 (one client)",
            served["p50_overhead_ms"],
            1.0,
            unit="ms",
        )
    )

    print(f"\n{name}: model files")
    for label, mb in sizes.items():
        print(f"{label:14s} {mb:8.3f} MB")
    for t in timed.values():
        t.pop("round_p50s")
    return {"latency": timed, "serve": served, "sizes_mb": sizes, "accuracy": accuracy}, summary


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a smoke run: little data, few calls")
    p.add_argument("--only", nargs="+", choices=["digits", "cifar"], default=["digits", "cifar"])
    p.add_argument("--rounds", type=int, help="interleaved rounds (default 6; quick 2)")
    p.add_argument(
        "--calls", type=int, help="batch-1 calls per variant per round (default 200; quick 20)"
    )
    p.add_argument("--batch", type=int, default=64, help="the throughput batch size")
    p.add_argument(
        "--batch-calls", type=int, help="batch calls per variant per round (default 20; quick 3)"
    )
    p.add_argument("--clients", type=int, default=8, help="concurrent clients of the server")
    p.add_argument(
        "--client",
        choices=["http.client", "httpx"],
        default="http.client",
        help="the HTTP client the serving figures are taken with (default http.client)",
    )
    p.add_argument(
        "--requests", type=int, help="requests per client per round (default 100; quick 10)"
    )
    p.add_argument("--epochs", type=int, help="digits training epochs (default 5; quick 1)")
    p.add_argument("--json", help="write the figures and summary rows here")
    args = p.parse_args()
    quick = args.quick
    for key, full, small in (
        ("rounds", 6, 2),
        ("calls", 200, 20),
        ("batch_calls", 20, 3),
        ("requests", 100, 10),
        ("epochs", 5, 1),
    ):
        if getattr(args, key) is None:
            setattr(args, key, small if quick else full)
    work = Path(tempfile.mkdtemp(prefix="bench-deploy-"))
    results: dict[str, Any] = {"settings": {k: v for k, v in vars(args).items() if k != "json"}}
    summary: list[dict[str, Any]] = []
    try:
        for name in args.only:
            results[name], rows = bench_model(name, work, args)
            summary += rows
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["summary"] = summary
    write_json(args.json, results)


if __name__ == "__main__":
    main()
