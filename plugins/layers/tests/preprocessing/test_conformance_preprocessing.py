"""The conformance kit on the preprocessing layers (with given state: adapting is tested in
the parity and state tests). The kit draws numbers only, so StringLookup's string inputs are
checked by hand in test_string_inputs.py (checkpoint, SavedModel, reuse, compiled)."""

from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401

RANDOM = "a new random draw every run: two runs differ by design (training=False tested)"
RANDOM_SKIPS = dict.fromkeys(
    ("eager_equals_compiled", "reuse_shares_state", "in_module", "checkpoint"), RANDOM
)
IMAGES = [(None, 4, 4, 3)]
IDS = InputSpec((None, 3), dtype="int64", maxval=6)

TENSORWEAVE_CASES = [
    Case("Normalization.v1", {"mean": [1.0, 2.0, 3.0, 4.0], "variance": [1.0, 4.0, 9.0, 0.5]}),
    Case("Normalization.v1", {"axis": None, "mean": 1.0, "variance": 2.0, "invert": True},
         inputs=[(None, 3, 2)]),
    Case("Normalization.v1", {}, inputs=[(None, 2, 3)]),
    Case("Rescaling.v1", {"scale": 0.5, "offset": -1.0}),
    Case("Discretization.v1", {"bin_boundaries": [-0.5, 0.0, 0.5]}),
    Case("Discretization.v1", {"bin_boundaries": [0.0], "output_mode": "count"}),
    Case("Discretization.v1", {"num_bins": 3, "output_mode": "one_hot"}, inputs=[(None, 1)]),
    Case("IntegerLookup.v1", {"vocabulary": [5, 1, 3]}, inputs=[IDS]),
    Case("IntegerLookup.v1", {"vocabulary": [5, 1], "num_oov_indices": 2, "mask_token": 0,
                              "output_mode": "count"}, inputs=[IDS]),
    Case("IntegerLookup.v1", {"max_tokens": 4, "output_mode": "multi_hot"}, inputs=[IDS]),
    Case("CategoryEncoding.v1", {"num_tokens": 6}, inputs=[IDS]),
    Case("CategoryEncoding.v1", {"num_tokens": 6, "output_mode": "one_hot"},
         inputs=[InputSpec((None, 1), dtype="int32", maxval=6)]),
    Case("Hashing.v1", {"num_bins": 4}, inputs=[IDS]),
    Case("Hashing.v1", {"num_bins": 4, "salt": [1, 2], "output_mode": "count"}),
    Case("RandomFlip.v1", {}, inputs=IMAGES, skip=RANDOM_SKIPS),
    Case("RandomFlip.v1", {"training": False}, inputs=IMAGES),
    Case("RandomContrast.v1", {"factor": 0.3}, inputs=IMAGES, skip=RANDOM_SKIPS),
    Case("RandomContrast.v1", {"factor": 0.3, "training": False}, inputs=IMAGES),
    Case("RandomBrightness.v1", {"factor": 0.3, "value_range": (-3, 3)}, inputs=IMAGES,
         skip=RANDOM_SKIPS),
    Case("RandomBrightness.v1", {"factor": 0.3, "training": False}, inputs=IMAGES),
    Case("Resizing.v1", {"height": 2, "width": 3}, inputs=IMAGES),
    Case("Resizing.v1", {"height": 3, "width": 2, "crop_to_aspect_ratio": True}, inputs=IMAGES),
    Case("Resizing.v1", {"height": 4, "width": 5}, inputs=[(None, None, None, 2)]),
    Case("CenterCrop.v1", {"height": 2, "width": 3}, inputs=IMAGES),
    Case("RandomRotation.v1", {"factor": 0.2}, inputs=IMAGES, skip=RANDOM_SKIPS),
    Case("RandomRotation.v1", {"factor": 0.2, "training": False}, inputs=IMAGES),
    Case("RandomZoom.v1", {"height_factor": 0.2}, inputs=IMAGES, skip=RANDOM_SKIPS),
    Case("RandomZoom.v1", {"height_factor": 0.2, "training": False}, inputs=IMAGES),
    Case("RandomTranslation.v1", {"height_factor": 0.2, "width_factor": 0.2}, inputs=IMAGES,
         skip=RANDOM_SKIPS),
    Case("RandomTranslation.v1", {"height_factor": 0.2, "width_factor": 0.2, "training": False},
         inputs=IMAGES),
    Case("RandomCrop.v1", {"height": 2, "width": 3}, inputs=IMAGES, skip=RANDOM_SKIPS),
    Case("RandomCrop.v1", {"height": 2, "width": 3, "training": False}, inputs=IMAGES),
]  # fmt: skip
