"""``hf_dataset.v1``: a dataset saved by Hugging Face ``datasets``, streamed through tf.data.

``path`` is the folder ``Dataset.save_to_disk`` wrote (``dataset_info.json``,
``state.json``, ``data-*.arrow``) or ``DatasetDict.save_to_disk`` wrote (``dataset_dict.json``
and one such folder per split: ``split`` picks one), or a folder, file or glob of a
dataset's Parquet/Arrow files. Nothing is downloaded: a Hub id (``"imdb"``) or a URL is
refused with the ``save_to_disk`` line to run first. The files are read through pyarrow
record batch by record batch (``files.arrow``: Arrow files memory-mapped), never whole, and
the ``datasets`` library is not needed.

Each column is a field named after it (as ``table.v1``): integers and bools ``int64``,
floats ``float32``, strings ``string``, a ``ClassLabel`` its ``int64`` id (its names are
``info["class_names"]``), a fixed-length ``Sequence``/``List`` of numbers a ``[length]``
tensor, an ``Image`` its bytes decoded in the graph as ``image_folder.v1`` decodes files
(``image_size``, ``color_mode``). Any other feature is an error naming the column: leave
it out with ``columns``. The types come from the features saved with the data (the
``huggingface`` metadata of the files), else from the Arrow types (``files.hf_format``).

The validation split is the saved ``validation`` (else ``test``) split of a DatasetDict, or
``validation_split`` of the rows held out by a seeded hash of file and row, as table.v1.

>>> import tempfile, pathlib, pyarrow as pa
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> pa.parquet.write_table(pa.table({"rooms": [3, 4, 2], "price": [2.5, 3.0, 1.5]}),
...                        folder / "train.parquet")
>>> d = hf_dataset(folder, label="price", validation_split=0.0)
>>> d.info["types"], len(d.train)
({'rooms': 'int64', 'price': 'float32'}, 3)
>>> [t.numpy().tolist() for t in next(d.train.batches(["rooms", "price"], batch_size=2))]
[[3, 4], [2.5, 3.0]]
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_data.datasets import DataSplits
from tensorweave_data.files.arrow import (
    num_rows,
    pyarrow,
    read_schema,
    record_batches,
)
from tensorweave_data.files.errors import FileDataError, check_choice
from tensorweave_data.files.hf_format import (
    SUPPORTED,
    Field,
    UnsupportedFeature,
    column_values,
    first_null,
    from_arrow,
    from_feature,
    locate,
    saved_features,
)
from tensorweave_data.files.image_folder import COLOR_MODES, decode_image
from tensorweave_data.files.sources import file_dataset, held_out
from tensorweave_data.files.streaming import Stream
from tensorweave_data.files.table import MISSING, closest_column
from tensorweave_data.graph_forms import with_steps

__all__ = ["hf_dataset"]

_NAME = "hf_dataset.v1"
_SAVED_VALID = ("validation", "valid", "test")
_DTYPES = {"int": tf.int64, "float": tf.float32, "string": tf.string, "image": tf.string}


def hf_dataset(
    path: str | os.PathLike[str],
    label: str | Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
    rename: Mapping[str, str] | None = None,
    split: str = "train",
    validation_split: float | None = None,
    seed: int = 0,
    missing: str = "fill",
    image_size: Sequence[int] | None = (256, 256),
    color_mode: str = "rgb",
    crop_to_aspect_ratio: bool = False,
    shuffle_buffer: int = 10_000,
    cache: str | None = None,
    steps: Sequence[Mapping[str, Any]] = (),
) -> DataSplits:
    """A saved Hugging Face dataset (or its Parquet/Arrow files), streamed, one field per column.

    Args:
        path: the ``save_to_disk`` folder (a Dataset or a DatasetDict), or a folder, file or
            glob of Parquet/Arrow files. Never a Hub id or URL: nothing is downloaded.
        label: the target column(s) (kept whatever ``columns`` says).
        columns: the columns kept (default all).
        rename: fields renamed, e.g. ``{image = "x", label = "y"}``.
        split: the DatasetDict's split trained on.
        validation_split: the share of ``split``'s rows held out by a seeded hash; ``None``
            (default): the DatasetDict's ``validation`` (else ``test``) split if it has one,
            else 0.2. ``0``: no validation rows.
        seed: the hash's seed.
        missing: null values: ``"fill"`` (0, ``""``, zeros), ``"drop"`` (the row is left
            out) or ``"error"`` (checked before training: the file, row and column named).
        image_size: ``[height, width]`` the ``Image`` columns are resized to (``None``: kept).
        color_mode: ``"rgb"``, ``"grayscale"`` or ``"rgba"``.
        crop_to_aspect_ratio: center-crop to ``image_size``'s aspect ratio before resizing.
        shuffle_buffer: rows shuffled together when training (seeded per epoch).
        cache: ``"memory"`` or a file path: keep the decoded rows after the first epoch.
        steps: processing steps run in the tf.data graph (``docs/data.md``).
    """
    check_choice(_NAME, "missing", missing, MISSING)
    check_choice(_NAME, "color_mode", color_mode, list(COLOR_MODES))
    splits, form = locate(path, split)
    if split not in splits:
        near = difflib.get_close_matches(split, list(splits), n=1, cutoff=0.0)
        raise FileDataError(
            f"{_NAME}: {os.fspath(path)!r} has no split {split!r}; its splits: {list(splits)}. "
            f"Fix: split = {near[0]!r}."
        )
    files = splits[split]
    saved_valid = next((s for s in _SAVED_VALID if s in splits and s != split), None)
    if validation_split is None:
        validation_split = 0.0 if saved_valid else 0.2
    else:
        saved_valid = None
    if not 0.0 <= float(validation_split) < 1.0:
        raise tw.ArgumentError(
            f"{_NAME}: validation_split must be in [0, 1), got {validation_split!r}."
        )
    pa = pyarrow(_NAME, files[0])
    schema = read_schema(_NAME, files[0])
    header = list(schema.names)
    labels = [label] if isinstance(label, str) else list(label or [])
    for name in labels:
        if name not in header:
            raise closest_column(_NAME, "label", name, header)
    for name in list(columns or []) + list(rename or {}):
        if name not in header:
            raise closest_column(_NAME, "column", name, header)
    selected = [c for c in header if columns is None or c in columns or c in labels]
    saved = saved_features(schema)
    fields: dict[str, Field] = {}
    for c in selected:
        try:
            fields[c] = (
                from_feature(saved[c]) if c in saved else from_arrow(pa, schema.field(c).type)
            )
        except UnsupportedFeature as err:
            others = [o for o in selected if o != c]
            raise FileDataError(
                f"{_NAME}: column {c!r} of {files[0]!r} is {err}, which is not read as a tensor "
                f"(supported: {SUPPORTED}). Fix: leave it out with columns = {others!r}, or "
                "convert it with datasets (cast_column/map) and save_to_disk again."
            ) from None
    if missing == "error":
        bad = first_null(files + (splits[saved_valid] if saved_valid else []), selected)
        if bad is not None:
            raise bad
    names = {c: str((rename or {}).get(c, c)) for c in selected}
    images = [c for c in selected if fields[c].kind == "image"]
    size = None if image_size is None else [int(v) for v in image_size]
    signature = (
        tf.TensorSpec([], tf.string),
        tf.TensorSpec([None], tf.int64),
        *[tf.TensorSpec([None, *fields[c].shape], _DTYPES[fields[c].kind]) for c in selected],
    )

    def rows(p: bytes) -> Iterator[tuple[Any, ...]]:
        start = 0
        for batch in record_batches(p.decode(), selected, owner=_NAME):
            index = np.arange(start, start + batch.num_rows, dtype=np.int64)
            start += batch.num_rows
            if missing == "drop":
                keep = np.ones(batch.num_rows, dtype=bool)
                for c in selected:
                    keep &= ~batch.column(c).is_null().to_numpy(zero_copy_only=False)
                batch, index = batch.filter(pa.array(keep)), index[keep]
            yield (p, index, *[column_values(pa, batch.column(c), fields[c]) for c in selected])

    def read(p: tf.Tensor) -> tf.data.Dataset:
        ds = tf.data.Dataset.from_generator(rows, args=(p,), output_signature=signature)
        return ds.flat_map(
            lambda p, i, *cols: tf.data.Dataset.from_tensor_slices(
                (tf.fill(tf.shape(i), p), i, dict(zip(selected, cols, strict=True)))
            )
        )

    def decode(values: Mapping[str, tf.Tensor]) -> dict[str, tf.Tensor]:
        out = {}
        for c in selected:
            v = values[c]
            if c in images:
                v = decode_image(v, size, color_mode, crop_to_aspect_ratio)
            out[names[c]] = v
        return out

    def split_stream(name: str, split_files: list[str], keep: str | None) -> Stream:
        def examples(order: int | None) -> tf.data.Dataset:
            ds = file_dataset(split_files, order, read)
            if keep == "none":
                ds = ds.take(0)
            elif keep is not None:
                ds = ds.filter(
                    lambda p, i, r: (
                        held_out(p, i, seed=seed, validation_split=validation_split)
                        == (keep == "valid")
                    )
                )
            return ds.map(lambda p, i, r: r)  # raw rows: the stream decodes them (decode=)

        length = 0 if keep == "none" else None
        if keep is None and missing != "drop":
            length = sum(num_rows(_NAME, f) for f in split_files)
        return Stream(
            f"{_NAME} {name}",
            examples,
            length=length,
            shuffle_buffer=shuffle_buffer,
            cache=cache,
            files=split_files,
            subset=lambda idx: split_stream(name, [split_files[j] for j in idx], keep),
            decode=decode,
        )

    if saved_valid:
        train, valid = (
            split_stream("train", files, None),
            split_stream("valid", splits[saved_valid], None),
        )
    elif validation_split:
        train, valid = split_stream("train", files, "train"), split_stream("valid", files, "valid")
    else:
        train = split_stream("train", files, None)
        valid = split_stream("valid", files, "none")  # no row is held out: an empty split

    info: dict[str, Any] = {
        "path": os.fspath(path),
        "form": form,
        "split": split,
        "splits": list(splits),
        "valid_split": saved_valid,
        "files": len(files),
        "columns": [names[c] for c in selected],
        "types": {
            names[c]: "float32" if c in images else _DTYPES[f.kind].name for c, f in fields.items()
        },
        "label": [names[c] for c in labels],
        "features": [names[c] for c in selected if c not in labels],
        "missing": missing,
    }
    post: list[dict[str, Any]] = []
    class_names = next((fields[c].class_names for c in labels if fields[c].class_names), None)
    if class_names is not None:
        info["class_names"] = class_names
        info["n_classes"] = len(class_names)
        post = [{"@processors": "argmax.v1"}, {"@processors": "labels.v1", "names": class_names}]
    if images:
        info["image_decoding"] = {
            "image_size": size,
            "color_mode": color_mode,
            "crop_to_aspect_ratio": bool(crop_to_aspect_ratio),
            "interpolation": "bilinear",
        }
    data = DataSplits(
        train=train,  # type: ignore[arg-type]  # a Stream stands for arrays
        valid=valid,  # type: ignore[arg-type]
        info=info,
        preprocess=[],
        postprocess=post,
    )
    return with_steps(data, steps, _NAME)
