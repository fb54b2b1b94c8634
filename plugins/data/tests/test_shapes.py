"""shapes_segmentation.v1: noisy images of circles, squares and triangles with a class id
per pixel, drawn from a seed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_data.datasets import split_indices
from tensorweave_data.shapes import CLASSES, draw_shapes

datasets = tw.registry("datasets")


def test_registered_under_datasets_kind() -> None:
    assert datasets.info("shapes_segmentation.v1").distribution == "tensorweave-data"


def test_splits_fields_and_info() -> None:
    d = datasets["shapes_segmentation.v1"](samples=20, size=16, channels=3, workers=0)
    assert d.train["x"].shape == (16, 16, 16, 3) and d.train["x"].dtype == np.float32
    assert d.valid["y"].shape == (4, 16, 16) and d.valid["y"].dtype == np.int64
    assert d.train["x"].min() >= 0.0 and d.train["x"].max() <= 1.0
    assert d.info["n_classes"] == 4 and d.info["classes"] == list(CLASSES)
    assert d.info["x_shape"] == [16, 16, 3] and d.info["samples"] == 20
    assert d.postprocess == [{"@processors": "argmax.v1"}] and d.steps == []


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    size=st.integers(8, 40),
    channels=st.sampled_from([1, 3]),
    max_shapes=st.integers(1, 4),
)
def test_masks_are_class_ids_and_every_shape_pixel_is_drawn(
    seed: int, size: int, channels: int, max_shapes: int
) -> None:
    """Without noise, a pixel is brighter than every background level (0.4) exactly
    where the mask has a shape; every image has one to ``max_shapes`` shapes."""
    x, y = draw_shapes(np.random.default_rng(seed), size, channels, max_shapes, noise=0.0)
    assert x.shape == (size, size, channels) and y.shape == (size, size)
    assert set(np.unique(y).tolist()) <= set(range(len(CLASSES)))
    assert 1 <= len(set(np.unique(y).tolist()) - {0}) <= max_shapes
    np.testing.assert_array_equal((x >= 0.6).all(-1), y > 0)
    np.testing.assert_array_equal((x <= 0.4).all(-1), y == 0)


@pytest.mark.parametrize(("kind", "fill"), [(1, (0.65, 0.9)), (2, (1.0, 1.0)), (3, (0.4, 0.7))])
def test_each_class_has_its_shape(kind: int, fill: tuple[float, float]) -> None:
    """A lone shape fills its bounding box as its kind does: a disc about pi/4, a square
    all of it, a triangle about half."""
    seen = 0
    for seed in range(40):
        _, y = draw_shapes(np.random.default_rng(seed), 32, 1, 1, noise=0.0)
        rows, cols = np.nonzero(y)
        if y[rows[0], cols[0]] != kind:
            continue
        box = (rows.max() - rows.min() + 1) * (cols.max() - cols.min() + 1)
        assert fill[0] <= len(rows) / box <= fill[1], CLASSES[kind]
        assert set(np.unique(y).tolist()) == {0, kind}
        seen += 1
    assert seen >= 5


def test_same_seed_same_data_and_smaller_sets_are_prefixes() -> None:
    make = datasets["shapes_segmentation.v1"]
    a = make(samples=30, size=16, seed=3, workers=0)
    b = make(samples=30, size=16, seed=3, workers=0)
    np.testing.assert_array_equal(a.train["x"], b.train["x"])
    np.testing.assert_array_equal(a.valid["y"], b.valid["y"])
    assert not np.array_equal(make(samples=30, size=16, seed=4, workers=0).train["y"], a.train["y"])
    # image i is drawn from (seed, i) alone, so a smaller set is the start of a larger one;
    # the split is the pack's seeded split
    train_at, valid_at = split_indices(30, 0.2, 3)
    drawn = [draw_shapes(np.random.default_rng([3, i]), 16, 1, 3, 0.1) for i in range(30)]
    np.testing.assert_array_equal(a.train["x"], np.stack([drawn[i][0] for i in train_at]))
    np.testing.assert_array_equal(a.valid["y"], np.stack([drawn[i][1] for i in valid_at]))


def test_steps_run_on_every_sample() -> None:
    one_hot = [{"@processors": "one_hot.v1", "field": "y", "num_classes": 4}]
    d = datasets["shapes_segmentation.v1"](samples=5, size=8, steps=one_hot, workers=0)
    assert d.train["y"].shape == (4, 8, 8, 4) and d.steps == one_hot


def test_bad_options_name_the_dataset_and_the_fix() -> None:
    make = datasets["shapes_segmentation.v1"]
    with pytest.raises(tw.ArgumentError, match=r"shapes_segmentation: channels must be 1 .* Fix"):
        make(channels=2)
    with pytest.raises(tw.ArgumentError, match="size must be at least 8 pixels"):
        make(size=4)
    with pytest.raises(tw.ArgumentError, match="samples must be a positive integer"):
        make(samples=0)
    with pytest.raises(tw.ArgumentError, match="noise must be >= 0"):
        make(noise=-0.1)
