"""``table.v1``: CSV (or Parquet) files, one field per column, streamed through tf.data.

``paths`` is a file, a folder of shards, a glob or a list of these. Each column becomes a
field named after it (as Keras's structured-data examples have one input per column);
numbers become ``int64``/``float32`` fields, everything else stays a ``string`` field (the
values stay raw: a model's preprocessing turns them into numbers). The types are inferred
from the first ``sample_rows`` rows of the first file; ``types = {column = "float32"}``
overrides them. ``label`` names the target column(s) and ``columns`` selects the columns
kept; a name that is not a column is an error naming the closest column.

An empty value is missing: ``missing = "fill"`` (0, or ``""`` for strings; ``fill = {col =
value}`` overrides), ``"drop"`` (the row is left out) or ``"error"``. A CSV row with the
wrong number of fields, a missing value under ``"error"`` or a value that is not of its
column's type stops the reading with ``FileDataError`` naming the file and the line.

The validation rows are held out by a seeded hash of each row's file and line
(``validation_split``, ``seed``: the same rows every time, whatever the shards' order), or
are the files of ``valid``. CSV files are read by ``tf.data.experimental.CsvDataset``,
several at once (interleaved by blocks of 1,024 rows, ``AUTOTUNE``), and the rows shuffled
in a seeded buffer, then converted 1,024 at a time (vectors: no per-row map or filter);
Parquet files (with pyarrow installed: ``pip install tensorweave-data[parquet]``) are read
in record batches.

>>> import tempfile, pathlib
>>> f = pathlib.Path(tempfile.mkdtemp()) / "houses.csv"
>>> _ = f.write_text("rooms,city,price\\n3,Oslo,2.5\\n4,Bergen,3.0\\n2,Oslo,1.5\\n")
>>> d = table(f, label="price", validation_split=0.0)
>>> sorted(d.train), d.info["types"], len(d.train)
(['city', 'price', 'rooms'], {'rooms': 'int64', 'city': 'string', 'price': 'float32'}, 3)
>>> [t.numpy().tolist() for t in next(d.train.batches(["city", "price"], batch_size=2))]
[[b'Oslo', b'Bergen'], [2.5, 3.0]]
"""

from __future__ import annotations

import csv
import difflib
import itertools
import os
from collections.abc import Mapping, Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_data.datasets import DataSplits
from tensorweave_data.files.arrow import PARQUET, pyarrow, read_schema, string_blocks
from tensorweave_data.files.errors import FileDataError, check_choice
from tensorweave_data.files.paths import expand_paths
from tensorweave_data.files.sources import file_dataset, held_out
from tensorweave_data.files.streaming import Stream
from tensorweave_data.graph_forms import with_steps

__all__ = ["table", "infer_type", "closest_column", "TYPES", "MISSING"]

_NAME = "table.v1"
TYPES = {"int64": tf.int64, "int32": tf.int32, "float32": tf.float32, "float64": tf.float64,
         "string": tf.string}  # fmt: skip
MISSING = ("fill", "drop", "error")
_BLOCK = 1024  # rows read, held out, dropped and parsed together (as vectors)


def infer_type(values: Sequence[str]) -> str:
    """``"int64"``, ``"float32"`` or ``"string"``: the narrowest type of the non-empty
    ``values``.

    >>> infer_type(["1", "", "2"]), infer_type(["1", "2.5"]), infer_type(["1", "x"])
    ('int64', 'float32', 'string')
    """
    present = [v for v in values if v != ""]
    if not present:
        return "string"
    for kind, parse in (("int64", int), ("float32", float)):
        try:
            for v in present:
                parse(v)
        except ValueError:
            continue
        return kind
    return "string"


def closest_column(owner: str, what: str, name: str, names: Sequence[str]) -> FileDataError:
    """The error for ``name``, which is not one of the columns ``names``: it names the closest.

    >>> str(closest_column("t", "label", "prise", ["price", "city"]))
    "t: label 'prise' is not a column. Did you mean 'price'? The columns: ['price', 'city']."
    """
    near = difflib.get_close_matches(name, list(names), n=1, cutoff=0.0)
    hint = f" Did you mean {near[0]!r}?" if near else ""
    return FileDataError(
        f"{owner}: {what} {name!r} is not a column.{hint} The columns: {list(names)}."
    )


def _header(path: str, delimiter: str) -> list[str]:
    with open(path, newline="", encoding="utf-8") as f:
        row = next(csv.reader(f, delimiter=delimiter), None)
    if not row:
        raise FileDataError(f"{_NAME}: {path!r} is empty (no header row). Fix: a header line.")
    return row


def _sample(path: str, delimiter: str, rows: int) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f, delimiter=delimiter)
        next(reader, None)
        return [r for r in itertools.islice(reader, rows)]


def _find_bad_row(
    files: Sequence[str],
    delimiter: str,
    header: Sequence[str],
    selected: Sequence[str],
    types: Mapping[str, str],
    missing: str,
) -> FileDataError | None:
    """The first row of ``files`` that cannot be read as declared, as an error naming it."""
    index = {c: i for i, c in enumerate(header)}
    for path in files:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f, delimiter=delimiter)
            next(reader, None)
            for row in reader:
                where = f"{path!r}, line {reader.line_num}"
                if len(row) != len(header):
                    return FileDataError(
                        f"{_NAME}: {where} has {len(row)} fields, the header has {len(header)}. "
                        "Fix: repair the row (quote values that hold the delimiter) or remove it."
                    )
                for col in selected:
                    value = row[index[col]]
                    if value == "":
                        if missing == "error":
                            return FileDataError(
                                f"{_NAME}: {where}: column {col!r} is missing (empty). Fix: "
                                'set missing = "fill" or "drop", or fill in the value.'
                            )
                        continue
                    kind = types[col]
                    if kind == "string":
                        continue
                    try:
                        (int if kind.startswith("int") else float)(value)
                    except ValueError:
                        return FileDataError(
                            f"{_NAME}: {where}: column {col!r} holds {value!r}, not {kind}. "
                            f'Fix: types = {{ {col} = "string" }}, or repair the value.'
                        )
    return None


def table(
    paths: str | os.PathLike[str] | Sequence[Any],
    label: str | Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
    types: Mapping[str, str] | None = None,
    missing: str = "fill",
    fill: Mapping[str, Any] | None = None,
    validation_split: float = 0.2,
    valid: str | os.PathLike[str] | Sequence[Any] | None = None,
    seed: int = 0,
    delimiter: str = ",",
    sample_rows: int = 1000,
    shuffle_buffer: int = 10_000,
    cache: str | None = None,
    steps: Sequence[Mapping[str, Any]] = (),
) -> DataSplits:
    """Rows of CSV or Parquet files streamed through tf.data, one field per column.

    Args:
        paths: the files: a file, a folder of shards, a glob or a list of these.
        label: the target column(s) (kept whatever ``columns`` says).
        columns: the columns kept (default all).
        types: column -> ``"int64"``, ``"int32"``, ``"float32"``, ``"float64"`` or
            ``"string"``, over the types inferred from a sample.
        missing: ``"fill"``, ``"drop"`` or ``"error"`` for empty values.
        fill: column -> the value that fills it (default 0, ``""`` for strings).
        validation_split: the share of rows held out by a seeded hash (when no ``valid``).
        valid: the validation files instead (a file, folder, glob or list).
        seed: the hash's seed.
        delimiter: the CSV field separator.
        sample_rows: rows of the first file the types are inferred from.
        shuffle_buffer: rows shuffled together when training (seeded per epoch).
        cache: ``"memory"`` or a file path: keep the parsed rows after the first epoch.
        steps: processing steps run in the tf.data graph (``docs/data.md``).
    """
    check_choice(_NAME, "missing", missing, MISSING)
    if not 0.0 <= float(validation_split) < 1.0:
        raise tw.ArgumentError(
            f"{_NAME}: validation_split must be in [0, 1), got {validation_split!r}."
        )
    files = expand_paths(_NAME, paths)
    valid_files = expand_paths(_NAME, valid) if valid is not None else []
    parquet = files[0].lower().endswith(PARQUET)
    if parquet:
        header, inferred = _parquet_schema(files[0])
    else:
        header = _header(files[0], delimiter)
        sample = _sample(files[0], delimiter, int(sample_rows))
        inferred = {
            c: infer_type([r[i] for r in sample if len(r) == len(header)])
            for i, c in enumerate(header)
        }
        for other in files[1:] + valid_files:
            if _header(other, delimiter) != header:
                raise FileDataError(
                    f"{_NAME}: {other!r} has the columns {_header(other, delimiter)}, "
                    f"{files[0]!r} has {header}. Fix: every file of a table has the same header."
                )
    labels = [label] if isinstance(label, str) else list(label or [])
    for name in labels:
        if name not in header:
            raise closest_column(_NAME, "label", name, header)
    for name in list(columns or []) + list(types or {}) + list(fill or {}):
        if name not in header:
            raise closest_column(_NAME, "column", name, header)
    selected = [c for c in header if columns is None or c in columns or c in labels]
    kinds = {c: inferred[c] for c in selected}
    for name, kind in (types or {}).items():
        check_choice(_NAME, f"types.{name}", kind, list(TYPES))
        kinds[name] = kind
    fills = {c: ("" if kinds[c] == "string" else 0) for c in selected}
    fills.update(dict(fill or {}))

    def parse(values: Mapping[str, tf.Tensor]) -> dict[str, tf.Tensor]:
        # elementwise: parses one row or (the stream's decode_batch) a batch of rows at once
        out = {}
        for c in selected:
            v = values[c]
            if missing == "fill":
                v = tf.where(tf.equal(v, ""), tf.constant(str(fills[c])), v)
            elif missing == "error":
                tf.debugging.Assert(
                    tf.reduce_all(tf.not_equal(v, "")), [tf.constant(f"missing {c}")]
                )
            kind = TYPES[kinds[c]]
            out[c] = v if kind == tf.string else tf.strings.to_number(v, out_type=kind)
        return out

    def cut(path: tf.Tensor, index: tf.Tensor, values: dict[str, tf.Tensor], keep: str | None) -> dict[str, tf.Tensor]:  # fmt: skip
        """A block of rows (``index``: their rows in the file) without the held-out
        (``keep``) and the dropped (``missing = "drop"``) rows, worked out on the vectors."""
        if keep is None and missing != "drop":
            return values
        mask = tf.ones(tf.shape(index), tf.bool)
        if keep is not None:
            mask = tf.equal(
                held_out(path, index, seed=seed, validation_split=validation_split),
                keep == "valid",
            )
        if missing == "drop":
            for c in selected:
                mask = tf.logical_and(mask, tf.not_equal(values[c], ""))
        return {c: tf.boolean_mask(v, mask) for c, v in values.items()}

    def read_csv(path: tf.Tensor, keep: str | None) -> tf.data.Dataset:
        """Blocks of ``_BLOCK`` rows of one CSV file: the selected columns as vectors of
        strings, ``cut`` (tf.data's per-row overhead is paid by the unbatch after the files'
        interleave, not by a map and filters per row)."""
        rows = tf.data.experimental.CsvDataset(
            path, [tf.constant("", tf.string)] * len(header), header=True, field_delim=delimiter
        )
        where = [header.index(c) for c in selected]

        def block(b: tf.Tensor, row: tuple[tf.Tensor, ...]) -> dict[str, tf.Tensor]:
            values = {c: row[i] for c, i in zip(selected, where, strict=True)}
            n = tf.shape(row[0], out_type=tf.int64)[0]
            return cut(path, b * _BLOCK + tf.range(n, dtype=tf.int64), values, keep)

        return rows.batch(_BLOCK).enumerate().map(block)

    def read_parquet(path: tf.Tensor, keep: str | None) -> tf.data.Dataset:
        """Blocks of ``_BLOCK`` rows of one Parquet file (``files.arrow.string_blocks``: the
        selected columns only, as strings), ``cut`` as the CSV blocks are."""
        sig = (tf.TensorSpec([None], tf.int64), *[tf.TensorSpec([None], tf.string) for _ in selected])  # fmt: skip
        blocks = tf.data.Dataset.from_generator(
            lambda p: string_blocks(p.decode(), selected, batch_size=_BLOCK, owner=_NAME),
            args=(path,),
            output_signature=sig,
        )
        return blocks.map(
            lambda i, *cols: cut(path, i, dict(zip(selected, cols, strict=True)), keep)
        )

    def rows_of(split_files: Sequence[str], keep: str | None) -> Any:
        def examples(order: int | None) -> tf.data.Dataset:
            # rows of strings: the stream parses them (decode=parse); the files are
            # interleaved by blocks of rows, then the rows unbatched
            read = read_parquet if parquet else read_csv
            return file_dataset(split_files, order, lambda p: read(p, keep)).unbatch()

        def explain(err: Exception, first: int, count: int, order: int | None) -> Exception | None:
            if parquet:
                return None
            return _find_bad_row(split_files, delimiter, header, selected, kinds, missing)

        return examples, explain

    parts: dict[str, tuple[list[str], str | None]]
    if valid_files:
        parts = {"train": (files, None), "valid": (valid_files, None)}
    elif validation_split:
        parts = {"train": (files, "train"), "valid": (files, "valid")}
    else:
        parts = {"train": (files, None), "valid": ([], None)}

    def table_stream(split: str, split_files: list[str], keep: str | None) -> Stream:
        examples, explain = rows_of(split_files, keep)
        return Stream(
            f"{_NAME} {split}",
            examples,
            shuffle_buffer=shuffle_buffer,
            cache=cache,
            explain=explain,
            files=split_files,
            subset=lambda idx: table_stream(split, [split_files[j] for j in idx], keep),
            decode=parse,
            decode_batch=_BLOCK,
        )

    streams = {}
    for split, (split_files, keep) in parts.items():
        if not split_files:
            streams[split] = _empty(selected, kinds)
            continue
        streams[split] = table_stream(split, split_files, keep)
    info: dict[str, Any] = {
        "files": len(files),
        "columns": selected,
        "types": kinds,
        "label": labels,
        "features": [c for c in selected if c not in labels],
        "missing": missing,
    }
    data = DataSplits(
        train=streams["train"],  # type: ignore[arg-type]  # a Stream stands for arrays
        valid=streams["valid"],  # type: ignore[arg-type]
        info=info,
    )
    return with_steps(data, steps, _NAME)


def _empty(selected: Sequence[str], kinds: Mapping[str, str]) -> Stream:
    """A split with no rows (``validation_split = 0`` and no ``valid`` files)."""

    def examples(order: int | None) -> tf.data.Dataset:
        return tf.data.Dataset.from_tensor_slices(
            {c: tf.zeros([0], TYPES[kinds[c]]) if kinds[c] != "string" else tf.constant([], tf.string)
             for c in selected}
        )  # fmt: skip

    return Stream(f"{_NAME} valid", examples, length=0)


def _parquet_schema(path: str) -> tuple[list[str], dict[str, str]]:
    pa = pyarrow(_NAME, path)
    schema = read_schema(_NAME, path)
    kinds = {}
    for f in schema:
        if pa.types.is_integer(f.type):
            kinds[f.name] = "int64"
        elif pa.types.is_floating(f.type):
            kinds[f.name] = "float32"
        else:
            kinds[f.name] = "string"
    return list(schema.names), kinds
