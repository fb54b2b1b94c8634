"""``tfrecord.v1``: sharded TFRecord files of ``tf.train.Example`` records, streamed.

The features are declared in the config, each a dtype or a table::

    features = { image = {dtype = "string", decode = "image", image_size = [32, 32]},
                 label = "int64", box = {dtype = "float32", shape = [4]} }

``dtype`` is ``"int64"``, ``"float32"`` or ``"string"``; ``shape`` the fixed shape of the
values (default a scalar); ``default`` fills a record that lacks the feature (else it is an
error naming the file and record); ``decode = "image"`` decodes a string feature as a
JPEG/PNG/BMP/GIF image inside the graph (``channels``, ``image_size``: float32 pixels in
[0, 255], as ``image_folder.v1``). Each feature is a field named after it.

``paths`` is a file, a folder, a glob or a list of these; ``compression`` is ``"GZIP"``,
``"ZLIB"`` or none (default: ``"GZIP"`` for files ending in ``.gz``). The shards are read
several at once (interleaved, ``AUTOTUNE``) in a seeded order per epoch and the records
shuffled in a seeded buffer. Validation records are held out by a seeded hash of each
record's file and index (``validation_split``) or are the ``valid`` files.

>>> import tempfile, pathlib, tensorflow as tf
>>> f = str(pathlib.Path(tempfile.mkdtemp()) / "part-0.tfrecord")
>>> with tf.io.TFRecordWriter(f) as w:
...     for i in range(3):
...         ex = tf.train.Example(features=tf.train.Features(feature={
...             "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))}))
...         w.write(ex.SerializeToString())
>>> d = tfrecord(f, features={"label": "int64"}, validation_split=0.0)
>>> next(d.train.batches(["label"], batch_size=3))[0].numpy().tolist(), len(d.train)
([0, 1, 2], 3)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_data.datasets import DataSplits
from tensorweave_data.files.errors import FileDataError, check_choice, tf_message
from tensorweave_data.files.paths import expand_paths
from tensorweave_data.files.sources import file_dataset, held_out
from tensorweave_data.files.streaming import Stream
from tensorweave_data.graph_forms import with_steps

__all__ = ["tfrecord", "DTYPES", "COMPRESSIONS"]

_NAME = "tfrecord.v1"
DTYPES = {"int64": tf.int64, "float32": tf.float32, "string": tf.string}
COMPRESSIONS = ("GZIP", "ZLIB", None)
_KEYS = {"dtype", "shape", "default", "decode", "channels", "image_size"}


def _spec(name: str, value: Any) -> dict[str, Any]:
    spec = {"dtype": value} if isinstance(value, str) else dict(value)
    unknown = sorted(set(spec) - _KEYS)
    if unknown:
        raise tw.ArgumentError(
            f"{_NAME}: features.{name} has unknown keys {unknown}. Fix: use {sorted(_KEYS)}."
        )
    check_choice(_NAME, f"features.{name}.dtype", spec.get("dtype"), list(DTYPES))
    if spec.get("decode") not in (None, "image"):
        raise tw.ArgumentError(f"{_NAME}: features.{name}.decode must be 'image' or absent.")
    if spec.get("decode") == "image" and spec["dtype"] != "string":
        raise tw.ArgumentError(
            f"{_NAME}: features.{name} decodes an image, so its dtype is 'string' (the "
            "encoded bytes). Fix: dtype = 'string'."
        )
    return spec


def _find_bad_record(files: Sequence[str], compression: str | None, parse: Any) -> Exception | None:
    """The first record of ``files`` that cannot be read or parsed, named by file and number."""
    for path in files:
        records = iter(tf.data.TFRecordDataset(path, compression or ""))
        number = 0
        while True:
            number += 1
            try:
                parse(next(records))
            except StopIteration:
                break
            except (tf.errors.DataLossError, tf.errors.InvalidArgumentError) as err:
                return FileDataError(
                    f"{_NAME}: {path!r}, record {number}: {tf_message(err)}. Fix: check the "
                    "file's compression and the declared features, or rewrite the file."
                )
    return None


def tfrecord(
    paths: str | os.PathLike[str] | Sequence[Any],
    features: Mapping[str, Any],
    compression: str | None = "auto",
    validation_split: float = 0.2,
    valid: str | os.PathLike[str] | Sequence[Any] | None = None,
    seed: int = 0,
    shuffle_buffer: int = 10_000,
    cache: str | None = None,
    steps: Sequence[Mapping[str, Any]] = (),
) -> DataSplits:
    """Records of sharded TFRecord files streamed through tf.data, one field per feature.

    Args:
        paths: the shards: a file, a folder, a glob or a list of these.
        features: name -> dtype, or a table (``dtype``, ``shape``, ``default``, ``decode``,
            ``channels``, ``image_size``).
        compression: ``"GZIP"``, ``"ZLIB"``, ``None``/``"none"`` or ``"auto"`` (GZIP for
            ``.gz`` files).
        validation_split: the share of records held out by a seeded hash (when no ``valid``).
        valid: the validation shards instead.
        seed: the hash's seed.
        shuffle_buffer: records shuffled together when training (seeded per epoch).
        cache: ``"memory"`` or a file path: keep the parsed records after the first epoch.
        steps: processing steps run in the tf.data graph (``docs/data.md``).
    """
    if not features:
        raise tw.ArgumentError(
            f'{_NAME}: declare the features, e.g. features = {{ image = {{dtype = "string", '
            'decode = "image"}, label = "int64" }.'
        )
    if not 0.0 <= float(validation_split) < 1.0:
        raise tw.ArgumentError(
            f"{_NAME}: validation_split must be in [0, 1), got {validation_split!r}."
        )
    specs = {name: _spec(name, value) for name, value in features.items()}
    files = expand_paths(_NAME, paths)
    valid_files = expand_paths(_NAME, valid) if valid is not None else []
    if compression == "auto":
        compression = "GZIP" if files[0].endswith(".gz") else None
    compression = None if compression in (None, "none", "") else str(compression).upper()
    check_choice(_NAME, "compression", compression, COMPRESSIONS)
    parsing = {}
    for name, spec in specs.items():
        shape = [int(s) for s in spec.get("shape", [])]
        default = spec.get("default")
        parsing[name] = tf.io.FixedLenFeature(shape, DTYPES[spec["dtype"]], default_value=default)

    def parse(record: tf.Tensor) -> dict[str, tf.Tensor]:
        parsed = tf.io.parse_single_example(record, parsing)
        out = {}
        for name, spec in specs.items():
            value = parsed[name]
            if spec.get("decode") == "image":
                channels = int(spec.get("channels", 3))
                img = tf.image.decode_image(value, channels, expand_animations=False)
                size = spec.get("image_size")
                if size is not None:
                    img = tf.image.resize(img, [int(size[0]), int(size[1])], method="bilinear")
                    img.set_shape([int(size[0]), int(size[1]), channels])
                else:
                    img = tf.cast(img, tf.float32)
                value = img
            out[name] = value
        return out

    def records(path: tf.Tensor) -> tf.data.Dataset:
        ds = tf.data.TFRecordDataset(path, compression_type=compression or "")
        return ds.enumerate().map(lambda i, r: (path, i, r))

    def in_valid(path: tf.Tensor, i: tf.Tensor) -> tf.Tensor:
        return held_out(path, i, seed=seed, validation_split=validation_split)

    def stream(split: str, split_files: list[str], keep: str | None) -> Stream:
        def examples(order: int | None) -> tf.data.Dataset:
            ds = file_dataset(split_files, order, records)
            if keep is not None:
                ds = ds.filter(lambda p, i, r: in_valid(p, i) == (keep == "valid"))
            return ds.map(lambda p, i, r: r)  # serialized records: the stream parses them

        def explain(err: Exception, first: int, count: int, order: int | None) -> Exception | None:
            return _find_bad_record(split_files, compression, parse)

        return Stream(
            f"{_NAME} {split}",
            examples,
            shuffle_buffer=shuffle_buffer,
            cache=cache,
            explain=explain,
            files=split_files,
            length=0 if not split_files else None,
            subset=lambda idx: stream(split, [split_files[j] for j in idx], keep),
            decode=parse,
        )

    if valid_files:
        train, valid_stream = stream("train", files, None), stream("valid", valid_files, None)
    elif validation_split:
        train, valid_stream = stream("train", files, "train"), stream("valid", files, "valid")
    else:
        train, valid_stream = stream("train", files, None), stream("valid", [], None)
    info: dict[str, Any] = {
        "files": len(files),
        "features": {n: dict(s) for n, s in specs.items()},
        "compression": compression,
    }
    data = DataSplits(
        train=train,  # type: ignore[arg-type]  # a Stream stands for arrays
        valid=valid_stream,  # type: ignore[arg-type]
        info=info,
    )
    return with_steps(data, steps, _NAME)
