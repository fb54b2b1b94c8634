"""The conformance kit on this pack's optimizers, the catalogue schedules and callbacks
(issue 22's): each resolves, builds from Python and from a config block, and is documented.

Names are qualified with this distribution, so the checks test this pack's components even
if another installed pack offers the same names.
"""

from tensorweave.testing import ComponentCase, test_conformance  # noqa: F401

PACK = "tensorweave-train"
OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Nadam", "Adamax", "Adadelta"]
OPTIMIZERS += ["Ftrl", "Lion", "Lamb", "Adafactor"]

TENSORWEAVE_CASES = [
    *(
        ComponentCase(f"{PACK}:{name}.v1", {"learning_rate": 0.01}, kind="optimizers")
        for name in OPTIMIZERS
    ),
    ComponentCase(f"{PACK}:Adam.v1", {"ema": 0.99, "accumulate_steps": 4}, kind="optimizers"),
    ComponentCase(f"{PACK}:PolynomialDecay.v1", {"decay_steps": 100}, kind="schedules"),
    ComponentCase(
        f"{PACK}:PiecewiseConstant.v1",
        {"boundaries": [10, 20], "values": [1.0, 0.5, 0.1]},
        kind="schedules",
    ),
    ComponentCase(f"{PACK}:CosineDecayRestarts.v1", {"first_decay_steps": 10}, kind="schedules"),
    ComponentCase(
        f"{PACK}:InverseTimeDecay.v1", {"decay_steps": 10, "decay_rate": 0.5}, kind="schedules"
    ),
    ComponentCase(f"{PACK}:OneCycle.v1", {"total_steps": 100}, kind="schedules"),
    ComponentCase(f"{PACK}:SwapEMAWeights.v1", {"swap_on_epoch": True}, kind="callbacks"),
    ComponentCase(
        f"{PACK}:LearningRateScheduler.v1", {"schedule": "Constant.v1"}, kind="callbacks"
    ),
]
