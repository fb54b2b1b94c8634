"""Public test helpers for tensorweave packs: the conformance kit and its pytest plugin.

A pack's test module lists its components and imports the ready-made test::

    from tensorweave.testing import Case, test_conformance  # noqa: F401

    TENSORWEAVE_CASES = [Case("Linear.v1", {"n_units": 4}, inputs=[(None, 3)])]

The ``tensorweave`` pytest plugin (installed with the core) runs every check on every case.

>>> from tensorweave.testing import CHECKS
>>> sorted(CHECKS)[:3]
['build', 'checkpoint', 'eager_equals_compiled']
"""

from pytest_tensorweave import test_conformance

from tensorweave.testing.conformance import CHECKS, Case, InputSpec, build, run_check, sample
from tensorweave.testing.packages import check_lazy_package, check_light_modules

__all__ = [
    "CHECKS",
    "Case",
    "InputSpec",
    "build",
    "check_lazy_package",
    "check_light_modules",
    "run_check",
    "sample",
    "test_conformance",
]
