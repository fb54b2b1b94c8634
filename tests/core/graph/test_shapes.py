"""Shapes: ``normalize_shape`` turns any shape-like value into a tuple, batch first."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.graph.shapes import normalize_shape


def test_tensor_shape_and_unknown_rank():
    assert normalize_shape(tf.TensorShape([None, 2])) == (None, 2)
    assert normalize_shape([None, np.int64(3)]) == (None, 3)
    with pytest.raises(tw.ShapeError, match="known rank"):
        normalize_shape(tf.TensorShape(None))


def test_a_shape_that_is_no_sequence_is_refused_with_a_fix():
    for bad in (8, "8", b"8"):
        with pytest.raises(tw.ArgumentError, match=r"Fix: e.g. shape=\(None, 8\)"):
            normalize_shape(bad)


def test_the_old_import_paths_still_give_it():
    from tensorweave.graph import normalize_shape as from_graph
    from tensorweave.graph.layer import Shape, ShapeLike
    from tensorweave.graph.layer import normalize_shape as from_layer

    assert from_layer is normalize_shape is from_graph
    assert Shape == tuple[int | None, ...] and ShapeLike is not None
