"""Parquet and Arrow files read through pyarrow, record batch by record batch: what
``table.v1`` reads Parquet with and ``hf_dataset.v1`` reads a saved Hugging Face dataset with.

Arrow files (``.arrow``: the IPC stream format ``datasets.Dataset.save_to_disk`` writes, or
the IPC file format) are memory-mapped, so a batch costs no copy and nothing is held whole;
Parquet files are read a row group at a time. pyarrow is the pack's ``parquet`` extra.

>>> import tempfile, pathlib, pyarrow as pa
>>> f = str(pathlib.Path(tempfile.mkdtemp()) / "t.arrow")
>>> with pa.ipc.new_stream(f, pa.schema([("a", pa.int64())])) as w:
...     w.write_table(pa.table({"a": [1, 2, 3]}))
>>> read_schema("x", f).names, num_rows("x", f)
(['a'], 3)
>>> [b.num_rows for b in record_batches(f, ["a"], batch_size=2)]
[2, 1]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tensorweave_data.files.errors import FileDataError

__all__ = [
    "PARQUET",
    "SUFFIXES",
    "is_table_file",
    "pyarrow",
    "read_schema",
    "num_rows",
    "record_batches",
    "string_blocks",
]

PARQUET = (".parquet", ".pq")
#: the suffixes of the files read here
SUFFIXES = (*PARQUET, ".arrow")


def is_table_file(path: str) -> bool:
    """Whether ``path`` is a Parquet or Arrow file (by its suffix)."""
    return path.lower().endswith(SUFFIXES)


def pyarrow(owner: str, path: str) -> Any:
    """The ``pyarrow`` module, or ``FileDataError`` saying how to install it."""
    try:
        import pyarrow as pa
        import pyarrow.compute
        import pyarrow.parquet
    except ImportError as err:
        raise FileDataError(
            f"{owner}: {path!r} is a Parquet/Arrow file, which needs pyarrow. Fix: pip install "
            "'tensorweave-data[parquet]' (or pyarrow)."
        ) from err
    return pa


def _ipc(pa: Any, path: str) -> Any:
    """A reader of the Arrow IPC file ``path``, memory-mapped: stream format, else file."""
    source = pa.memory_map(path, "r")
    try:
        return pa.ipc.open_stream(source)
    except pa.ArrowInvalid:
        return pa.ipc.open_file(pa.memory_map(path, "r"))


def _open(owner: str, path: str) -> tuple[Any, Any]:
    pa = pyarrow(owner, path)
    try:
        if path.lower().endswith(PARQUET):
            return pa, pa.parquet.ParquetFile(path)
        return pa, _ipc(pa, path)
    except (pa.ArrowInvalid, OSError) as err:
        raise FileDataError(
            f"{owner}: {path!r} cannot be read as a Parquet/Arrow file ({err}). Fix: repair "
            "or remove the file (or save the dataset again)."
        ) from None


def read_schema(owner: str, path: str) -> Any:
    """The ``pyarrow.Schema`` of ``path`` (with its metadata), read from its header only."""
    pa, reader = _open(owner, path)
    return reader.schema_arrow if isinstance(reader, pa.parquet.ParquetFile) else reader.schema


def num_rows(owner: str, path: str) -> int:
    """The rows of ``path``: Parquet's footer; an Arrow file's batch headers (memory-mapped)."""
    pa, reader = _open(owner, path)
    if isinstance(reader, pa.parquet.ParquetFile):
        return int(reader.metadata.num_rows)
    if isinstance(reader, pa.ipc.RecordBatchFileReader):
        return sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches))
    return sum(batch.num_rows for batch in reader)


def record_batches(
    path: str, columns: Sequence[str] | None = None, *, batch_size: int = 4096, owner: str = ""
) -> Iterator[Any]:
    """The ``pyarrow.RecordBatch`` es of ``path`` in order (``columns`` only), of at most
    ``batch_size`` rows each (``owner``: what an error names)."""
    pa, reader = _open(owner or "pyarrow", path)
    names = None if columns is None else list(columns)
    if isinstance(reader, pa.parquet.ParquetFile):
        yield from reader.iter_batches(batch_size=batch_size, columns=names)
        return
    if isinstance(reader, pa.ipc.RecordBatchFileReader):
        batches: Any = (reader.get_batch(i) for i in range(reader.num_record_batches))
    else:
        batches = reader
    for batch in batches:
        if names is not None:
            batch = batch.select(names)
        for start in range(0, batch.num_rows, batch_size):
            yield batch.slice(start, batch_size)


def _strings(pa: Any, column: Any) -> np.ndarray:
    """One column of a record batch as a numpy array of strings, nulls as ``""``: numbers
    and text cast by pyarrow (in C: numbers in their shortest round-trip form), other types
    (booleans, dates...) as Python writes them, ``str(value)``."""
    kind = column.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_string(kind) \
            or pa.types.is_large_string(kind):  # fmt: skip
        text = pa.compute.fill_null(pa.compute.cast(column, pa.string()), "")
        return np.asarray(text.to_numpy(zero_copy_only=False), dtype=object)
    return np.asarray(["" if v is None else str(v) for v in column.to_pylist()], dtype=object)


def string_blocks(
    path: str, columns: Sequence[str], *, batch_size: int, owner: str = ""
) -> Iterator[tuple[np.ndarray, ...]]:
    """The rows of ``path`` in blocks of at most ``batch_size``: ``(row indices, one array
    of strings per column of columns)``, as ``table.v1`` reads a CSV file's rows (its values
    stay raw strings until the stream parses them)."""
    pa = pyarrow(owner or "pyarrow", path)
    start = 0
    for batch in record_batches(path, columns, batch_size=batch_size, owner=owner):
        n = batch.num_rows
        cols = [_strings(pa, batch.column(name)) for name in columns]
        yield (np.arange(start, start + n, dtype=np.int64), *cols)
        start += n
