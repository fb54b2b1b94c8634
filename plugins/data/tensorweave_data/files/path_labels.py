"""A CSV or JSON file that lists images and their labels (``path,label``), as
``image_folder.v1`` reads it instead of class subfolders (``manifest = "labels.csv"``).

- CSV: a header with a ``path`` column and (unless ``labels = "none"``) a ``label`` column;
  one image per row; other columns are ignored.
- JSON: a list of ``{"path": ..., "label": ...}`` objects.

Relative paths are relative to the manifest's own folder. The class names are the sorted
distinct labels (numerically when every label is an integer, then an integer label is its
own class id, as Keras's ``labels=[...]`` list). Every row is checked before training: a
missing column (with the closest match), an empty cell, a row with the wrong number of
fields, a file that does not exist or is not an image: each raises ``FileDataError`` naming
the manifest and its line (JSON: its entry number) and the fix.

>>> import json, pathlib, tempfile
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> for name in ("a.png", "b.png"):
...     _ = (root / name).write_bytes(b"\\x89PNG\\r\\n\\x1a\\n")
>>> _ = (root / "labels.csv").write_text("path,label\\na.png,dog\\nb.png,cat\\n")
>>> paths, ids, names = read_path_labels(root / "labels.csv", "inferred")
>>> [pathlib.Path(p).name for p in paths], ids.tolist(), names
(['a.png', 'b.png'], [1, 0], ['cat', 'dog'])
"""

from __future__ import annotations

import csv
import difflib
import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave_data.files.errors import FileDataError

__all__ = ["read_path_labels", "MANIFEST_FORMATS"]

MANIFEST_FORMATS = (".csv", ".json")
_NAME = "image_folder.v1"


def _rows(manifest: str, labels: str | None) -> list[tuple[str, str, Any]]:
    """``(where, path, label)`` of each entry; ``where`` names its line or entry."""
    need = ["path"] + ([] if labels is None else ["label"])
    fix_columns = "Fix: a header line 'path,label' (labels = 'none': 'path' alone)."
    if manifest.lower().endswith(".json"):
        try:
            with open(manifest, encoding="utf-8") as f:
                entries = json.load(f)
        except (OSError, ValueError) as err:
            raise FileDataError(
                f"{_NAME}: cannot read the manifest {manifest!r}: {err}. Fix: a JSON list of "
                '{"path": ..., "label": ...} objects.'
            ) from err
        if not isinstance(entries, list):
            raise FileDataError(
                f"{_NAME}: the manifest {manifest!r} is a JSON {type(entries).__name__}, not a "
                'list. Fix: a JSON list of {"path": ..., "label": ...} objects.'
            )
        out = []
        for i, entry in enumerate(entries):
            where = f"{manifest!r} entry {i}"
            if not isinstance(entry, dict) or any(k not in entry for k in need):
                raise FileDataError(
                    f"{_NAME}: {where} is {entry!r}: it needs the keys {need}. Fix: "
                    '{"path": "images/1.png", "label": "cat"}.'
                )
            out.append((where, str(entry["path"]), entry.get("label")))
        return out
    try:
        with open(manifest, newline="", encoding="utf-8") as f:
            table = list(csv.reader(f))
    except (OSError, UnicodeDecodeError) as err:
        raise FileDataError(
            f"{_NAME}: cannot read the manifest {manifest!r}: {err}. Fix: a UTF-8 CSV file "
            "with a header line 'path,label'."
        ) from err
    if not table:
        raise FileDataError(f"{_NAME}: the manifest {manifest!r} is empty. {fix_columns}")
    header = [h.strip() for h in table[0]]
    for column in need:
        if column not in header:
            close = difflib.get_close_matches(column, header, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise FileDataError(
                f"{_NAME}: the manifest {manifest!r} has no {column!r} column{hint}; its "
                f"header is {header}. {fix_columns}"
            )
    at = {c: header.index(c) for c in need}
    out = []
    for line, row in enumerate(table[1:], start=2):
        if not row:
            continue
        where = f"{manifest!r} line {line}"
        if len(row) != len(header):
            raise FileDataError(
                f"{_NAME}: {where} has {len(row)} field(s), the header {len(header)}: {row}. "
                "Fix: one value per column (quote a path that holds a comma)."
            )
        out.append((where, row[at["path"]].strip(), row[at["label"]] if labels else None))
    return out


def read_path_labels(
    manifest: str | os.PathLike[str],
    labels: str | None,
    *,
    formats: tuple[str, ...] = (".bmp", ".gif", ".jpeg", ".jpg", ".png"),
    check: Callable[[str], bool] | None = None,
) -> tuple[list[str], np.ndarray, list[str]]:
    """``(paths, class ids, class_names)`` of the images a manifest lists, in its order,
    after the checks of the module docstring: each file exists, its name ends with one of
    ``formats`` and ``check(path)`` (``image_folder.is_image``: its first bytes are an
    image header) holds."""
    manifest = os.fspath(manifest)
    if not os.path.isfile(manifest):
        raise FileDataError(
            f"{_NAME}: the manifest {manifest!r} does not exist (working directory "
            f"{os.getcwd()}). Fix: manifest = a CSV or JSON file of path,label rows."
        )
    if not manifest.lower().endswith(MANIFEST_FORMATS):
        raise FileDataError(
            f"{_NAME}: the manifest {manifest!r} is neither .csv nor .json. Fix: a CSV file "
            'with a header line \'path,label\', or a JSON list of {"path", "label"} objects.'
        )
    base = os.path.dirname(os.path.abspath(manifest))
    rows = _rows(manifest, labels)
    if not rows:
        raise FileDataError(
            f"{_NAME}: the manifest {manifest!r} lists no image. Fix: one row per image."
        )
    paths: list[str] = []
    raw: list[str] = []
    for where, path, label in rows:
        if not path:
            raise FileDataError(f"{_NAME}: {where} has an empty path. Fix: name the image file.")
        if labels is not None and (label is None or str(label).strip() == ""):
            raise FileDataError(
                f"{_NAME}: {where} ({path!r}) has no label. Fix: give every image a label, "
                "or set labels = 'none'."
            )
        full = path if os.path.isabs(path) else os.path.join(base, path)
        if not os.path.isfile(full):
            raise FileDataError(
                f"{_NAME}: {where} names {path!r}, which does not exist ({full}). Fix: correct "
                "the path (relative paths are relative to the manifest's folder) or remove "
                "the line."
            )
        if not full.lower().endswith(formats) or (check is not None and not check(full)):
            raise FileDataError(
                f"{_NAME}: {where} names {path!r}, which is not a JPEG, PNG, BMP or GIF image. "
                "Fix: replace the file or remove the line."
            )
        paths.append(full)
        raw.append(str(label).strip() if labels is not None else "")
    if labels is None:
        return paths, np.zeros(len(paths), np.int64), []
    if all(v.lstrip("-").isdigit() for v in raw):
        numbers = [int(v) for v in raw]
        if min(numbers) < 0:
            bad = raw.index(str(min(numbers)))
            raise FileDataError(
                f"{_NAME}: {rows[bad][0]} has the label {min(numbers)}: integer labels are "
                "class ids from 0. Fix: use labels 0, 1, ... or class names."
            )
        names = [str(i) for i in range(max(numbers) + 1)]
        return paths, np.asarray(numbers, np.int64), names
    names = sorted(set(raw))
    index = {n: i for i, n in enumerate(names)}
    return paths, np.asarray([index[v] for v in raw], np.int64), names
