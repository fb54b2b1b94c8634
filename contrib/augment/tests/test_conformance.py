"""The conformance kit on every part of this pack: the layer, the components of its own
kind (with the kind's own checks, published by its hook), the callback and the command.

Names are qualified with this distribution, so the checks test this pack's components even
if another installed pack offers the same names (the ``name_is_unique`` check says so).
"""

from tensorweave.testing import Case, CommandCase, ComponentCase, test_conformance  # noqa: F401

PACK = "tensorweave-augment"
RANDOM = "draws a new augmentation on every run while training"
RANDOM_SKIPS = {
    check: RANDOM
    for check in ("eager_equals_compiled", "reuse_shares_state", "checkpoint", "in_module")
}

TENSORWEAVE_CASES = [
    Case(f"{PACK}:Augment.v1", {"training": False}, inputs=[(None, 3)]),
    Case(
        f"{PACK}:Augment.v1",
        {"augmenter": "AugmentScale.v1"},
        inputs=[(None, None, 4)],
        skip=RANDOM_SKIPS,
    ),
    ComponentCase(f"{PACK}:AugmentJitter.v1", {"stddev": 0.2}, kind="augmenters"),
    ComponentCase(f"{PACK}:AugmentScale.v1", {"low": 0.5, "high": 1.5}, kind="augmenters"),
    ComponentCase(f"{PACK}:AugmentOff.v1", {"after_epoch": 2}, kind="callbacks"),
    CommandCase("augment-preview", ["AugmentJitter.v1"], distribution=PACK, output="mean |change|"),
]
