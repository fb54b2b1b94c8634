"""One reader per file format, for every file a command reads: a bad file is a ``BadFileError``.

Whatever is wrong with a file (missing, a directory, unreadable, truncated, not the format
its name says, an object array that would need unpickling, JSON nested too deep, text that
is not UTF-8, a header declaring more data than the file holds), the reader raises one
``BadFileError`` naming the file, what is wrong and what is expected; on the command line
it exits with code 2 (bad input) and one line, no traceback. Arrays are never unpickled,
and a ``.npy`` header is checked against the size of the file before anything is
allocated: a 100-byte file declaring a 36 TiB array is refused, not attempted.

``read_npy``, ``read_npz``, ``read_json`` and ``read_text`` read one format each;
``read_input`` picks one by the file's suffix (what ``tensorweave predict --input`` takes);
``image_files`` and ``read_image`` read image files (or a folder of them) decoded and resized
as a run trained on ``image_folder.v1`` decoded its images.
``fix=`` phrases the error for a file tensorweave itself wrote (``processors.json``…):
``"RUN/processors.json is damaged (line 3, column 5: ...): <fix>"``.

>>> import numpy as np, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> np.save(folder / "x.npy", np.zeros((2, 3), "float32"))
>>> read_npy(folder / "x.npy").shape
(2, 3)
>>> _ = (folder / "bad.json").write_text('{"x": [1, 2,]}')
>>> try:
...     read_json(folder / "bad.json")
... except BadFileError as err:
...     print(str(err).replace(str(folder), "DIR"))
DIR/bad.json is not valid JSON (line 1, column 13: Expecting value). Fix: write it as JSON (json.dump), e.g. [[0.1, 0.2], [0.3, 0.4]] or {"x": [[0.1, 0.2]]}.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import stat
import struct
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any

import numpy as np

import tensorweave as tw

__all__ = [
    "BadFileError",
    "read_npy",
    "read_npz",
    "read_json",
    "read_text",
    "read_csv",
    "read_input",
    "INPUT_FORMATS",
    "IMAGE_SUFFIXES",
    "image_files",
    "read_image",
]

INPUT_FORMATS = ".npy, .npz, .json or a UTF-8 text file"
_NPY_FIX = "save it again with np.save(path, array) (numbers or strings, no Python objects)"
_NPZ_FIX = "save it again with np.savez(path, x=..., y=...) (numbers or strings, no Python objects)"
_JSON_FIX = 'write it as JSON (json.dump), e.g. [[0.1, 0.2], [0.3, 0.4]] or {"x": [[0.1, 0.2]]}'
_TEXT_FIX = "save it as UTF-8 text"
IMAGE_SUFFIXES = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_IMAGE_FIX = "replace it with a JPEG, PNG, BMP or GIF image (or leave it out)"
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM")
_DEFLATE_MAX_RATIO = 1100  # deflate cannot compress more than ~1032:1: a bigger claim is forged


class BadFileError(tw.TensorweaveError, ValueError):
    """A file that cannot be read as what it should be: the message names the file, what is
    wrong and what is expected. Exit code 2 (bad input) on the command line.

    >>> err = BadFileError("data/x.npy", "is truncated", "save it again")
    >>> str(err), err.path, BadFileError.exit_code
    ('data/x.npy is truncated. Fix: save it again.', 'data/x.npy', 2)
    """

    exit_code = 2  # the documented code of bad input (tensorweave.cli.EXIT_USAGE)

    def __init__(
        self,
        path: str | os.PathLike[str],
        problem: str,
        fix: str,
        *,
        owner: str = "",
        damaged: bool = False,
    ) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        self.fix = fix
        where = f"{owner}: " if owner else ""
        if damaged:  # a file tensorweave wrote: say so, and how to get a good one back
            text = f"{where}{self.path} is damaged ({problem}): {fix}"
        else:
            text = f"{where}{self.path} {problem}. Fix: {fix}"
        super().__init__(text.rstrip(".") + ".")


def _fail(path: Path, problem: str, fix: str, owner: str, written: str | None) -> BadFileError:
    """The error for ``problem`` (``written``: the fix for a file tensorweave wrote)."""
    if written is not None:
        return BadFileError(
            path,
            problem.removeprefix("is ").removeprefix("has "),
            written,
            owner=owner,
            damaged=True,
        )
    return BadFileError(path, problem, fix, owner=owner)


def _open(path: Path, fix: str, owner: str, written: str | None) -> IO[bytes]:
    """``path`` opened for reading, or the error saying why it cannot be. Only regular
    files are opened: a pipe, a device (``/dev/zero``) or a socket could block or never end."""
    try:
        if path.exists() and not path.is_dir() and not stat.S_ISREG(path.stat().st_mode):
            raise _fail(
                path,
                "is not a regular file (a pipe, device or socket, which may never end)",
                "save the input to a file and give its path",
                owner,
                None,
            )
        return path.open("rb")
    except FileNotFoundError:
        raise _fail(
            path,
            f"does not exist (looked from {Path.cwd()})",
            "check the path; relative paths start at the working directory",
            owner,
            None,
        ) from None
    except IsADirectoryError:
        raise _fail(
            path, "is a directory, not a file", "give the path of a file", owner, None
        ) from None
    except PermissionError:
        raise _fail(
            path,
            "cannot be read (permission denied)",
            "make it readable (chmod u+r) or give another file",
            owner,
            None,
        ) from None
    except OSError as err:
        raise _fail(
            path, f"cannot be opened ({err.strerror or err})", fix, owner, written
        ) from None


def _read_bytes(path: Path, fix: str, owner: str, written: str | None) -> bytes:
    with _open(path, fix, owner, written) as f:
        try:
            return f.read()
        except OSError as err:  # e.g. a directory on some systems, an I/O error
            raise _fail(
                path, f"cannot be read ({err.strerror or err})", fix, owner, written
            ) from None


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
            raise _fail(
                path,
                f"is an .npy file of format version {version[0]}.{version[1]}, which is not read here (1.0 and 2.0 are)",
                fix,
                owner,
                written,
            )
    except BadFileError:
        raise
    except Exception as err:  # numpy's header parser raises many kinds on damaged bytes
        raise _fail(
            path, f"is not an .npy array (its header: {err!r})", fix, owner, written
        ) from None
    if dtype.hasobject:
        raise _fail(
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
        raise _fail(
            path,
            f"is truncated: its header declares a {dtype.name} array of shape {tuple(shape)} ({_size(needed)}), the file holds {_size(max(held, 0))} of data",
            fix,
            owner,
            written,
        )


def _size(n: int) -> str:
    value = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{n} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} bytes"  # pragma: no cover


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
    with _open(file, _NPY_FIX, owner, fix) as f:
        try:
            size = os.fstat(f.fileno()).st_size
        except OSError as err:
            raise _fail(file, f"cannot be read ({err})", _NPY_FIX, owner, fix) from None
        _npy_header(f, size, file, _NPY_FIX, owner, fix)
        f.seek(0)
        try:
            array: np.ndarray = np.load(f, allow_pickle=False)
        except MemoryError:
            raise _fail(file, "holds more data than fits in memory", _NPY_FIX, owner, fix) from None
        except Exception as err:  # any other failure of damaged bytes, named
            raise _fail(
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
    with _open(file, _NPZ_FIX, owner, fix) as f:
        try:
            size = os.fstat(f.fileno()).st_size
            archive = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, struct.error, ValueError, OSError, EOFError) as err:
            raise _fail(
                file, f"is not an .npz archive (not a zip file: {err})", _NPZ_FIX, owner, fix
            ) from None
        out: dict[str, np.ndarray] = {}
        with archive:
            try:
                for info in archive.infolist():
                    if info.is_dir():
                        continue
                    if not info.filename.endswith(".npy"):
                        raise _fail(
                            file,
                            f"holds {info.filename!r}, which is not an .npy array",
                            _NPZ_FIX,
                            owner,
                            fix,
                        )
                    name = info.filename[: -len(".npy")]
                    stored = info.compress_type == zipfile.ZIP_STORED
                    if info.compress_size > size or (stored and info.file_size > size):
                        raise _fail(
                            file,
                            f"declares its member {info.filename!r} as {_size(info.compress_size)}, "
                            f"more than the whole file ({_size(size)}): it is truncated or forged",
                            _NPZ_FIX,
                            owner,
                            fix,
                        )
                    if not stored and info.file_size > _DEFLATE_MAX_RATIO * max(
                        info.compress_size, 1
                    ):
                        raise _fail(
                            file,
                            f"declares its member {info.filename!r} as {_size(info.file_size)} compressed into {_size(info.compress_size)}, more than compression can give",
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
                raise _fail(
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
                raise _fail(
                    file, f"cannot be read as an .npz archive ({err})", _NPZ_FIX, owner, fix
                ) from None
    return out


def read_text(path: str | os.PathLike[str], *, owner: str = "", fix: str | None = None) -> str:
    """The UTF-8 text of the file at ``path``; ``BadFileError`` for one that is not UTF-8
    (naming the byte), missing or unreadable.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> _ = path.write_bytes(b"caf\\xc3\\xa9")
    >>> read_text(path)
    'café'
    """
    file = Path(path)
    data = _read_bytes(file, _TEXT_FIX, owner, fix)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise _fail(
            file,
            f"is not UTF-8 text (byte {err.start}: {data[err.start : err.start + 1]!r}, {err.reason})",
            _TEXT_FIX + " (e.g. iconv -f latin1 -t utf-8)",
            owner,
            fix,
        ) from None


def read_json(path: str | os.PathLike[str], *, owner: str = "", fix: str | None = None) -> Any:
    """The JSON value of the file at ``path``; ``BadFileError`` for text that is not JSON
    (with line and column), nested too deep, not UTF-8, missing or unreadable.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.json"
    >>> _ = path.write_text('{"x": [1, 2]}')
    >>> read_json(path)
    {'x': [1, 2]}
    """
    file = Path(path)
    text = read_text(file, owner=owner, fix=fix)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise _fail(
            file,
            f"is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})",
            _JSON_FIX,
            owner,
            fix,
        ) from None
    except ValueError as err:  # e.g. an integer of more digits than Python converts
        raise _fail(file, f"is not valid JSON ({err})", _JSON_FIX, owner, fix) from None
    except RecursionError:
        raise _fail(
            file,
            "is JSON nested too deep to read (thousands of levels of [ or {)",
            _JSON_FIX,
            owner,
            fix,
        ) from None


def read_csv(
    path: str | os.PathLike[str], *, owner: str = "", fix: str | None = None
) -> list[dict[str, str]]:
    """The rows of the UTF-8 CSV file at ``path`` (a header line, then one row per line) as
    ``{column: text}``; ``BadFileError`` for one that is not UTF-8, not CSV, or whose rows
    hold more cells than the header names.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = path.write_text("epoch,loss\\n1,0.5\\n")
    >>> read_csv(path)
    [{'epoch': '1', 'loss': '0.5'}]
    """
    file = Path(path)
    text = read_text(file, owner=owner, fix=fix)
    expected = "a header line of column names, then one row of values per line"
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as err:
        raise _fail(file, f"is not CSV ({err})", expected, owner, fix) from None
    for number, row in enumerate(rows, start=2):
        if None in row:  # more cells than the header names
            raise _fail(
                file,
                f"is not CSV (line {number} has more cells than the header)",
                expected,
                owner,
                fix,
            )
    return rows


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


def image_files(paths: Any, *, owner: str = "") -> list[Path]:
    """The image files ``paths`` names (a file, a folder: its images at any depth, sorted,
    or a list of these); ``BadFileError`` for a missing path, a file whose name is not an
    image's (``IMAGE_SUFFIXES``) or a folder without images.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("b.png", "a.JPG", "notes.txt"):
    ...     _ = (folder / name).write_bytes(b"")
    >>> [p.name for p in image_files(folder)]
    ['a.JPG', 'b.png']
    """
    items = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    found: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            inside = sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES and not p.name.startswith(".")
            )
            if not inside:
                raise BadFileError(
                    path,
                    "is a folder without images",
                    f"give image files ({', '.join(IMAGE_SUFFIXES)}) or a folder holding some",
                    owner=owner,
                )
            found += inside
        elif path.suffix.lower() not in IMAGE_SUFFIXES:
            _open(path, _IMAGE_FIX, owner, None).close()  # a missing file is named as such
            raise BadFileError(
                path,
                f"is not an image file (its suffix is not one of {', '.join(IMAGE_SUFFIXES)})",
                "give image files, or one .npy/.npz/.json file of arrays",
                owner=owner,
            )
        else:
            found.append(path)
    if not found:
        raise BadFileError("--input", "names no file", "give image files or a folder", owner=owner)
    return found


def read_image(
    path: str | os.PathLike[str],
    *,
    image_size: Any = None,
    color_mode: str = "rgb",
    crop_to_aspect_ratio: bool = False,
    interpolation: str = "bilinear",
    owner: str = "",
) -> np.ndarray:
    """The image file at ``path`` decoded and resized exactly as ``image_folder.v1`` does
    for training (its ``decode_image``): float32 ``[height, width, channels]`` in [0, 255].
    ``BadFileError`` for a file that is missing, unreadable, not an image (its first bytes)
    or truncated.

    >>> import pathlib, tempfile, tensorflow as tf
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.png"
    >>> _ = path.write_bytes(tf.io.encode_png(tf.zeros([6, 8, 3], tf.uint8)).numpy())
    >>> read_image(path, image_size=[4, 4]).shape
    (4, 4, 3)
    """
    file = Path(path)
    data = _read_bytes(file, _IMAGE_FIX, owner, None)
    if not any(data.startswith(m) for m in _IMAGE_MAGIC):
        raise _fail(
            file,
            "is not a JPEG, PNG, BMP or GIF image (its first bytes are not an image header)",
            _IMAGE_FIX,
            owner,
            None,
        )
    import tensorflow as tf

    from tensorweave_data.files.image_folder import decode_image

    try:
        image = decode_image(
            tf.constant(data), image_size, color_mode, crop_to_aspect_ratio, interpolation
        )
    except (tf.errors.InvalidArgumentError, tf.errors.DataLossError, ValueError) as err:
        from tensorweave_data.files.streaming import tf_message

        raise _fail(
            file, f"cannot be decoded as an image ({tf_message(err)})", _IMAGE_FIX, owner, None
        ) from None
    out: np.ndarray = image.numpy()
    return out
