"""Public test helpers for tensorweave packs: the conformance kit and its pytest plugin.

A pack's test module lists its components and imports the ready-made test::

    from tensorweave.testing import Case, CommandCase, ComponentCase, test_conformance  # noqa: F401

    TENSORWEAVE_CASES = [
        Case("Linear.v1", {"n_units": 4}, inputs=[(None, 3)]),      # a layer, loss, metric
        ComponentCase("EarlyStopping.v1", {"patience": 2}, kind="callbacks"),  # anything else
        CommandCase("my-command", ["--help"], distribution="my-pack"),  # a command it adds
    ]

The ``tensorweave`` pytest plugin (installed with the core) runs every check of its kind on
every case.

>>> from tensorweave.testing import CHECKS
>>> sorted(CHECKS)[:3]
['build', 'checkpoint', 'eager_equals_compiled']
"""

from pytest_tensorweave import test_conformance

from tensorweave.testing.commands import CommandCase
from tensorweave.testing.components import ComponentCase
from tensorweave.testing.conformance import (
    CHECKS,
    Case,
    InputSpec,
    build,
    checks_of,
    run_check,
    sample,
)
from tensorweave.testing.packages import check_lazy_package, check_light_modules

__all__ = [
    "CHECKS",
    "Case",
    "CommandCase",
    "ComponentCase",
    "InputSpec",
    "build",
    "check_lazy_package",
    "checks_of",
    "check_light_modules",
    "run_check",
    "sample",
    "test_conformance",
]
