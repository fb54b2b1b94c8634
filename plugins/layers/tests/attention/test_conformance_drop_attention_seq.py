"""Conformance of the part-B dropout, attention and sequence layers.

Stochastic layers in training mode draw a new mask per run, so comparing two runs
(eager vs compiled, original vs reuse, before/after checkpoint, direct vs in a Module) is
meaningless for them; those checks are skipped with that reason, and every such layer also
runs the full table in its deterministic mode (``training=False``).
"""

import tensorweave as tw
from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401

RANDOM = "a new random mask every run: two runs differ by design (deterministic mode tested)"
RANDOM_SKIPS = {
    "eager_equals_compiled": RANDOM,
    "reuse_shares_state": RANDOM,
    "in_module": RANDOM,
    "checkpoint": RANDOM,
}
IDS = InputSpec((None, None), "int64", maxval=3)
SPARSE = InputSpec((None, 6), sparse=True)


def _drop_connect_on_linear(x: tw.Layer, **options: object) -> tw.Layer:
    return tw.layers["DropConnect.v1"](x, linear=tw.layers["Linear.v1"](x, 3), **options)


def _drop_connect_on_tied_linear(x: tw.Layer) -> tw.Layer:
    enc = tw.layers["Linear.v1"](tw.Input(n_units=3), 5)  # W (3, 5)
    dec = enc.reuse_with(enc, transpose_weights=True)  # x @ W.T: 5 -> 3, tied
    return tw.layers["DropConnect.v1"](x, linear=dec, training=False)


def _two_layer_step(step: tw.Layer) -> tw.Layer:
    hidden = tw.layers["DropConnect.v1"](step, n_units=4, training=False)
    return tw.layers["LayerNorm.v1"](hidden, epsilon=1e-5)


TENSORWEAVE_CASES = [
    Case("Dropout.v1", {"rate": 0.5}, inputs=[(None, 6)], skip=RANDOM_SKIPS),
    Case("Dropout.v1", {"rate": 0.5, "training": False}, inputs=[(None, 6)]),
    Case("Dropout.v1", {"rate": 0.4}, inputs=[SPARSE], skip=RANDOM_SKIPS),
    Case("Dropout.v1", {"rate": 0.5, "training": False}, inputs=[SPARSE]),
    Case(
        "Dropout.v1",
        {"rate": 0.3, "noise_shape": (None, 1, None)},
        inputs=[(None, None, 4)],
        skip=RANDOM_SKIPS,
    ),
    Case("DropConnect.v1", {"n_units": 3, "rate": 0.5}, inputs=[(None, 5)], skip=RANDOM_SKIPS),
    Case("DropConnect.v1", {"n_units": 3, "training": False}, inputs=[(None, 5)]),
    Case("DropConnect.v1", {"n_units": 3, "training": False}, inputs=[SPARSE]),
    Case(
        "DropConnect.v1", {"training": False}, inputs=[(None, 5)], factory=_drop_connect_on_linear
    ),
    Case(
        "DropConnect.v1",
        {"rate": 0.5},
        inputs=[(None, 5)],
        factory=_drop_connect_on_linear,
        skip=RANDOM_SKIPS,
    ),
    Case("DropConnect.v1", inputs=[(None, 5)], factory=_drop_connect_on_tied_linear),
    Case("DropLookup.v1", {"rate": 0.5}, inputs=[(None, None, 4), IDS], skip=RANDOM_SKIPS),
    Case("DropLookup.v1", {"rate": 0.3}, inputs=[(None, None, 4)], skip=RANDOM_SKIPS),
    Case("DropLookup.v1", {"training": False}, inputs=[(None, None, 4), IDS]),
    Case(
        "MHAttention.v1",
        {"n_units": 4, "n_heads": 2},
        inputs=[(None, None, 4), (None, None, 6), (None, None, 5)],
    ),
    Case("MHAttention.v1", {"n_units": 6, "n_heads": 3, "causal": True}, inputs=[(None, None, 4)]),
    Case(
        "MHAttention.v1",
        {"n_units": 4, "n_heads": 1, "causal": True},
        inputs=[(None, None, 4), (None, None, 4), (None, None, 3), InputSpec((None, None), "bool")],
    ),
    Case(
        "MHAttention.v1",
        {"n_units": 4, "n_heads": 2, "dropout": 0.5},
        inputs=[(None, None, 4)],
        skip=RANDOM_SKIPS,
    ),
    Case(
        "MHAttention.v1",
        {"n_units": 4, "n_heads": 2, "dropout": 0.5, "training": False},
        inputs=[(None, None, 4)],
    ),
    Case("SeqMap.v1", {"layer": "LayerNorm.v1"}, inputs=[(None, None, 3)]),
    Case("SeqMap.v1", {"layer": "Conv1D.v1", "n_units": 2}, inputs=[(None, None, 5, 3)]),
    Case("SeqMap.v1", {"layer": _two_layer_step}, inputs=[(None, 4, 3)]),
    Case("SeqConcat.v1", {}, inputs=[(None, 3, 2)]),
    Case("SeqConcat.v1", {}, inputs=[(None, None, 2)]),
    Case("SeqConcat.v1", {"seq_size": 3}, inputs=[(None, 3, 2)]),
]
