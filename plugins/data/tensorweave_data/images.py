"""Image files given to a trained image model (``tensorweave predict --input a.png
FOLDER``): ``image_files`` lists them, ``read_image`` decodes and resizes one exactly as
``image_folder.v1`` did for training. A bad file is a
``tensorweave_data.reading.BadFileError`` naming it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from tensorweave_data.reading import BadFileError, bad_file, open_checked, read_checked

__all__ = ["IMAGE_SUFFIXES", "image_files", "read_image"]

IMAGE_SUFFIXES = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_IMAGE_FIX = "replace it with a JPEG, PNG, BMP or GIF image (or leave it out)"
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM")


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
            open_checked(path, _IMAGE_FIX, owner, None).close()  # a missing file is named as such
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
    data = read_checked(file, _IMAGE_FIX, owner, None)
    if not any(data.startswith(m) for m in _IMAGE_MAGIC):
        raise bad_file(
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
        from tensorweave_data.files.errors import tf_message

        raise bad_file(
            file, f"cannot be decoded as an image ({tf_message(err)})", _IMAGE_FIX, owner, None
        ) from None
    out: np.ndarray = image.numpy()
    return out
