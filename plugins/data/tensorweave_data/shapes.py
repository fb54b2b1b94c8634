"""``shapes_segmentation.v1``: images of circles, squares and triangles with a class id per
pixel, drawn with numpy from a seed (no download), for segmentation models (U-Net).

Each image has a background of one random level, one to ``max_shapes`` shapes that never
overlap (each of one random level, brighter than the background; a colour with
``channels=3``) and Gaussian noise. The mask ``y`` gives every pixel its class: 0 for the
background, then one class per kind of shape (``CLASSES``). Telling the shapes apart takes
their outline, not their brightness: every kind is drawn with the same levels and sizes.

Image ``i`` depends only on ``seed`` and ``i``: a smaller ``samples`` gives the first
images of a larger one. The validation split is the seeded random share every dataset of
this pack holds out (``split_indices``).

>>> d = shapes_segmentation(samples=10, size=16, valid_fraction=0.2)
>>> d.train["x"].shape, d.train["y"].shape, d.valid["y"].dtype.name, d.info["n_classes"]
((8, 16, 16, 1), (8, 16, 16), 'int64', 4)
>>> set(d.train["y"].ravel().tolist()) <= {0, 1, 2, 3}
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_data.datasets import DataSplits, split_indices
from tensorweave_data.pipeline import Pipeline, stack

__all__ = ["shapes_segmentation", "draw_shapes", "CLASSES"]

#: The mask's class ids, in order: ``CLASSES[y]`` names pixel class ``y``.
CLASSES = ("background", "circle", "square", "triangle")

#: A shape's half-extent (its circle's radius, half its square's side) as a share of the
#: image size, drawn uniformly in this range.
_EXTENT = (0.12, 0.25)
#: The tries to place a shape where it overlaps no other before the image keeps fewer.
_TRIES = 20


def _mask_of(kind: int, cy: float, cx: float, r: float, yy: np.ndarray, xx: np.ndarray) -> Any:
    """The pixels of one shape: a disc, an axis-aligned square, or an isosceles triangle
    (base ``2r``, height ``2r``; pointing up, or down for ``kind == -3``)."""
    if kind == 1:
        return (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
    if kind == 2:
        return (np.abs(yy - cy) <= r) & (np.abs(xx - cx) <= r)
    depth = (yy - (cy - r)) if kind == 3 else ((cy + r) - yy)  # from the apex
    return (depth >= 0) & (depth <= 2 * r) & (np.abs(xx - cx) <= depth / 2)


def draw_shapes(
    rng: np.random.Generator, size: int, channels: int, max_shapes: int, noise: float
) -> tuple[np.ndarray, np.ndarray]:
    """One image ``[size, size, channels]`` (float32 in [0, 1]) and its mask
    ``[size, size]`` (int64 class ids of ``CLASSES``), drawn from ``rng``.

    >>> import numpy as np
    >>> x, y = draw_shapes(np.random.default_rng(0), 8, 1, 1, noise=0.0)
    >>> x.shape, y.shape, bool((x[..., 0] > 0.5).sum() == (y > 0).sum())
    ((8, 8, 1), (8, 8), True)
    """
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    mask = np.zeros((size, size), np.int64)
    image = np.empty((size, size, channels))
    image[:] = rng.uniform(0.0, 0.4, channels)
    boxes: list[tuple[float, float, float]] = []
    for kind in rng.integers(1, len(CLASSES), rng.integers(1, max_shapes + 1)):
        for _ in range(_TRIES):
            r = rng.uniform(*_EXTENT) * size
            cy, cx = rng.uniform(r, size - 1 - r, 2)
            if all(abs(cy - y) > r + s + 1 or abs(cx - x) > r + s + 1 for y, x, s in boxes):
                break
        else:
            continue  # no room left for this shape
        boxes.append((cy, cx, r))
        flip = -1 if kind == 3 and rng.random() < 0.5 else 1
        pixels = _mask_of(int(kind) * flip, cy, cx, r, yy, xx)
        mask[pixels] = kind
        image[pixels] = rng.uniform(0.6, 1.0, channels)
    if noise:
        image += rng.normal(0.0, noise, image.shape)
    return np.clip(image, 0.0, 1.0).astype(np.float32), mask


def shapes_segmentation(
    samples: int = 1000,
    size: int = 32,
    channels: int = 1,
    max_shapes: int = 3,
    noise: float = 0.1,
    valid_fraction: float = 0.2,
    seed: int = 0,
    steps: list[dict[str, Any]] | None = None,
    workers: int = 2,
) -> DataSplits:
    """Synthetic segmentation: ``x`` float32 images ``[size, size, channels]`` of circles,
    squares and triangles, ``y`` int64 masks ``[size, size]`` (0 background, 1 circle,
    2 square, 3 triangle).

    Args:
        samples: the number of images (training and validation together).
        size: the images' height and width, in pixels (at least 8).
        channels: 1 (grey levels) or 3 (colours).
        max_shapes: at most this many shapes per image (at least one; they never overlap).
        noise: the standard deviation of the Gaussian noise added to every pixel.
        valid_fraction: the share of images held out (a seeded random split).
        seed: the seed of the drawing and of the split.
        steps: processors run on every ``{"x", "y"}`` sample after drawing (none by
            default), e.g. ``{"@processors": "one_hot.v1", "field": "y", "num_classes": 4}``.
        workers: processes for ``steps`` (0: in this process).
    """
    who = "shapes_segmentation"
    samples = tw.positive_int(samples, "samples", who)
    size = tw.positive_int(size, "size", who)
    max_shapes = tw.positive_int(max_shapes, "max_shapes", who)
    if size < 8:
        raise tw.ArgumentError(f"{who}: size must be at least 8 pixels, got {size}. Fix: size=16.")
    if channels not in (1, 3):
        raise tw.ArgumentError(
            f"{who}: channels must be 1 (grey) or 3 (colour), got {channels!r}. Fix: channels=1."
        )
    if not float(noise) >= 0.0:
        raise tw.ArgumentError(f"{who}: noise must be >= 0 (a standard deviation), got {noise}.")
    drawn = [
        draw_shapes(np.random.default_rng([seed, i]), size, channels, max_shapes, float(noise))
        for i in range(samples)
    ]
    pipeline = Pipeline(steps or [], workers=workers)
    processed = pipeline.run([{"x": x, "y": y} for x, y in drawn])
    train_at, valid_at = split_indices(len(processed), valid_fraction, seed)
    return DataSplits(
        train=stack([processed[i] for i in train_at], ["x", "y"]),
        valid=stack([processed[i] for i in valid_at], ["x", "y"]),
        info={
            "n_classes": len(CLASSES),
            "classes": list(CLASSES),
            "x_shape": [size, size, channels],
            "samples": samples,
            "source": "drawn with numpy (tensorweave_data.shapes)",
        },
        steps=pipeline.to_config(),
        preprocess=[],
        postprocess=[{"@processors": "argmax.v1"}],
    )
