"""Lookup through the conformance kit, each built by name."""

from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401

ids = InputSpec((None, None), dtype="int64", maxval=10)
sparse_ids = InputSpec((None, 4), dtype="int64", maxval=10, sparse=True)
bags = InputSpec((None, 4), sparse=True)  # weighted bags of the ids 0..3 (TensorX)

TENSORWEAVE_CASES = [
    Case("tensorweave-layers:Lookup.v1", {"vocab_size": 10, "n_units": 3}, inputs=[ids]),
    Case(
        "tensorweave-layers:Lookup.v1",
        {"vocab_size": 10, "n_units": 3, "pad_id": 0, "seq_len": 5},
        inputs=[ids],
    ),
    Case(
        "tensorweave-layers:Lookup.v1",
        {"vocab_size": 10, "n_units": 3, "sparse_values": "ids"},
        inputs=[sparse_ids],
    ),
    Case(
        "tensorweave-layers:Lookup.v1",
        {"vocab_size": 10, "n_units": 3, "combiner": "mean", "sparse_values": "ids"},
        inputs=[sparse_ids],
    ),
    Case("tensorweave-layers:Lookup.v1", {"vocab_size": 4, "n_units": 3}, inputs=[bags]),
    Case(
        "tensorweave-layers:Lookup.v1",
        {"vocab_size": 4, "n_units": 3, "seq_len": 2, "combiner": "mean"},
        inputs=[bags],
        batch_sizes=(2, 4),
    ),
    Case(
        "tensorweave-layers:Lookup.v1",
        {"vocab_size": 10, "n_units": 3, "batch_size": 8},
        inputs=[ids],
    ),
]
