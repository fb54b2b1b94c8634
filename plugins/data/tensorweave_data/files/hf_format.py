"""The files of a dataset saved by Hugging Face ``datasets``, as ``hf_dataset.v1`` reads them
without the library: where the splits' Arrow files are (``locate``), what each saved feature
becomes (``from_feature``, ``from_arrow``: a ``Field``) and a record batch's column as the
numpy array of its tensor field (``column_values``).

``Dataset.save_to_disk`` writes ``state.json`` (its ``data-*.arrow`` files), ``dataset_info.json``
and the Arrow files, whose schema metadata (``huggingface``) holds the features as JSON;
``DatasetDict.save_to_disk`` writes ``dataset_dict.json`` and one such folder per split.

>>> from_feature({"_type": "ClassLabel", "names": ["cat", "dog"]})
Field(kind='int', shape=(), class_names=['cat', 'dog'])
"""

from __future__ import annotations

import glob
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tensorweave_data.files.arrow import is_table_file, record_batches
from tensorweave_data.files.errors import FileDataError

__all__ = [
    "Field",
    "UnsupportedFeature",
    "SUPPORTED",
    "locate",
    "from_feature",
    "from_arrow",
    "saved_features",
    "column_values",
    "first_null",
]

_NAME = "hf_dataset.v1"
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
#: the features read as tensors (what an error about another one lists)
SUPPORTED = (
    "ints, floats, bools, strings, ClassLabel, a fixed-length Sequence/List of numbers, Image"
)


class Field(NamedTuple):
    """How a column is streamed: ``kind`` (``int``, ``float``, ``string``, ``image``), the
    example's ``shape`` and, for a ``ClassLabel``, its ``class_names``."""

    kind: str
    shape: tuple[int, ...] = ()
    class_names: list[str] | None = None


class UnsupportedFeature(Exception):
    """A column's feature has no tensor form (its description is the message)."""


def _save_fix(name: str) -> str:
    stem = name.rstrip("/").split("/")[-1] or "dataset"
    return (
        "Fix: save it on this machine first, in Python: "
        f"datasets.load_dataset({name!r}).save_to_disk('data/{stem}'), then path = "
        f"'data/{stem}'."
    )


def _saved_files(folder: Path) -> list[str]:
    """The Arrow files of a ``Dataset.save_to_disk`` folder, in their ``state.json`` order."""
    state = json.loads((folder / "state.json").read_text())
    files = [str(folder / f["filename"]) for f in state.get("_data_files", [])]
    for f in files:
        if not os.path.isfile(f):
            raise FileDataError(
                f"{_NAME}: {f!r}, listed in {str(folder / 'state.json')!r}, is missing. "
                "Fix: save the dataset again with save_to_disk."
            )
    return files


def locate(path: str | os.PathLike[str], split: str = "train") -> tuple[dict[str, list[str]], str]:
    """``({split: files}, form)`` of ``path``; ``form`` is ``"dataset_dict"``, ``"dataset"``
    or ``"files"``. Raises ``FileDataError`` for a Hub id, a URL or a folder that is not a
    saved dataset."""
    text = os.fspath(path)
    if text.startswith("file://"):
        text = text[len("file://") :]
    elif re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", text):
        raise FileDataError(
            f"{_NAME}: {text!r} is a URL, not a dataset on this machine; hf_dataset.v1 never "
            f"downloads. {_save_fix('ID')}"
        )
    if any(c in text for c in "*?["):
        files = sorted(p for p in glob.glob(text, recursive=True) if is_table_file(p))
        if not files:
            raise FileDataError(
                f"{_NAME}: {text!r} matches no .parquet or .arrow file (working directory "
                f"{os.getcwd()}). Fix: a glob such as 'data/imdb/*.parquet'."
            )
        return {split: files}, "files"
    where = Path(text)
    if not where.exists():
        if _HUB_ID.match(text):
            raise FileDataError(
                f"{_NAME}: {text!r} is no folder here (working directory {os.getcwd()}), and a "
                f"Hugging Face Hub id is never downloaded. {_save_fix(text)}"
            )
        raise FileDataError(f"{_NAME}: {text!r} does not exist (working directory {os.getcwd()}).")
    if (where / "dataset_dict.json").is_file():
        names = json.loads((where / "dataset_dict.json").read_text())["splits"]
        return {name: _saved_files(where / name) for name in names}, "dataset_dict"
    if (where / "state.json").is_file():
        return {split: _saved_files(where)}, "dataset"
    if where.is_file():
        files = [text] if is_table_file(text) else []
    else:
        files = sorted(str(f) for f in where.rglob("*") if f.is_file() and is_table_file(str(f)))
    if not files:
        raise FileDataError(
            f"{_NAME}: {text!r} is not a saved dataset: no state.json and dataset_info.json "
            "(Dataset.save_to_disk), no dataset_dict.json (DatasetDict.save_to_disk) and no "
            ".parquet or .arrow files. Fix: path = the folder given to save_to_disk, or the "
            "dataset's Parquet/Arrow files."
        )
    return {split: files}, "files"


def _value_kind(dtype: Any) -> str | None:
    text = str(dtype)
    if text == "bool" or re.fullmatch(r"u?int(8|16|32|64)", text):
        return "int"
    if re.fullmatch(r"float(16|32|64)|double|half", text):
        return "float"
    if text in ("string", "large_string"):
        return "string"
    return None


def from_feature(feature: Any) -> Field:
    """The ``Field`` of a saved ``datasets`` feature (its JSON form).

    >>> from_feature({"_type": "List", "length": 3, "feature": {"_type": "Value", "dtype": "float32"}})
    Field(kind='float', shape=(3,), class_names=None)
    """
    kind = feature.get("_type") if isinstance(feature, dict) else None
    if kind == "Value":
        value = _value_kind(feature.get("dtype"))
        if value is not None:
            return Field(value)
        raise UnsupportedFeature(f"Value({feature.get('dtype')!r})")
    if kind == "ClassLabel":
        return Field("int", (), [str(n) for n in feature.get("names") or []])
    if kind == "Image":
        return Field("image")
    if kind in ("Sequence", "List", "LargeList"):
        length, inner = feature.get("length", -1), feature.get("feature")
        if not isinstance(length, int) or length < 0:
            raise UnsupportedFeature(f"a {kind} without a fixed length")
        sub = from_feature(inner)
        if sub.kind not in ("int", "float") or sub.class_names:
            raise UnsupportedFeature(
                f"a {kind} of {inner.get('_type') if isinstance(inner, dict) else inner}"
            )
        return Field(sub.kind, (length, *sub.shape))
    raise UnsupportedFeature(f"a {kind} feature" if kind else "a dict of features (a struct)")


def from_arrow(pa: Any, kind: Any) -> Field:
    """The ``Field`` of an Arrow type (files without ``datasets`` metadata)."""
    if pa.types.is_integer(kind) or pa.types.is_boolean(kind):
        return Field("int")
    if pa.types.is_floating(kind):
        return Field("float")
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return Field("string")
    if pa.types.is_fixed_size_list(kind):
        sub = from_arrow(pa, kind.value_type)
        if sub.kind in ("int", "float"):
            return Field(sub.kind, (kind.list_size, *sub.shape))
    if pa.types.is_struct(kind) and kind.get_field_index("bytes") >= 0:
        return Field("image")
    raise UnsupportedFeature(f"the Arrow type {kind}")


def saved_features(schema: Any) -> dict[str, Any]:
    """The ``datasets`` features saved in a file's schema metadata (``{}`` when none)."""
    raw = (schema.metadata or {}).get(b"huggingface")
    if not raw:
        return {}
    features = json.loads(raw).get("info", {}).get("features")
    return features if isinstance(features, dict) else {}


def column_values(pa: Any, array: Any, field: Field) -> np.ndarray:
    """One column of a record batch as the numpy array its tensor field takes (nulls
    filled: 0, ``""``, zeros; an image without bytes read from its ``path``)."""
    n = len(array)
    if field.kind == "image":
        data = (
            array.field("bytes").to_pylist()
            if pa.types.is_struct(array.type)
            else array.to_pylist()
        )
        paths = array.field("path").to_pylist() if pa.types.is_struct(array.type) else [None] * n
        out = np.empty(n, dtype=object)
        for j, (b, p) in enumerate(zip(data, paths, strict=True)):
            out[j] = b if b is not None else (Path(p).read_bytes() if p else b"")
        return out
    if field.kind == "string":
        return np.asarray(["" if v is None else v for v in array.to_pylist()], dtype=object)
    dtype = np.int64 if field.kind == "int" else np.float32
    if field.shape:
        if array.null_count:
            zero = np.zeros(field.shape, dtype).tolist()
            return np.asarray([zero if v is None else v for v in array.to_pylist()], dtype).reshape(
                n, *field.shape
            )
        values = array
        for _ in field.shape:
            values = values.flatten()
        return np.asarray(values.to_numpy(zero_copy_only=False), dtype=dtype).reshape(
            n, *field.shape
        )
    if array.null_count:
        array = array.fill_null(False if pa.types.is_boolean(array.type) else 0)
    return np.asarray(array.to_numpy(zero_copy_only=False), dtype=dtype)


def first_null(files: Sequence[str], columns: Sequence[str]) -> FileDataError | None:
    """The first missing value of ``columns`` in ``files``, as the error naming it."""
    for path in files:
        start = 0
        for batch in record_batches(path, columns, owner=_NAME):
            for c in columns:
                array = batch.column(c)
                if array.null_count:
                    row = start + int(
                        np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False))[0]
                    )
                    return FileDataError(
                        f"{_NAME}: {path!r}, row {row}: column {c!r} is missing (null). Fix: "
                        'set missing = "fill" or "drop", or leave the column out (columns=...).'
                    )
            start += batch.num_rows
    return None
