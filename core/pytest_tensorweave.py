"""The pytest plugin behind ``tensorweave.testing`` (entry point ``pytest11``), kept
outside the ``tensorweave`` package so loading it never imports TensorFlow.

A test module that defines ``TENSORWEAVE_CASES`` and imports ``test_conformance`` gets one
test per (case, check), ids like ``test_conformance[Linear.v1(n_units=4)-gradients]``; the
checks depend on the case (a layer ``Case``, a ``ComponentCase``, a ``CommandCase``).
Skipped checks show the reason the case gave. This module imports nothing heavy until a
module actually uses it, so it costs nothing in other projects' test runs.
"""

from __future__ import annotations

from typing import Any

CASES_ATTRIBUTE = "TENSORWEAVE_CASES"


def pytest_generate_tests(metafunc: Any) -> None:
    """Parametrize ``test_conformance`` over the module's cases and every check."""
    if metafunc.function.__name__ != "test_conformance" or "tw_case" not in metafunc.fixturenames:
        return
    cases = getattr(metafunc.module, CASES_ATTRIBUTE, None)
    if cases is None:
        raise ValueError(
            f"{metafunc.module.__name__} imports test_conformance but defines no "
            f"{CASES_ATTRIBUTE} list. Fix: {CASES_ATTRIBUTE} = [Case('Name.v1', ...)]."
        )
    from tensorweave.testing.conformance import checks_of

    params = [(case, check) for case in cases for check in checks_of(case)]
    ids = [f"{case}-{check}" for case, check in params]
    metafunc.parametrize(("tw_case", "tw_check"), params, ids=ids)


def test_conformance(tw_case: Any, tw_check: str) -> None:
    """One conformance check on one case (parametrized by the plugin)."""
    import pytest

    from tensorweave.testing.conformance import run_check

    if tw_check in tw_case.skip:
        pytest.skip(f"{tw_case}: {tw_check} skipped: {tw_case.skip[tw_check]}")
    run_check(tw_case, tw_check)
