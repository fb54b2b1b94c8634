"""Conformance of the catalogue's normalization, noise and activation layers.

The stochastic layers (and SpectralNorm, which renormalizes its kernel in every training
run) differ between two runs in training mode by design; those checks are skipped with
that reason, and every such layer also runs the whole table with ``training=False``.
"""

from tensorweave.testing import Case, test_conformance  # noqa: F401

RANDOM = "a new random draw every run: two runs differ by design (training=False tested)"
RANDOM_SKIPS = {
    "eager_equals_compiled": RANDOM,
    "reuse_shares_state": RANDOM,
    "in_module": RANDOM,
    "checkpoint": RANDOM,
}
UPDATES = "each training run renormalizes the kernel in place (training=False tested)"
UPDATE_SKIPS = dict.fromkeys(RANDOM_SKIPS, UPDATES)

TENSORWEAVE_CASES = [
    Case("GroupNorm.v1", {"groups": 2}, inputs=[(None, None, 4)]),
    Case("InstanceNorm.v1", {"center": False}, inputs=[(None, 3, 3, 2)]),
    Case("RMSNorm.v1", {"w_regularizer": "l2"}, inputs=[(None, 5)]),
    Case("SpectralNorm.v1", {"layer": "Conv2D.v1", "n_units": 2}, inputs=[(None, 4, 4, 2)],
         skip=UPDATE_SKIPS),
    Case("SpectralNorm.v1", {"layer": "Linear.v1", "n_units": 3, "training": False},
         inputs=[(None, 4)]),
    Case("SpatialDropout1D.v1", {"rate": 0.5}, inputs=[(None, None, 4)], skip=RANDOM_SKIPS),
    Case("SpatialDropout1D.v1", {"rate": 0.5, "training": False}, inputs=[(None, None, 4)]),
    Case("SpatialDropout2D.v1", {"rate": 0.5, "training": False}, inputs=[(None, 3, 3, 2)]),
    Case("SpatialDropout3D.v1", {"rate": 0.5, "training": False}, inputs=[(None, 2, 2, 2, 2)]),
    Case("GaussianNoise.v1", {"stddev": 0.5}, inputs=[(None, 4)], skip=RANDOM_SKIPS),
    Case("GaussianNoise.v1", {"stddev": 0.5, "training": False}, inputs=[(None, 4)]),
    Case("GaussianDropout.v1", {"rate": 0.3}, inputs=[(None, 4)], skip=RANDOM_SKIPS),
    Case("GaussianDropout.v1", {"rate": 0.3, "training": False}, inputs=[(None, 4)]),
    Case("AlphaDropout.v1", {"rate": 0.3}, inputs=[(None, None, 4)], skip=RANDOM_SKIPS),
    Case("AlphaDropout.v1", {"rate": 0.3, "training": False}, inputs=[(None, None, 4)]),
    Case("PReLU.v1", {"shared_axes": [1], "w_init": "uniform"}, inputs=[(None, None, 3)]),
    Case("LocalResponseNorm.v1", {"depth_radius": 2}, inputs=[(None, 3, 3, 4)]),
]  # fmt: skip
