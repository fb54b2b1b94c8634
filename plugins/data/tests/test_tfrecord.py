"""``tfrecord.v1`` on shards written by ``tf.io.TFRecordWriter``: the same records back,
GZIP/ZLIB, images decoded in the graph, the split, and bad input named."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_data.files.errors import FileDataError
from tensorweave_data.files.tfrecord import tfrecord


def _feature(value: object) -> tf.train.Feature:
    if isinstance(value, bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))
    if isinstance(value, list):
        return tf.train.Feature(float_list=tf.train.FloatList(value=value))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[int(value)]))


def write_shards(root: Path, shards: int = 4, per: int = 6, compression: str | None = None):
    root.mkdir(exist_ok=True)
    rng = np.random.default_rng(0)
    images, labels = {}, {}
    suffix = {"GZIP": ".gz", "ZLIB": ".zz"}.get(compression or "", "")
    for k in range(shards):
        path = root / f"part-{k}.tfrecord{suffix}"
        with tf.io.TFRecordWriter(str(path), options=compression) as w:
            for i in range(per):
                ident = k * 100 + i
                pixels = rng.integers(0, 256, (5, 4, 3), dtype=np.uint8)
                images[ident], labels[ident] = pixels, ident % 3
                feats = {
                    "id": _feature(ident),
                    "image": _feature(tf.io.encode_png(pixels).numpy()),
                    "label": _feature(ident % 3),
                    "box": _feature([float(ident), 1.0]),
                }
                w.write(
                    tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()
                )
    return images, labels


FEATURES = {
    "id": "int64",
    "image": {"dtype": "string", "decode": "image"},
    "label": "int64",
    "box": {"dtype": "float32", "shape": [2]},
}


def read(stream, fields):
    out = {f: [] for f in fields}
    for batch in stream.batches(fields, batch_size=5):
        for f, t in zip(fields, batch, strict=True):
            out[f] += list(t.numpy())
    return out


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_same_records_back(tmp_path: Path, compression: str | None) -> None:
    images, labels = write_shards(tmp_path / "shards", compression=compression)
    given = "auto" if compression != "ZLIB" else "ZLIB"
    d = tfrecord(
        str(tmp_path / "shards" / "part-*"), FEATURES, compression=given, validation_split=0.0
    )
    got = read(d.train, ["id", "image", "label", "box"])
    assert sorted(got["id"]) == sorted(images) and len(d.train) == 24
    for ident, image, label, box in zip(
        got["id"], got["image"], got["label"], got["box"], strict=True
    ):
        np.testing.assert_array_equal(image, images[ident].astype(np.float32))
        assert label == labels[ident] and box.tolist() == [float(ident), 1.0]
    assert d.train["image"].shape == (None, None, None, 3)


def test_split_order_and_image_size(tmp_path: Path) -> None:
    write_shards(tmp_path / "shards")
    features = {**FEATURES, "image": {"dtype": "string", "decode": "image", "image_size": [8, 8]}}
    d = tfrecord(tmp_path / "shards", features, validation_split=0.25, seed=2)
    train, valid = read(d.train, ["id"])["id"], read(d.valid, ["id"])["id"]
    assert sorted(train + valid) == sorted(k * 100 + i for k in range(4) for i in range(6))
    assert valid and not set(train) & set(valid)
    assert d.train["image"].shape == (None, 8, 8, 3)
    e0 = [b[0].numpy().tolist() for b in d.train.batches(["id"], shuffle=True, epoch=0)]
    e1 = [b[0].numpy().tolist() for b in d.train.batches(["id"], shuffle=True, epoch=1)]
    assert e0 != e1 and sorted(sum(e0, [])) == sorted(train)  # noqa: RUF017


def test_bad_input_named(tmp_path: Path) -> None:
    with pytest.raises(FileDataError, match="matches no file"):
        tfrecord(str(tmp_path / "*.tfrecord"), FEATURES)
    with pytest.raises(tw.ArgumentError, match="dtype"):
        tfrecord(tmp_path, {"x": "int8"})
    write_shards(tmp_path / "shards", shards=2)
    d = tfrecord(tmp_path / "shards", {**FEATURES, "extra": "int64"}, validation_split=0.0)
    with pytest.raises(FileDataError, match=r"part-0\.tfrecord', record 1: .*extra"):
        read(d.train, ["id"])
    bad = tmp_path / "shards" / "part-1.tfrecord"
    bad.write_bytes(bad.read_bytes()[:-7])
    d = tfrecord(tmp_path / "shards", FEATURES, validation_split=0.0)
    with pytest.raises(FileDataError, match=r"part-1\.tfrecord', record 6"):
        read(d.train, ["id"])
