"""Arrays from files: ``read_npy``, ``read_npz`` (never unpickled, each header checked
against the file's size before anything is allocated) and ``read_input``, which picks a
reader by the file's suffix (what ``tensorweave predict --input`` takes). A bad file is a
``tensorweave_data.reading.BadFileError`` naming it.

>>> import numpy as np, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> np.save(folder / "x.npy", np.zeros((2, 3), "float32"))
>>> read_npy(folder / "x.npy").shape
(2, 3)
"""

from __future__ import annotations

import math
import os
import struct
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any

import numpy as np

from tensorweave_data.reading import (
    BadFileError,
    bad_file,
    byte_size,
    open_checked,
    read_json,
    read_text,
)

__all__ = ["read_npy", "read_npz", "read_input", "INPUT_FORMATS"]

INPUT_FORMATS = ".npy, .npz, .json or a UTF-8 text file"
_NPY_FIX = "save it again with np.save(path, array) (numbers or strings, no Python objects)"
_NPZ_FIX = "save it again with np.savez(path, x=..., y=...) (numbers or strings, no Python objects)"
_DEFLATE_MAX_RATIO = 1100  # deflate cannot compress more than ~1032:1: a bigger claim is forged


def _npy_header(
    f: IO[bytes], available: int, path: Path, fix: str, owner: str, written: str | None
) -> None:
    """Check the ``.npy`` header at ``f``'s position against the ``available`` bytes after
    it, without allocating: a plain, pickle-free dtype and a shape the file can hold."""
    start = f.tell()
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, _fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise bad_file(
                path,
                f"is an .npy file of format version {version[0]}.{version[1]}, which is not read here (1.0 and 2.0 are)",
                fix,
                owner,
                written,
            )
    except BadFileError:
        raise
    except Exception as err:  # numpy's header parser raises many kinds on damaged bytes
        raise bad_file(
            path, f"is not an .npy array (its header: {err!r})", fix, owner, written
        ) from None
    if dtype.hasobject:
        raise bad_file(
            path,
            "holds Python objects (an object array), which are never unpickled: only numbers and strings are read",
            fix,
            owner,
            written,
        )
    count = math.prod(int(d) for d in shape)
    needed = count * dtype.itemsize
    held = available - (f.tell() - start)
    if needed > held:
        raise bad_file(
            path,
            f"is truncated: its header declares a {dtype.name} array of shape {tuple(shape)} ({byte_size(needed)}), the file holds {byte_size(max(held, 0))} of data",
            fix,
            owner,
            written,
        )


def read_npy(
    path: str | os.PathLike[str], *, owner: str = "", fix: str | None = None
) -> np.ndarray:
    """The array of the ``.npy`` file at ``path``, its header checked against the file's
    size before reading, never unpickled; ``BadFileError`` otherwise. ``owner`` prefixes
    the message (``"arrays.v1"``); ``fix`` marks a file tensorweave wrote (see the module).

    >>> import numpy as np, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x.npy"
    >>> np.save(path, np.arange(3))
    >>> read_npy(path).tolist()
    [0, 1, 2]
    """
    file = Path(path)
    with open_checked(file, _NPY_FIX, owner, fix) as f:
        try:
            size = os.fstat(f.fileno()).st_size
        except OSError as err:
            raise bad_file(file, f"cannot be read ({err})", _NPY_FIX, owner, fix) from None
        _npy_header(f, size, file, _NPY_FIX, owner, fix)
        f.seek(0)
        try:
            array: np.ndarray = np.load(f, allow_pickle=False)
        except MemoryError:
            raise bad_file(
                file, "holds more data than fits in memory", _NPY_FIX, owner, fix
            ) from None
        except Exception as err:  # any other failure of damaged bytes, named
            raise bad_file(
                file, f"cannot be read as an .npy array ({err!r})", _NPY_FIX, owner, fix
            ) from None
    return array


def read_npz(
    path: str | os.PathLike[str], *, owner: str = "", fix: str | None = None
) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` file at ``path`` by name, each member's header checked
    against its size before reading, never unpickled; ``BadFileError`` otherwise.

    >>> import numpy as np, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.npz"
    >>> np.savez(path, x=np.zeros((2, 3)), y=np.arange(2))
    >>> {k: v.shape for k, v in read_npz(path).items()}
    {'x': (2, 3), 'y': (2,)}
    """
    file = Path(path)
    with open_checked(file, _NPZ_FIX, owner, fix) as f:
        try:
            size = os.fstat(f.fileno()).st_size
            archive = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, struct.error, ValueError, OSError, EOFError) as err:
            raise bad_file(
                file, f"is not an .npz archive (not a zip file: {err})", _NPZ_FIX, owner, fix
            ) from None
        out: dict[str, np.ndarray] = {}
        with archive:
            try:
                for info in archive.infolist():
                    if info.is_dir():
                        continue
                    if not info.filename.endswith(".npy"):
                        raise bad_file(
                            file,
                            f"holds {info.filename!r}, which is not an .npy array",
                            _NPZ_FIX,
                            owner,
                            fix,
                        )
                    name = info.filename[: -len(".npy")]
                    stored = info.compress_type == zipfile.ZIP_STORED
                    if info.compress_size > size or (stored and info.file_size > size):
                        raise bad_file(
                            file,
                            f"declares its member {info.filename!r} as {byte_size(info.compress_size)}, "
                            f"more than the whole file ({byte_size(size)}): it is truncated or forged",
                            _NPZ_FIX,
                            owner,
                            fix,
                        )
                    if not stored and info.file_size > _DEFLATE_MAX_RATIO * max(
                        info.compress_size, 1
                    ):
                        raise bad_file(
                            file,
                            f"declares its member {info.filename!r} as {byte_size(info.file_size)} compressed into {byte_size(info.compress_size)}, more than compression can give",
                            _NPZ_FIX,
                            owner,
                            fix,
                        )
                    with archive.open(info) as member:
                        _npy_header(member, info.file_size, file, _NPZ_FIX, owner, fix)
                    with archive.open(info) as member:
                        out[name] = np.lib.format.read_array(member, allow_pickle=False)
            except BadFileError:
                raise
            except MemoryError:
                raise bad_file(
                    file, "holds more data than fits in memory", _NPZ_FIX, owner, fix
                ) from None
            except (
                zipfile.BadZipFile,
                zlib.error,
                struct.error,
                ValueError,
                OSError,
                EOFError,
                NotImplementedError,
                RuntimeError,
            ) as err:
                raise bad_file(
                    file, f"cannot be read as an .npz archive ({err})", _NPZ_FIX, owner, fix
                ) from None
    return out


def read_input(path: str | os.PathLike[str], *, owner: str = "") -> Any:
    """Raw examples from the file at ``path``, by its suffix: an array (``.npy``), arrays by
    name (``.npz``), rows or an object of arrays by name (``.json``), else UTF-8 text;
    ``BadFileError`` for any file that cannot be read as that.

    >>> import numpy as np, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.json"
    >>> _ = path.write_text("[[1, 2], [3, 4]]")
    >>> read_input(path)
    [[1, 2], [3, 4]]
    """
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix == ".npy":
        return read_npy(file, owner=owner)
    if suffix == ".npz":
        return read_npz(file, owner=owner)
    if suffix == ".json":
        return read_json(file, owner=owner)
    return read_text(file, owner=owner)
