"""tw.plugins: hook modules (loaded one by one, failures isolated), validation, blocking."""

from __future__ import annotations

import warnings

import pytest

import tensorweave as tw
from tests.fakes import (
    BROKEN_SOURCE,
    FUNCTION_SOURCE,
    GREETING_SOURCE,
    HOOKSPEC_SOURCE,
    POLICY_HOOK_SOURCE,
)


class Policy:
    """An in-process hook implementation."""

    @tw.hookimpl
    def tensorweave_validate_component(self, kind, name, component):
        return ["no snakes allowed"] if "snake" in name else []


def _hook_dist(fake_dists, name, source, **kw):
    return fake_dists.add(
        name, entry_points={"plugins": {name: "hooks"}}, modules={"hooks": source}, **kw
    )


def test_a_failing_hook_module_does_not_break_the_others(fake_dists):
    broken = _hook_dist(fake_dists, "bad-hooks", BROKEN_SOURCE)
    _hook_dist(fake_dists, "policy", POLICY_HOOK_SOURCE)
    with pytest.warns(RuntimeWarning, match="hook plugin"):
        failures = tw.plugins.failures()
    assert len(failures) == 1
    failure = failures[0]
    assert isinstance(failure, tw.PluginLoadError) and failure.distribution == broken.name
    assert isinstance(failure.__cause__, ImportError) and failure.cause is failure.__cause__
    assert broken.name in str(failure) and "everything else works" in str(failure)
    # the policy module loaded anyway and its hook applies
    assert tw.plugins.validate_component("layers", "Rejected.v1", object) == [
        "Rejected.v1 breaks the house rules"
    ]
    assert tw.plugins.validate_component("layers", "Fine.v1", object) == []


def test_a_failing_hook_module_warns_once(fake_dists):
    _hook_dist(fake_dists, "bad-hooks", BROKEN_SOURCE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            tw.plugins.failures()
            _ = tw.plugins.hook
    assert len([w for w in caught if issubclass(w.category, RuntimeWarning)]) == 1


def test_validate_hooks_apply_to_entry_point_components(fake_dists):
    _hook_dist(fake_dists, "policy", POLICY_HOOK_SOURCE)
    dist = fake_dists.add(
        "fns",
        entry_points={"activations": {"Rejected.v1": "fns:double", "Kept.v1": "fns:triple"}},
        modules={"fns": FUNCTION_SOURCE},
    )
    with pytest.raises(tw.InvalidComponentError, match="breaks the house rules") as err:
        tw.activations["Rejected.v1"]
    assert err.value.distribution == dist.name
    assert tw.activations.info("Rejected.v1").status == "failed"
    assert tw.activations["Kept.v1"](2) == 6


def test_validate_hooks_apply_to_registrations(fake_dists):
    _hook_dist(fake_dists, "policy", POLICY_HOOK_SOURCE)
    with tw.activations.scoped(), pytest.raises(tw.InvalidComponentError, match="house rules"):
        tw.activations.register("Rejected.v9", abs)


def test_in_process_hook_plugins_register_and_unregister(fake_dists):
    policy = Policy()
    tw.plugins.register(policy, name="test-policy")
    try:
        assert tw.plugins.validate_component("losses", "snake_loss.v1", abs) == [
            "no snakes allowed"
        ]
        with tw.losses.scoped(), pytest.raises(tw.InvalidComponentError, match="no snakes"):
            tw.losses.register("snake_loss.v1", abs)
        # a rescan rebuilds the plugin manager and keeps in-process plugins
        _hook_dist(fake_dists, "policy", POLICY_HOOK_SOURCE)
        problems = tw.plugins.validate_component("losses", "Rejected_snake.v1", abs)
        assert sorted(problems) == ["Rejected_snake.v1 breaks the house rules", "no snakes allowed"]
    finally:
        tw.plugins.unregister(policy)
    assert tw.plugins.validate_component("losses", "snake_loss.v1", abs) == []


def test_blocked_and_incompatible_hook_modules_are_not_loaded(fake_dists):
    blocked = _hook_dist(fake_dists, "blocked-hooks", POLICY_HOOK_SOURCE)
    old = _hook_dist(fake_dists, "old-hooks", POLICY_HOOK_SOURCE, requires=["tensorweave<0.1"])
    tw.plugins.block(blocked.name)
    assert tw.plugins.validate_component("layers", "Rejected.v1", object) == []
    assert fake_dists.imported() == set()
    assert not tw.plugins.distributions()[old.name].compatible
    tw.plugins.unblock(blocked.name)
    assert tw.plugins.validate_component("layers", "Rejected.v1", object) != []
    assert fake_dists.imported() == {blocked.module("hooks")}


def test_plugins_can_publish_hookspecs_for_other_plugins(fake_dists):
    # the implementing plugin may load before the one that publishes the spec
    _hook_dist(fake_dists, "greeter", GREETING_SOURCE)
    _hook_dist(fake_dists, "publisher", HOOKSPEC_SOURCE)
    hook = tw.plugins.hook.tensorweave_extra_greeting
    assert hook.spec is not None  # tensorweave_add_hookspecs was called and added the spec
    assert hook(who="tests") == ["hello tests"]


def test_distributions_lists_plugin_packages(fake_dists):
    dist = _hook_dist(fake_dists, "policy", POLICY_HOOK_SOURCE)
    info = tw.plugins.distributions()[dist.name]
    assert info.version == "1.0" and [ep.group for ep in info.entry_points] == [
        "tensorweave.plugins"
    ]
    assert tw.plugins.manager.get_plugin(f"{dist.name}:policy") is not None
