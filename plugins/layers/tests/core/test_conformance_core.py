"""The core layers (Activation, Constant, OneHot, Param, ToDense, ToSparse, Lambda) through the conformance kit, each built by name."""

import tensorflow as tf

import tensorweave as tw
from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401

TENSORWEAVE_CASES = [
    Case("tensorweave-layers:Activation.v1", {"activation": "relu"}),
    Case("tensorweave-layers:Activation.v1", {"activation": "sparsemax"}),
    Case("tensorweave-layers:Activation.v1", {"activation": "leaky_relu", "alpha": 0.1}),
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
    Case("tensorweave-layers:Param.v1", {"value": [1.0, 2.0], "trainable": True}, inputs=[]),
    Case("tensorweave-layers:Constant.v1", {"value": [[1.0, 2.0]]}, inputs=[]),
    Case(
        "tensorweave-layers:Lambda.v1",
        inputs=[(None, 3)],
        factory=lambda x: tw.layers["tensorweave-layers:Lambda.v1"](tf.tanh, x),
    ),
]
