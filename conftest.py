"""Shared pytest setup: quiet TensorFlow, a no-deadline hypothesis profile, fresh names.

Docstring examples get no injected names: each imports what it uses (numpy, tensorflow,
tensorweave), so it runs when pasted (``tests/integration/test_docstring_imports.py``)."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "-1")
# tensorweave-store records every training in a store under the runs root and caches model
# versions: keep the suite's records out of the working tree and the home directory.
os.environ.setdefault("TW_TEST_STORE", f"/tmp/tw-test-store-{os.getpid()}")
os.environ.setdefault("TENSORWEAVE_RUNS", os.environ["TW_TEST_STORE"] + "/runs")
os.environ.setdefault("TENSORWEAVE_STORE_CACHE", os.environ["TW_TEST_STORE"] + "/cache")

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "tensorweave",
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile("tensorweave")


@pytest.fixture(autouse=True)
def _fresh_names():
    """Every test starts with fresh automatic names (``linear``, not ``linear_17``)."""
    import tensorweave as tw

    tw.reset_names()
    yield
