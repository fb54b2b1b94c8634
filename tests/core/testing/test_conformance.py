"""The conformance kit, run on small in-test layers (and shown to catch broken ones)."""

from __future__ import annotations

import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.testing import (
    CHECKS,
    Case,
    InputSpec,
    build,
    run_check,
    sample,
    test_conformance,  # noqa: F401  (runs the table below)
)


class Scale(tw.Layer):
    """y = x * scale + shift, weights drawn with tf.random."""

    def __init__(self, x, *, name=None, share_state_with=None):
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self):
        self.state.scale = tf.Variable(tf.random.normal([self.n_units]), name="scale")
        self.state.shift = tf.Variable(tf.random.normal([self.n_units]), name="shift")

    def compute(self, x):
        return x * self.state.scale + self.state.shift


class Forgetful(Scale):
    """Broken on purpose: reuse_with makes fresh variables instead of sharing them."""

    def reuse_with(self, *inputs, **options):
        return Forgetful(*inputs)


class TwoFaced(Scale):
    """Broken on purpose: computes something else inside a tf.function than eagerly."""

    def compute(self, x):
        return super().compute(x) + (1.0 if tf.executing_eagerly() else 0.0)


class Frozen(Scale):
    """Broken on purpose: the output does not depend on the variables."""

    def compute(self, x):
        return tf.stop_gradient(x * self.state.scale)


class Float32Shift(Scale):
    """Broken on purpose: adds a float32 constant, so it cannot compute in bfloat16."""

    def compute(self, x):
        return super().compute(x) + tf.ones(x.shape[1:], tf.float32)


class Upcast(Scale):
    """Broken on purpose: computes in float32 under mixed precision without declaring it."""

    def compute(self, x):
        return tf.cast(x, tf.float32) * tf.cast(self.state.scale, tf.float32)


class Coarse(Scale):
    """Broken on purpose: wrong in bfloat16 (rounds its output to whole numbers)."""

    def compute(self, x):
        y = super().compute(x)
        return tf.round(y) if y.dtype == tf.bfloat16 else y


class Summed(tw.Layer):
    """Two inputs, one of them integer ids."""

    def __init__(self, x, ids, *, name=None, share_state_with=None):
        super().__init__(x, ids, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x, ids):
        return x + tf.cast(ids, x.dtype)


TENSORWEAVE_CASES = [
    Case("Scale.test", inputs=[(None, 3)], factory=Scale),
    Case("Scale.test", inputs=[(None, None, 2)], factory=Scale, batch_sizes=(1, 4)),
    Case(
        "Summed.test",
        inputs=[(None, 2), InputSpec((None, 2), dtype="int32", maxval=5)],
        factory=Summed,
    ),
    Case(
        "Scale.test",
        inputs=[(None, 2)],
        factory=Scale,
        skip={"checkpoint": "shown skippable, with its reason"},
    ),
]


def test_every_check_is_known():
    assert sorted(CHECKS) == [
        "build",
        "checkpoint",
        "eager_equals_compiled",
        "gradients",
        "in_module",
        "mixed_precision",
        "name_is_unique",
        "no_retrace",
        "reuse_shares_state",
    ]
    with pytest.raises(KeyError, match="no conformance check 'nope'"):
        run_check(TENSORWEAVE_CASES[0], "nope")


@pytest.mark.parametrize(
    ("layer", "check", "message"),
    [
        (Forgetful, "reuse_shares_state", "did not share the variables"),
        (TwoFaced, "eager_equals_compiled", "eager and compiled outputs differ"),
        (Frozen, "gradients", "no gradient reaches"),
        (Float32Shift, "mixed_precision", "fails under mixed_bfloat16, .* Fix: make the float"),
        (Upcast, "mixed_precision", "computes in float32 under mixed_bfloat16, but declares"),
        (Coarse, "mixed_precision", "mixed_bfloat16 vs float32"),
    ],
)
def test_the_kit_catches_broken_layers(layer, check, message):
    case = Case(layer.__name__, inputs=[(None, 3)], factory=layer)
    with pytest.raises(AssertionError, match=message):
        run_check(case, check)
    run_check(case, "build")  # the rest of the layer is fine


def test_a_factory_returning_a_non_layer_is_reported():
    case = Case("Raw.test", inputs=[(None, 2)], factory=lambda x: tf.zeros([1]))
    with pytest.raises(AssertionError, match=r"built a EagerTensor, not a tw\.Layer"):
        build(case)


def test_cases_resolve_registered_names():
    with tw.layers.scoped():
        tw.layers.register("ScaleForKit.v1", Scale)
        case = Case("ScaleForKit.v1", inputs=[(None, 2)])
        for check in CHECKS:
            run_check(case, check)
        layer, inputs = build(case)
        assert isinstance(layer, Scale) and inputs[0].shape == (None, 2)


def test_sample_values_follow_the_spec():
    ids = sample(InputSpec((None, 4), dtype="int64", maxval=3), batch=5)
    assert ids.shape == (5, 4) and ids.dtype == "int64" and ids.max() < 3
    seq = sample(InputSpec((None, None, 2)), batch=2)
    assert seq.shape == (2, 3, 2)
    sparse = sample(InputSpec((None, 6), sparse=True), batch=3)
    assert isinstance(sparse, tf.SparseTensor) and sparse.dense_shape.numpy().tolist() == [3, 6]
    assert str(Case("Linear.v1", {"n_units": 4})).startswith("Linear.v1(n_units=4)")


def test_a_layer_another_distribution_also_offers_is_flagged(fake_dists):
    from tests.fakes import LAYER_SOURCE

    mine = fake_dists.add(
        "kit-mine", entry_points={"layers": {"Twin.v1": "a:Thing"}}, modules={"a": LAYER_SOURCE}
    )
    rival = fake_dists.add(
        "kit-rival", entry_points={"layers": {"Twin.v1": "b:Thing"}}, modules={"b": LAYER_SOURCE}
    )
    case = Case(mine.qualified("Twin.v1"), inputs=[(None, 2)])
    run_check(case, "build")  # the qualified name still builds
    with pytest.raises(AssertionError, match=f"also offered by {rival.name}"):
        run_check(case, "name_is_unique")
