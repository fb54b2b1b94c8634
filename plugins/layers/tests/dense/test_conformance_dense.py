"""The dense layers (Linear, FC) through the conformance kit, each built by name."""

import tensorweave as tw
from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401

TENSORWEAVE_CASES = [
    Case("tensorweave-layers:Linear.v1", {"n_units": 4}, inputs=[(None, 3)]),
    Case(
        "tensorweave-layers:Linear.v1",
        {"n_units": 2, "add_bias": False, "w_init": "orthogonal"},
        inputs=[(None, 3)],
    ),
    Case("tensorweave-layers:Linear.v1", {"n_units": 2}, inputs=[(None, None, 3)]),
    Case(
        "tensorweave-layers:Linear.v1", {"n_units": 2}, inputs=[InputSpec((None, 3), sparse=True)]
    ),
    Case(
        "tensorweave-layers:Linear.v1",
        {"n_units": 2, "transpose_weights": True},
        inputs=[(None, 3)],
        factory=lambda x, **kw: tw.layers["tensorweave-layers:Linear.v1"](x, **kw),
    ),
    Case("tensorweave-layers:FC.v1", {"n_units": 3, "activation": "tanh"}),
    Case(
        "tensorweave-layers:FC.v1",
        {"n_units": 2, "activation": "sigmoid"},
        inputs=[InputSpec((None, 5), sparse=True)],
    ),
]
