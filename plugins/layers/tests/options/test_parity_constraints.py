"""The constraints against Keras 3's, on a kernel and on a dense weight, along the axes
Keras documents (``0`` for ``[in, out]``, ``[0, 1, 2]`` for a ``Conv2D`` kernel)."""

import keras
import numpy as np
import pytest

import tensorweave as tw

C = keras.constraints
CASES = [
    ("max_norm", {}, C.MaxNorm()),
    ("max_norm", {"max_value": 0.5, "axis": [0, 1, 2]}, C.MaxNorm(0.5, axis=[0, 1, 2])),
    ("min_max_norm", {"min_value": 0.5, "max_value": 1.5, "rate": 0.7},
     C.MinMaxNorm(0.5, 1.5, rate=0.7)),
    ("non_neg", {}, C.NonNeg()),
    ("unit_norm", {"axis": [0, 1, 2]}, C.UnitNorm(axis=[0, 1, 2])),
    ("unit_norm", {}, C.UnitNorm()),
]  # fmt: skip


SHAPED = [  # a dense weight [in, out] and a Conv2D kernel; the kernel's axes on kernels only
    (*case, shape)
    for case in CASES
    for shape in ((6, 4), (3, 3, 2, 4))
    if len(shape) == 4 or not isinstance(case[1].get("axis"), list)
]


@pytest.mark.parametrize(
    ("name", "options", "ref", "shape"), SHAPED, ids=[f"{c[0]}-{len(c[3])}d" for c in SHAPED]
)
def test_projection_matches_keras(randn, name, options, ref, shape):
    w = randn(*shape) * 3.0
    ours = tw.constraints[f"{name}.v1"](**options)(w)
    np.testing.assert_allclose(ours.numpy(), np.asarray(ref(w)), rtol=1e-5, atol=1e-6)


def test_a_layer_variable_carries_its_constraint():
    layer = tw.layers["Linear.v1"](tw.Input(n_units=3), 2, w_constraint="non_neg")
    w = layer.weights
    w.assign(-np.ones((3, 2), "float32"))
    w.assign(w.constraint(w))  # what a trainer does after each update
    assert w.numpy().tolist() == [[0.0, 0.0]] * 3 and layer.bias.constraint is None
