"""Write a folder of images laid out as people keep them: one subfolder per class.

    python examples/image_folder/make_images.py data/shapes --per-class 200

Three classes (``circle``, ``square``, ``triangle``) of 32x32 colour images: a shape of a
random colour, size and place on a noisy background, every other file a JPEG, the rest PNG.
Nothing is downloaded; the same ``--seed`` writes the same files.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

CLASSES = ("circle", "square", "triangle")


def draw(kind: str, rng: np.random.Generator, size: int = 32) -> np.ndarray:
    """One ``[size, size, 3]`` uint8 image of a ``kind`` shape."""
    image = rng.integers(0, 60, (size, size, 3)).astype(np.float32)
    r = rng.uniform(size * 0.18, size * 0.35)
    cy, cx = rng.uniform(r, size - r, 2)
    yy, xx = np.mgrid[:size, :size].astype(np.float32)
    if kind == "circle":
        mask = (yy - cy) ** 2 + (xx - cx) ** 2 <= r**2
    elif kind == "square":
        mask = (np.abs(yy - cy) <= r * 0.8) & (np.abs(xx - cx) <= r * 0.8)
    else:  # a triangle pointing up
        mask = (yy >= cy - r) & (yy <= cy + r) & (np.abs(xx - cx) <= (yy - (cy - r)) / 2)
    image[mask] = rng.uniform(120, 255, 3)
    return image.clip(0, 255).astype(np.uint8)


def write(root: Path, per_class: int, seed: int = 0) -> int:
    """Write ``per_class`` images of each class under ``root``; returns how many."""
    import tensorflow as tf

    rng = np.random.default_rng(seed)
    for kind in CLASSES:
        folder = root / kind
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(per_class):
            pixels = draw(kind, rng)
            if i % 2:
                (folder / f"{i:05d}.jpg").write_bytes(tf.io.encode_jpeg(pixels, quality=90).numpy())
            else:
                (folder / f"{i:05d}.png").write_bytes(tf.io.encode_png(pixels).numpy())
    return per_class * len(CLASSES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder to write (class subfolders in it)")
    parser.add_argument("--per-class", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n = write(args.out, args.per_class, args.seed)
    print(f"wrote {n} images in {len(CLASSES)} class folders under {args.out}")


if __name__ == "__main__":
    main()
