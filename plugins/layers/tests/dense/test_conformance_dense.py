"""Part A of the layer pack through the conformance kit: every layer, built by name."""

import tensorflow as tf

import tensorweave as tw
from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401

ids = InputSpec((None, None), dtype="int64", maxval=10)
sparse_ids = InputSpec((None, 4), dtype="int64", maxval=10, sparse=True)
bags = InputSpec((None, 4), sparse=True)  # weighted bags of the ids 0..3 (TensorX)
NO_STATE = "a stateless layer with no inputs"

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
    Case("tensorweave-layers:Activation.v1", {"activation": "relu"}),
    Case("tensorweave-layers:Activation.v1", {"activation": "sparsemax"}),
    Case("tensorweave-layers:Activation.v1", {"activation": "leaky_relu", "alpha": 0.1}),
    Case("tensorweave-layers:FC.v1", {"n_units": 3, "activation": "tanh"}),
    Case(
        "tensorweave-layers:FC.v1",
        {"n_units": 2, "activation": "sigmoid"},
        inputs=[InputSpec((None, 5), sparse=True)],
    ),
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
    Case("tensorweave-layers:Reshape.v1", {"shape": (2, 2)}, inputs=[(None, 4)]),
    Case("tensorweave-layers:Transpose.v1", inputs=[(None, 2, 3)]),
    Case("tensorweave-layers:Transpose.v1", {"perm": (2, 0, 1)}, inputs=[(None, 2, 3)]),
    Case("tensorweave-layers:Transpose.v1", {"perm": (1, 0)}, inputs=[(None, 4)]),
    Case(
        "tensorweave-layers:OneHot.v1",
        {"n_units": 10},
        inputs=[InputSpec((None, None), dtype="int32")],
    ),
    Case(
        "tensorweave-layers:OneHot.v1", {"n_units": 12}, inputs=[InputSpec((None,), dtype="int64")]
    ),
    Case("tensorweave-layers:ToSparse.v1", inputs=[(None, 4)]),
    Case("tensorweave-layers:ToDense.v1", inputs=[InputSpec((None, 4), sparse=True)]),
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
    Case("tensorweave-layers:Param.v1", {"value": [1.0, 2.0], "trainable": True}, inputs=[]),
    Case("tensorweave-layers:Constant.v1", {"value": [[1.0, 2.0]]}, inputs=[]),
    Case(
        "tensorweave-layers:Lambda.v1",
        inputs=[(None, 3)],
        factory=lambda x: tw.layers["tensorweave-layers:Lambda.v1"](tf.tanh, x),
    ),
]
