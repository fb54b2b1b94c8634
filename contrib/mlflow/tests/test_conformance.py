"""The conformance kit on this pack's callback and command (names qualified with the
distribution, so another pack offering the same name cannot hide them)."""

from tensorweave.testing import CommandCase, ComponentCase, test_conformance  # noqa: F401

PACK = "tensorweave-mlflow"

TENSORWEAVE_CASES = [
    ComponentCase(
        f"{PACK}:MLflowLogger.v1",
        {"tracking_uri": "http://127.0.0.1:5000", "experiment": "digits", "every_n_steps": 5},
        kind="callbacks",
    ),
    CommandCase("mlflow", ["sync", "--help"], distribution=PACK, output="mlflow-pending.json"),
]
