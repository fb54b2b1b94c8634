"""Kinds declared by packs: found in metadata, their checks loaded lazily and contained."""

from __future__ import annotations

import pytest

import tensorweave as tw
from tests.fakes import BROKEN_SOURCE, FUNCTION_SOURCE, POLICY_KIND_SOURCE

RAISING_CHECK_SOURCE = """
import tensorweave as tw


def _check(component):
    raise ZeroDivisionError("this check is broken on purpose")


activations = tw.Kind("activations", check=_check)
"""


def _functions(fake_dists):
    return fake_dists.add(
        "fns",
        entry_points={"activations": {"Doubler.v1": "fns:double", "Tripler.v1": "fns:triple"}},
        modules={"fns": FUNCTION_SOURCE},
    )


def test_a_declared_check_applies_to_entry_point_components(fake_dists):
    policy = fake_dists.add(
        "policy",
        entry_points={"kinds": {"activations": "rules:activations"}},
        modules={"rules": POLICY_KIND_SOURCE},
    )
    fns = _functions(fake_dists)
    assert fake_dists.imported() == set()  # declaring and listing import nothing
    assert "Doubler.v1" in tw.activations.names()
    with pytest.raises(tw.InvalidComponentError, match="house rules") as err:
        tw.activations["Doubler.v1"]
    assert err.value.distribution == fns.name and policy.name in str(err.value)
    assert tw.activations.info("Doubler.v1").status == "failed"
    assert tw.activations["Tripler.v1"](2) == 6


def test_a_declared_check_applies_to_registrations(fake_dists):
    fake_dists.add(
        "policy",
        entry_points={"kinds": {"activations": "rules:activations"}},
        modules={"rules": POLICY_KIND_SOURCE},
    )

    def double(x):
        return 2 * x

    with tw.activations.scoped(), pytest.raises(tw.InvalidComponentError, match="house rules"):
        tw.activations.register("my_double.v1", double)


def test_a_raising_check_is_skipped_with_a_warning_naming_its_pack(fake_dists):
    bad = fake_dists.add(
        "bad-check",
        entry_points={"kinds": {"activations": "rules:activations"}},
        modules={"rules": RAISING_CHECK_SOURCE},
    )
    _functions(fake_dists)
    with pytest.warns(RuntimeWarning, match=f"declared by {bad.name}.*ZeroDivisionError"):
        assert tw.activations["Tripler.v1"](1) == 3


def test_a_broken_declaration_is_recorded_and_components_still_load(fake_dists):
    bad = fake_dists.add(
        "bad-kind",
        entry_points={"kinds": {"activations": "rules:activations"}},
        modules={"rules": BROKEN_SOURCE},
    )
    _functions(fake_dists)
    with pytest.warns(RuntimeWarning, match="declaration of kind 'activations'"):
        assert tw.activations["Tripler.v1"](1) == 3
    assert any(f.distribution == bad.name for f in tw.plugins.failures())


def test_a_declaration_must_be_a_kind_of_that_name(fake_dists):
    bad = fake_dists.add(
        "wrong-kind",
        entry_points={"kinds": {"activations": "fns:double"}},
        modules={"fns": FUNCTION_SOURCE},
    )
    _functions(fake_dists)
    with pytest.warns(RuntimeWarning, match=r"not tw.Kind\('activations'"):
        tw.activations["Tripler.v1"]
    assert any(f.distribution == bad.name for f in tw.plugins.failures())


def test_kinds_come_from_metadata_and_become_attributes(fake_dists):
    fake_dists.add(
        "gadgets",
        entry_points={
            "kinds": {"test_gadgets": "rules:activations"},
            "test_gizmos": {"Gizmo.v1": "fns:double"},
        },
        modules={"rules": POLICY_KIND_SOURCE, "fns": FUNCTION_SOURCE},
    )
    assert {"test_gadgets", "test_gizmos"} <= set(tw.kinds())
    assert tw.test_gizmos is tw.registry("test_gizmos")
    assert "plugins" not in tw.kinds() and "kinds" not in tw.kinds()
    assert fake_dists.imported() == set()


def test_an_unknown_attribute_says_how_to_make_a_kind():
    with pytest.raises(AttributeError, match=r"tw.registry\('no_such_kind_here'\)"):
        tw.no_such_kind_here  # noqa: B018


def test_the_core_declares_layers_only():
    from tensorweave.registries.discovery import KINDS_GROUP, catalog

    core = catalog.distributions()["tensorweave"]
    assert [ep.name for ep in core.entry_points if ep.group == KINDS_GROUP] == ["layers"]
