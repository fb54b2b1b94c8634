"""``image_folder.v1``: a folder of images, one subfolder per class, streamed through tf.data.

As Keras's ``image_dataset_from_directory``: the class names are the sorted subfolder
names, a subfolder's images (searched recursively, ``.jpg .jpeg .png .bmp .gif``) get its
index as label, and ``validation_split`` with ``seed`` holds out the same files Keras holds
out for the same seed (every path shuffled by ``numpy.random.RandomState(seed)``, the last
``int(validation_split * n)`` for validation). Images are read and decoded inside the
tf.data graph (``tf.io.read_file``, ``tf.image.decode_image``), resized bilinearly to
``image_size`` (center-cropped to its aspect ratio first with ``crop_to_aspect_ratio``),
``float32`` pixel values in [0, 255]: nothing is held in memory but the list of paths.

Instead of ``directory``, ``manifest`` names a CSV or JSON file of ``path,label`` rows
(``files.path_labels``). The folder is scanned before training: a missing folder, a class folder without images, a
folder with no images (or only unsupported types) and a file whose first bytes are not an
image raise ``FileDataError`` naming it; a file that fails to decode later (truncated) is
named when its batch is read. ``on_error = "skip"`` drops such files instead and counts them.

>>> import tempfile, pathlib, tensorflow as tf
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> for label in ("cat", "dog"):
...     (root / label).mkdir()
...     for i in range(5):
...         png = tf.io.encode_png(tf.fill([6, 8, 3], tf.constant(i * 40, tf.uint8)))
...         _ = (root / label / f"{i}.png").write_bytes(png.numpy())
>>> d = image_folder(root, image_size=[4, 4], validation_split=0.2)
>>> d.info["class_names"], len(d.train["x"]), len(d.valid["y"]), d.train["x"].shape
(['cat', 'dog'], 8, 2, (None, 4, 4, 3))
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_data.datasets import DataSplits
from tensorweave_data.files.errors import (
    FileDataError,
    SkippedRecordsWarning,
    check_choice,
    tf_message,
)
from tensorweave_data.files.path_labels import read_path_labels
from tensorweave_data.files.paths import local_copy
from tensorweave_data.files.streaming import Stream
from tensorweave_data.graph_forms import resize_image, with_steps

__all__ = [
    "image_folder",
    "IMAGE_FORMATS",
    "COLOR_MODES",
    "LABEL_MODES",
    "scan_folder",
    "keras_split",
    "decode_image",
    "is_image",
]

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
COLOR_MODES = {"rgb": 3, "grayscale": 1, "rgba": 4}
LABEL_MODES = ("inferred", "int", "categorical", None)
_NAME = "image_folder.v1"
# The first bytes of each supported format.
_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM")


def is_image(path: str) -> bool:
    """Whether the file's first bytes are a JPEG, PNG, BMP or GIF header."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError as err:
        raise FileDataError(
            f"{_NAME}: cannot read {path!r}: {err.strerror or err}. Fix: make the file readable "
            "(a broken link? no permission?) or remove it."
        ) from err
    return any(head.startswith(m) for m in _MAGIC)


def _files(folder: str, formats: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """``(images, others)`` under ``folder``, relative, in Keras's walk order."""
    images: list[str] = []
    others: list[str] = []
    for root, _, names in sorted(os.walk(folder), key=lambda x: x[0]):
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(root, name), folder)
            (images if name.lower().endswith(formats) else others).append(rel)
    return images, others


def keras_split(n: int, validation_split: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(train, valid)`` indices of ``n`` files as Keras splits them: every index shuffled
    by ``numpy.random.RandomState(seed)``, the last ``int(validation_split * n)`` held out.

    >>> [a.tolist() for a in keras_split(5, 0.4, seed=0)]
    [[2, 0, 1], [3, 4]]
    """
    order = np.arange(n)
    if validation_split:
        np.random.RandomState(seed).shuffle(order)
    n_valid = int(float(validation_split) * n)
    return order[: n - n_valid], order[n - n_valid :]


def scan_folder(
    directory: str,
    labels: str | None,
    on_error: str = "error",
    *,
    formats: tuple[str, ...] = IMAGE_FORMATS,
    what: str = "images",
    name: str = _NAME,
    check: bool = True,
) -> tuple[list[str], np.ndarray, list[str], list[str]]:
    """``(paths, labels, class_names, skipped)`` of a folder of class subfolders, in Keras's
    order (classes sorted, files in walk order), after the checks of the module docstring
    (``check``: each file's first bytes are an image header)."""
    if not os.path.isdir(directory):
        raise FileDataError(
            f"{name}: the folder {directory!r} does not exist (working directory "
            f"{os.getcwd()}). Fix: directory = a folder with one subfolder of {what} per class."
        )
    if labels is None:
        classes = [""]
    else:
        classes = sorted(
            d
            for d in os.listdir(directory)
            if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")
        )
        if not classes:
            raise FileDataError(
                f"{name}: {directory!r} has no class subfolders. Fix: put each class's {what} "
                "in a subfolder named after the class, or set labels = 'none' (no labels)."
            )
    paths: list[str] = []
    ids: list[int] = []
    unsupported: list[str] = []
    for index, label in enumerate(classes):
        folder = os.path.join(directory, label) if label else directory
        found, others = _files(folder, formats)
        unsupported += [os.path.join(folder, o) for o in others]
        if not found and label:
            raise FileDataError(
                f"{name}: the class folder {folder!r} has no {what} "
                f"({len(others)} other file(s)). Fix: add its {what} ({', '.join(formats)})"
                " or remove the folder."
            )
        paths += [os.path.join(folder, f) for f in found]
        ids += [index] * len(found)
    if not paths:
        kinds = sorted({os.path.splitext(p)[1] or "(no extension)" for p in unsupported})
        raise FileDataError(
            f"{name}: no {what} in {directory!r}"
            + (f" (only unsupported file types: {', '.join(kinds[:5])})" if unsupported else "")
            + f". Fix: add {what} ({', '.join(formats)})."
        )
    skipped: list[str] = []
    keep = np.ones(len(paths), dtype=bool)
    for i, p in enumerate(paths if check else []):
        if not is_image(p):
            if on_error != "skip":
                raise FileDataError(
                    f"{name}: {p!r} is not a JPEG, PNG, BMP or GIF image (its first bytes are "
                    "not an image header). Fix: remove or replace the file, or set "
                    'on_error = "skip".'
                )
            skipped.append(p)
            keep[i] = False
    paths = [p for p, k in zip(paths, keep, strict=True) if k]
    return paths, np.asarray(ids, dtype=np.int64)[keep], classes, skipped


def decode_image(
    contents: tf.Tensor,
    image_size: Sequence[int] | None = None,
    color_mode: str = "rgb",
    crop_to_aspect_ratio: bool = False,
    interpolation: str = "bilinear",
) -> tf.Tensor:
    """One image file's bytes as ``image_folder`` decodes them for training: float32
    ``[height, width, channels]`` in [0, 255], resized to ``image_size`` (``None``: kept).
    The run saves these settings (``info["image_decoding"]``): ``predict`` decodes with them.

    >>> import tensorflow as tf
    >>> png = tf.io.encode_png(tf.zeros([6, 8, 3], tf.uint8))
    >>> decode_image(png, [4, 4], "grayscale").shape.as_list()
    [4, 4, 1]
    """
    img = tf.image.decode_image(contents, COLOR_MODES[color_mode], expand_animations=False)
    if image_size is None:
        return tf.cast(img, tf.float32)
    return resize_image(img, image_size, interpolation, crop_to_aspect_ratio)


def image_folder(
    directory: str | os.PathLike[str] | None = None,
    image_size: Sequence[int] | None = (256, 256),
    color_mode: str = "rgb",
    labels: str | None = "inferred",
    validation_split: float = 0.2,
    seed: int = 0,
    crop_to_aspect_ratio: bool = False,
    rename: Mapping[str, str] | None = None,
    cache: str | None = None,
    on_error: str = "error",
    manifest: str | os.PathLike[str] | None = None,
    steps: Sequence[Mapping[str, Any]] = (),
) -> DataSplits:
    """Images of class subfolders, streamed: ``x`` float32 ``[*image_size, channels]`` in
    [0, 255], ``y`` the class id (int64) or its one-hot vector (``labels="categorical"``).

    Args:
        directory: the folder; one subfolder per class (any depth below it).
        image_size: ``[height, width]`` every image is resized to; ``None`` keeps the images'
            own size (then they must all have the first one's).
        color_mode: ``"rgb"``, ``"grayscale"`` or ``"rgba"`` (the channels decoded).
        labels: ``"inferred"``/``"int"`` (class ids), ``"categorical"`` (one-hot) or
            ``None``/``"none"`` (no ``y``: every image under ``directory``, for unsupervised
            models).
        validation_split: the share of files held out (Keras's split for the same seed).
        seed: the split's seed (the training order's is ``[train] seed``).
        crop_to_aspect_ratio: center-crop to ``image_size``'s aspect ratio before resizing.
        rename: fields renamed, e.g. ``{x = "image", y = "label"}``.
        cache: ``"memory"`` or a file path: keep the decoded images after the first epoch.
        steps: processing steps run in the tf.data graph (``docs/data.md``).
        on_error: ``"error"`` (stop at a bad image, naming it) or ``"skip"`` (drop it, count).
        manifest: instead of ``directory``, a CSV (``path,label`` header) or JSON (a list of
            ``{"path", "label"}``) file listing the images (``files.path_labels``); paths
            relative to its folder, the class names its sorted labels.
    """
    labels = None if labels in (None, "none") else labels
    check_choice(_NAME, "labels", labels, LABEL_MODES)
    check_choice(_NAME, "color_mode", color_mode, list(COLOR_MODES))
    check_choice(_NAME, "on_error", on_error, ["error", "skip"])
    if not 0.0 <= float(validation_split) < 1.0:
        raise tw.ArgumentError(
            f"{_NAME}: validation_split must be in [0, 1), got {validation_split!r}."
        )
    if (directory is None) == (manifest is None):
        raise tw.ArgumentError(
            f"{_NAME}: give either directory (class subfolders) or manifest (a CSV/JSON file of "
            f"path,label rows), not {'both' if directory is not None else 'neither'}."
        )
    if manifest is not None:
        root = local_copy(_NAME, os.fspath(manifest), directory=False)
        paths, ids, class_names = read_path_labels(
            root, labels, formats=IMAGE_FORMATS, check=is_image
        )
        skipped: list[str] = []
    else:
        root = local_copy(_NAME, os.fspath(directory), directory=True)  # type: ignore[arg-type]
        paths, ids, class_names, skipped = scan_folder(root, labels, on_error)
    channels = COLOR_MODES[color_mode]
    n_classes = len(class_names)
    size = None if image_size is None else [int(s) for s in image_size]
    if size is not None and (len(size) != 2 or min(size) < 1):
        raise tw.ArgumentError(f"{_NAME}: image_size must be [height, width], got {image_size!r}.")
    if size is None:  # the images keep their size: the first image's, checked per image
        first = tf.image.decode_image(tf.io.read_file(paths[0]), channels, expand_animations=False)
        shape = [int(first.shape[0]), int(first.shape[1]), channels]
    else:
        shape = [*size, channels]

    train_rows, valid_rows = keras_split(len(paths), float(validation_split), seed)
    splits = {"train": train_rows, "valid": valid_rows}
    names = {"x": "x", "y": "y", **dict(rename or {})}
    all_paths = np.asarray(paths, dtype=object)

    def decode(path: tf.Tensor) -> tf.Tensor:
        img = decode_image(tf.io.read_file(path), size, color_mode, crop_to_aspect_ratio)
        if size is None:
            return tf.ensure_shape(img, shape)
        img.set_shape(shape)
        return img

    def example(path: tf.Tensor, label: tf.Tensor) -> dict[str, tf.Tensor]:
        out = {names["x"]: decode(path)}
        if labels == "categorical":
            out[names["y"]] = tf.one_hot(label, n_classes, dtype=tf.float32)
        elif labels is not None:
            out[names["y"]] = label
        return out

    def stream(split: str, rows: np.ndarray | None = None) -> Stream:
        if rows is None:
            rows = splits[split]
        split_paths = all_paths[rows].astype(str)
        split_ids = ids[rows]

        def records(epoch_order: int | None) -> tuple[np.ndarray, np.ndarray]:
            if epoch_order is None:
                return split_paths, split_ids
            perm = np.random.default_rng(epoch_order).permutation(len(split_paths))
            return split_paths[perm], split_ids[perm]

        def examples(epoch_order: int | None) -> tf.data.Dataset:
            p, y = records(epoch_order)
            ds = tf.data.Dataset.from_tensor_slices(
                (
                    tf.constant(p, tf.string, shape=[len(p)]),
                    tf.constant(y, tf.int64, shape=[len(y)]),
                )
            )
            return ds  # (path, label) records: the stream decodes them (decode=example)

        def explain(
            err: Exception, first: int, count: int, epoch_order: int | None
        ) -> Exception | None:
            candidates = records(epoch_order)[0][first : first + count]
            for path in map(str, candidates):
                try:
                    got = decode(tf.constant(path))
                except (tf.errors.InvalidArgumentError, ValueError) as bad:
                    why = tf_message(bad)
                    fix = 'Fix: repair or remove the file, or set on_error = "skip".'
                    if size is None and "shape" in why.lower():
                        fix = (
                            "Fix: set image_size = [height, width] (the images differ in size; "
                            f"the first is {shape[0]}x{shape[1]})."
                        )
                    return FileDataError(f"{_NAME}: cannot read the image {path!r}: {why}. {fix}")
                del got
            return None

        return Stream(
            f"{_NAME} {split}",
            examples,
            length=len(rows),
            cache=cache,
            on_error=on_error,
            explain=explain,
            files=split_paths.tolist(),
            subset=lambda idx: stream(split, rows[np.asarray(idx, dtype=np.int64)]),
            decode=example,
        )

    info: dict[str, Any] = {
        "directory" if manifest is None else "manifest": root,
        "files": len(paths),
        "x_shape": shape,
        "image_size": shape[:2],
        "color_mode": color_mode,
        # what predict needs to decode an image file as training did (decode_image)
        "image_decoding": {
            "image_size": size,
            "color_mode": color_mode,
            "crop_to_aspect_ratio": bool(crop_to_aspect_ratio),
            "interpolation": "bilinear",
        },
        "fields": [names["x"]] + ([names["y"]] if labels is not None else []),
    }
    if labels is not None:
        info["class_names"] = list(class_names)
        info["n_classes"] = n_classes
    if skipped:
        info["skipped_files"] = len(skipped)
        warnings.warn(
            f"{_NAME}: skipped {len(skipped)} file(s) that are not images (on_error = 'skip'), "
            f"e.g. {skipped[0]!r}.",
            SkippedRecordsWarning,
            stacklevel=2,
        )
    post: list[dict[str, Any]] = (
        [{"@processors": "argmax.v1"}, {"@processors": "labels.v1", "names": list(class_names)}]
        if labels is not None
        else []
    )
    data = DataSplits(
        train=stream("train"),  # type: ignore[arg-type]  # a Stream stands for arrays
        valid=stream("valid"),  # type: ignore[arg-type]
        info=info,
        preprocess=[],
        postprocess=post,
    )
    return with_steps(data, steps, _NAME)
