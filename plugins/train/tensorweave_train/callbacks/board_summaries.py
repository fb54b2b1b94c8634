"""What ``TensorBoard.v1`` writes besides scalars, without the ``tensorboard`` package:
weight histograms (the histograms plugin's ``[k, 3]`` buckets), the HParams plugin's
session summary (its protocol buffer, encoded here), the hyperparameters of a run (the
flattened scalars of its filled config) and the profiler's window of batches.

>>> flat_scalars({"optimizer": {"@optimizers": "Adam.v1", "learning_rate": 0.01,
...               "@provider": "tensorweave-train 0.1.0"}, "model": {"inputs": ["x"]},
...               "@versions": {"tensorflow": "2.21.0"}})
{'optimizer.@optimizers': 'Adam.v1', 'optimizer.learning_rate': 0.01}
>>> histogram_buckets([0.0, 1.0, 1.0], buckets=2).tolist()
[[0.0, 0.5, 1.0], [0.5, 1.0, 2.0]]
>>> profile_window((10, 20)), profile_window(5), profile_window(0), profile_window("3,4")
((10, 20), (5, 5), None, (3, 4))
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_train.runs.marker import CONFIG_FILE, MARKER

__all__ = [
    "HPARAMS_TAG",
    "flat_scalars",
    "histogram_buckets",
    "hparams_plugin_data",
    "profile_window",
    "run_config_near",
    "write_histogram",
    "write_hparams",
]

_STAMPS = ("@provider", "@versions")  # what filled the config, not a setting
HPARAMS_TAG = "_hparams_/session_start_info"  # the tag the HParams plugin reads
_HISTOGRAM_META = tf.compat.v1.SummaryMetadata(
    plugin_data=tf.compat.v1.SummaryMetadata.PluginData(plugin_name="histograms"),
).SerializeToString()


def profile_window(profile_batch: Any) -> tuple[int, int] | None:
    """Keras's ``profile_batch``: ``0`` (off), one batch ``N``, a pair ``(start, stop)``
    (batches numbered from 1 over the whole training, both included) or ``"start,stop"``;
    ``None`` when off. Anything else is a ``tw.ArgumentError`` saying what to write."""
    value = profile_batch
    if isinstance(value, str):
        try:
            value = [int(p) for p in value.split(",")]
        except ValueError:
            pass
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
    if value is None or value is False or (type(value) is int and value == 0):
        return None
    if type(value) is int and value > 0:
        return value, value
    if (
        isinstance(value, Sequence)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        and 0 < value[0] <= value[1]
    ):
        return int(value[0]), int(value[1])
    raise tw.ArgumentError(
        f"TensorBoard: profile_batch must be 0 (off), a batch number or a pair (start, stop) "
        f"of batch numbers from 1 with start <= stop, got {profile_batch!r}. Fix: e.g. "
        "profile_batch = [10, 20] (batches 10 to 20 of the training)."
    )


def flat_scalars(tree: Any, prefix: str = "") -> dict[str, Any]:
    """The scalar settings of a nested config as ``{"a.b": value}``: numbers, booleans and
    strings (lists, nulls and the ``@provider``/``@versions`` stamps of a filled config left
    out), in the config's order."""
    out: dict[str, Any] = {}
    if not isinstance(tree, Mapping):
        return out
    for key, value in tree.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if key in _STAMPS:
            continue
        if isinstance(value, Mapping):
            out.update(flat_scalars(value, path))
        elif isinstance(value, (bool, int, float, str)):
            if isinstance(value, float) and not math.isfinite(value):
                continue  # the HParams plugin takes finite numbers
            out[path] = value
    return out


def run_config_near(log_dir: str | Path) -> tuple[Path, dict[str, Any]] | None:
    """The run directory holding ``log_dir`` (``log_dir`` itself or one of its parents with
    ``config.json`` and tensorweave's marker) and its filled config, or ``None``."""
    here = Path(log_dir).absolute()
    for folder in (here, *here.parents):
        config = folder / CONFIG_FILE
        if config.is_file() and (folder / MARKER).exists():
            try:
                loaded = json.loads(config.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            return (folder, loaded) if isinstance(loaded, dict) else None
    return None


def histogram_buckets(values: Any, buckets: int = 30) -> np.ndarray:
    """``values`` as the histograms plugin's ``[buckets, 3]`` rows ``[left, right, count]``
    (equal widths from the minimum to the maximum; all in the last bucket when every
    value is the same), as ``tensorboard``'s ``histogram_pb`` makes them."""
    data = np.asarray(values, dtype=np.float64).reshape(-1)
    data = data[np.isfinite(data)]
    if data.size == 0:
        return np.zeros((buckets, 3))
    low, high = float(data.min()), float(data.max())
    if low == high:
        counts = np.zeros(buckets)
        counts[-1] = data.size
        return np.stack([np.full(buckets, low), np.full(buckets, low), counts], axis=1)
    counts, edges = np.histogram(data, bins=buckets, range=(low, high))
    return np.stack([edges[:-1], edges[1:], counts.astype(np.float64)], axis=1)


def write_histogram(tag: str, values: Any, step: int) -> None:
    """Write ``values``'s histogram under ``tag`` to the default summary writer."""
    tf.summary.write(
        tag, tf.constant(histogram_buckets(values)), step=step, metadata=_HISTOGRAM_META
    )


# -- the HParams plugin's protocol buffer (tensorboard/plugins/hparams/plugin_data.proto) --
def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:  # a length-delimited field
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _value(value: Any) -> bytes:  # google.protobuf.Value
    if isinstance(value, bool):
        return _varint(4 << 3) + _varint(int(value))
    if isinstance(value, (int, float)):
        return _varint(2 << 3 | 1) + struct.pack("<d", float(value))
    return _field(3, str(value).encode())


def hparams_plugin_data(
    hparams: Mapping[str, Any], start_time: float, trial: str | None = None
) -> bytes:
    """The serialised ``HParamsPluginData`` holding one ``SessionStartInfo``: the
    ``hparams`` (a number, boolean or string each) of the trial ``trial`` (the dashboard's
    "Trial ID"; ``None``: a hash of the values, as ``tensorboard``'s ``hp.hparams``)."""
    values = {k: v.item() if isinstance(v, np.generic) else v for k, v in hparams.items()}
    group = (
        trial
        or hashlib.sha256(
            json.dumps(values, sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest()
    )
    info = b"".join(
        _field(1, _field(1, name.encode()) + _field(2, _value(values[name])))
        for name in sorted(values)
    )
    info += _field(4, group.encode()) + _varint(5 << 3 | 1) + struct.pack("<d", start_time)
    return _field(3, info)  # version 0: the default, not written


def write_hparams(hparams: Mapping[str, Any], start_time: float, trial: str | None = None) -> None:
    """Write the HParams plugin's session summary of ``hparams`` (at step 0) to the
    default summary writer: the run then appears in TensorBoard's HParams dashboard (as
    the trial ``trial``), with its scalars as the metrics."""
    content = hparams_plugin_data(hparams, start_time, trial)
    meta = tf.compat.v1.SummaryMetadata(
        plugin_data=tf.compat.v1.SummaryMetadata.PluginData(plugin_name="hparams", content=content)
    )
    # the plugin reads the metadata alone; a scalar 0 (not TensorBoard's empty vector) keeps
    # every value of a log readable as a number
    tf.summary.write(HPARAMS_TAG, tf.constant(0.0), step=0, metadata=meta.SerializeToString())
