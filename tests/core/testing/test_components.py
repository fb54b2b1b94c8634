"""``ComponentCase``: the kit on components that are not layers, shown to catch what is
wrong with them (undocumented, undeclared kind, a clash, a check of the kind's pack)."""

from __future__ import annotations

import pytest

from tensorweave.testing import ComponentCase, checks_of, run_check

KIND = """
import tensorweave as tw

gizmos = tw.Kind.of_callables("gizmos", doc="things that tick, for the kit's tests")
"""

GIZMOS = """
class Ticker:
    '''Ticks ``times`` times.'''

    def __init__(self, times: int = 1):
        self.times = times

    def __call__(self):
        return "tick" * self.times


class Silent:
    def __init__(self, times: int = 1):
        self.times = times

    def __call__(self):
        return ""
"""

CHECKS = """
import tensorweave as tw


def _ticks(gizmo):
    assert gizmo().startswith("tick"), f"{gizmo!r} does not tick"


@tw.hookimpl
def tensorweave_conformance_checks(kind):
    return {"ticks": _ticks} if kind == "gizmos" else None
"""


@pytest.fixture
def gizmos(fake_dists):
    return fake_dists.add(
        "gizmo-pack",
        entry_points={
            "kinds": {"gizmos": "kinds:gizmos"},
            "gizmos": {"Ticker.v1": "gizmo:Ticker", "Silent.v1": "gizmo:Silent"},
            "plugins": {"checks": "checks"},
        },
        modules={"kinds": KIND, "gizmo": GIZMOS, "checks": CHECKS},
    )


def test_a_conforming_component_passes_every_check_and_the_kinds_own(gizmos):
    case = ComponentCase(gizmos.qualified("Ticker.v1"), {"times": 2}, kind="gizmos")
    assert set(checks_of(case)) == {
        "resolves",
        "builds",
        "builds_from_config",
        "documented",
        "name_is_unique",
        "ticks",
    }
    for check in checks_of(case):
        run_check(case, check)


def test_the_kinds_pack_check_and_the_docs_check_catch_a_silent_undocumented_one(gizmos):
    case = ComponentCase(gizmos.qualified("Silent.v1"), kind="gizmos")
    with pytest.raises(AssertionError, match="does not tick"):
        run_check(case, "ticks")
    with pytest.raises(AssertionError, match="no docstring"):
        run_check(case, "documented")


def test_a_name_another_distribution_offers_is_flagged(gizmos, fake_dists):
    other = fake_dists.add(
        "gizmo-rival",
        entry_points={"gizmos": {"Ticker.v1": "rival:Ticker"}},
        modules={"rival": GIZMOS},
    )
    case = ComponentCase(gizmos.qualified("Ticker.v1"), kind="gizmos")
    with pytest.raises(AssertionError, match=f"also offered by {other.name}"):
        run_check(case, "name_is_unique")


def test_a_kind_nobody_declares_is_flagged(fake_dists):
    pack = fake_dists.add(
        "gizmo-undeclared",
        entry_points={"widgets_undeclared": {"Ticker.v1": "g:Ticker"}},
        modules={"g": GIZMOS},
    )
    case = ComponentCase(pack.qualified("Ticker.v1"), kind="widgets_undeclared")
    with pytest.raises(AssertionError, match="no installed pack declares the kind"):
        run_check(case, "resolves")
    run_check(case, "builds_from_config")
