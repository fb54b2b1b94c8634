"""The merging layers (Add, Concat, Gate, CoupledGate, Merge, Multiply, Residual) through the conformance kit, each built by name."""

from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401

TENSORWEAVE_CASES = [
    Case("tensorweave-layers:Add.v1", inputs=[(None, 4), (None, 4)]),
    Case(
        "tensorweave-layers:Add.v1",
        {"weights": [0.5, 2.0], "learn_weights": True},
        inputs=[(None, 4), (None, 4)],
    ),
    Case("tensorweave-layers:Multiply.v1", inputs=[(None, 4), (None, 4), (None, 4)]),
    Case("tensorweave-layers:Concat.v1", inputs=[(None, 2), (None, 3)]),
    Case("tensorweave-layers:Concat.v1", {"axis": 1}, inputs=[(None, 2, 3), (None, 1, 3)]),
    Case(
        "tensorweave-layers:Concat.v1",
        inputs=[InputSpec((None, 2), sparse=True), InputSpec((None, 3), sparse=True)],
    ),
    Case(
        "tensorweave-layers:Merge.v1",
        {"weights": [1.0, 2.0], "merge_fn": "max"},
        inputs=[(None, 4), (None, 4)],
    ),
    Case("tensorweave-layers:Merge.v1", {"merge_fn": "concat"}, inputs=[(None, 4), (None, 2)]),
    Case("tensorweave-layers:Residual.v1", inputs=[(None, 3), (None, 4)]),
    Case("tensorweave-layers:Residual.v1", inputs=[(None, 4), (None, 4)]),
    Case("tensorweave-layers:Gate.v1", inputs=[(None, 4), (None, 2)]),
    Case("tensorweave-layers:CoupledGate.v1", inputs=[(None, 4), (None, 4), (None, 4)]),
]
