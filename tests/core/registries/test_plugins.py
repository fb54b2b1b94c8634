"""tw.plugins: hook modules loaded one by one, every plugin boundary contained, blocking."""

from __future__ import annotations

import argparse
import warnings

import pytest

import tensorweave as tw
from tests.fakes import (
    BROKEN_SOURCE,
    COMMANDS_SOURCE,
    EXITING_SOURCE,
    GREETING_SOURCE,
    HOOKSPEC_SOURCE,
    RAISING_COMMANDS_SOURCE,
)


def _hook_dist(fake_dists, name, source, **kw):
    return fake_dists.add(
        name, entry_points={"plugins": {name: "hooks"}}, modules={"hooks": source}, **kw
    )


def _commands(parser_action):
    return sorted(parser_action.choices)


def _subparsers():
    return argparse.ArgumentParser().add_subparsers()


def _add_commands():
    sub = _subparsers()
    tw.plugins.call("tensorweave_add_commands", subparsers=sub)
    return sub


@pytest.mark.parametrize("source", [BROKEN_SOURCE, EXITING_SOURCE], ids=["raises", "sys.exit"])
def test_a_failing_hook_module_does_not_break_the_others(fake_dists, source):
    broken = _hook_dist(fake_dists, "bad-hooks", source)
    _hook_dist(fake_dists, "greeter", COMMANDS_SOURCE)
    with pytest.warns(RuntimeWarning, match="hook plugin"):
        failures = tw.plugins.failures()
    [failure] = [f for f in failures if f.distribution == broken.name]
    assert isinstance(failure, tw.PluginLoadError) and failure.distribution == broken.name
    assert failure.cause is failure.__cause__
    assert isinstance(failure.cause, (ImportError, SystemExit))
    assert broken.name in str(failure) and "everything else works" in str(failure)
    assert "hello-fake" in _commands(_add_commands())  # the other plugin's hooks still run


def test_a_failing_hook_module_warns_once(fake_dists):
    _hook_dist(fake_dists, "bad-hooks", BROKEN_SOURCE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            tw.plugins.failures()
            _ = tw.plugins.hook
    assert len([w for w in caught if issubclass(w.category, RuntimeWarning)]) == 1


def test_a_raising_hook_implementation_is_recorded_and_the_others_still_run(fake_dists):
    bad = _hook_dist(fake_dists, "bad-commands", RAISING_COMMANDS_SOURCE)
    _hook_dist(fake_dists, "greeter", COMMANDS_SOURCE)
    with pytest.warns(RuntimeWarning, match="tensorweave_add_commands hook of"):
        sub = _add_commands()
    assert "hello-fake" in _commands(sub)
    [failure] = [f for f in tw.plugins.failures() if f.distribution == bad.name]
    assert failure.entry_point == "tensorweave_add_commands"
    assert isinstance(failure.cause, RuntimeError) and "TENSORWEAVE_BLOCK" in str(failure)


def test_call_returns_every_result_and_contains_in_process_plugins():
    class Good:
        @tw.hookimpl
        def tensorweave_add_commands(self, subparsers):
            subparsers.add_parser("good-cmd")
            return "good"

    class Bad:
        @tw.hookimpl
        def tensorweave_add_commands(self, subparsers):
            raise ValueError("bad on purpose")

    tw.plugins.register(Good(), name="good")
    tw.plugins.register(Bad(), name="bad")
    sub = argparse.ArgumentParser().add_subparsers()
    try:
        with pytest.warns(RuntimeWarning, match="bad on purpose"):
            assert "good" in tw.plugins.call("tensorweave_add_commands", subparsers=sub)
    finally:
        tw.plugins.unregister_name("good")
        tw.plugins.unregister_name("bad")
    assert "good-cmd" in sub.choices
    assert "good" not in tw.plugins.call("tensorweave_add_commands", subparsers=_subparsers())


def test_blocked_and_incompatible_hook_modules_are_not_loaded(fake_dists):
    blocked = _hook_dist(fake_dists, "blocked-hooks", COMMANDS_SOURCE)
    old = _hook_dist(fake_dists, "old-hooks", COMMANDS_SOURCE, requires=["tensorweave<0.1"])
    tw.plugins.block(blocked.name)
    assert "hello-fake" not in _commands(_add_commands())
    assert fake_dists.imported() == set()
    assert not tw.plugins.distributions()[old.name].compatible
    tw.plugins.unblock(blocked.name)
    assert "hello-fake" in _commands(_add_commands())
    assert fake_dists.imported() == {blocked.module("hooks")}


def test_plugins_can_publish_hookspecs_for_other_plugins(fake_dists):
    # the implementing plugin may load before the one that publishes the spec
    _hook_dist(fake_dists, "greeter", GREETING_SOURCE)
    _hook_dist(fake_dists, "publisher", HOOKSPEC_SOURCE)
    hook = tw.plugins.hook.tensorweave_extra_greeting
    assert hook.spec is not None  # tensorweave_add_hookspecs was called and added the spec
    assert tw.plugins.call("tensorweave_extra_greeting", who="tests") == ["hello tests"]


def test_distributions_lists_plugin_packages(fake_dists):
    dist = _hook_dist(fake_dists, "greeter", COMMANDS_SOURCE)
    info = tw.plugins.distributions()[dist.name]
    assert info.version == "1.0" and [ep.group for ep in info.entry_points] == [
        "tensorweave.plugins"
    ]
    assert tw.plugins.manager.get_plugin(f"{dist.name}:greeter") is not None
