"""The conformance kit on the preprocessing layers (with given state: adapting is tested in
the parity and state tests)."""

from tensorweave.testing import Case, test_conformance  # noqa: F401

TENSORWEAVE_CASES = [
    Case("Normalization.v1", {"mean": [1.0, 2.0, 3.0, 4.0], "variance": [1.0, 4.0, 9.0, 0.5]}),
    Case("Normalization.v1", {"axis": None, "mean": 1.0, "variance": 2.0, "invert": True},
         inputs=[(None, 3, 2)]),
    Case("Normalization.v1", {}, inputs=[(None, 2, 3)]),
    Case("Rescaling.v1", {"scale": 0.5, "offset": -1.0}),
    Case("Discretization.v1", {"bin_boundaries": [-0.5, 0.0, 0.5]}),
    Case("Discretization.v1", {"bin_boundaries": [0.0], "output_mode": "count"}),
    Case("Discretization.v1", {"num_bins": 3, "output_mode": "one_hot"}, inputs=[(None, 1)]),
]  # fmt: skip
