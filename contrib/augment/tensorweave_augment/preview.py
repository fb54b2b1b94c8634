"""``tensorweave augment-preview NAME``: what an augmenter does to a small batch.

The augmenter is built from its name and ``--option KEY=VALUE`` pairs exactly as a config
block would build it (``tw.config``: unknown or mistyped options are refused with their
names), applied to a fixed 3x4 batch, and both are printed with the mean change.

>>> run("AugmentJitter.v1", ["stddev=0"], seed=0)
AugmentJitter.v1 (stddev=0) on a 3x4 batch, seed 0: mean |change| 0.0000
  before  0.00  0.08  0.17  0.25
  after   0.00  0.08  0.17  0.25
  before  0.33  0.42  0.50  0.58
  after   0.33  0.42  0.50  0.58
  before  0.67  0.75  0.83  0.92
  after   0.67  0.75  0.83  0.92
0
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave import config

__all__ = ["run"]


def run(name: str, options: Sequence[str], *, seed: int = 0) -> int:
    """Print the batch before and after ``name`` with ``options``; the exit code."""
    tw.resolve("augmenters", name)  # an unknown name: UnknownComponentError (exit 3)
    try:
        block = config.apply_overrides(
            {"augmenter": {"@augmenters": name}}, [f"augmenter.{o}" for o in options]
        )
        augmenter = config.resolve(block)["augmenter"]
    except config.ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    x = tf.reshape(tf.range(12, dtype=tf.float32), [3, 4]) / 12.0
    y = augmenter(x, tf.random.Generator.from_seed(seed))
    before, after = np.asarray(x), np.asarray(y)
    shown = ", ".join(options)
    print(
        f"{name} ({shown}) on a 3x4 batch, seed {seed}: "
        f"mean |change| {float(np.mean(np.abs(after - before))):.4f}"
    )
    for row_before, row_after in zip(before, after, strict=True):
        print("  before" + "".join(f"{v:6.2f}" for v in row_before))
        print("  after " + "".join(f"{v:6.2f}" for v in row_after))
    return 0
