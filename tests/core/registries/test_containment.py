"""Hook calls go through pluggy's call loop, with every implementation contained.

Third-party-style plugins (installed distributions with hook modules) publish a spec and
implement it with each of pluggy's options: ``tryfirst``/``trylast``, ``wrapper=True``,
old-style ``hookwrapper=True`` and a ``firstresult`` spec; one raising implementation or
wrapper is recorded and skipped while the others run.
"""

from __future__ import annotations

import pytest

import tensorweave as tw

SPECS = """
import pluggy
import tensorweave as tw

spec = pluggy.HookspecMarker("tensorweave")


class Specs:
    @spec
    def tensorweave_demo_collect(self, log):
        '''Every implementation answers.'''

    @spec(firstresult=True)
    def tensorweave_demo_pick(self, log):
        '''The first answer wins.'''


@tw.hookimpl
def tensorweave_add_hookspecs(plugin_manager):
    plugin_manager.add_hookspecs(Specs)
"""

ORDERED = """
import tensorweave as tw


@tw.hookimpl(tryfirst=True)
def tensorweave_demo_collect(log):
    log.append("tryfirst")
    return "tryfirst"


@tw.hookimpl(trylast=True)
def tensorweave_demo_collect_last(log):
    log.append("trylast")
    return "trylast"


tensorweave_demo_collect_last.tensorweave_impl["specname"] = "tensorweave_demo_collect"


@tw.hookimpl
def tensorweave_demo_pick(log):
    log.append("pick-plain")
    return "plain"


@tw.hookimpl(tryfirst=True)
def tensorweave_demo_pick_none(log):
    log.append("pick-none")
    return None


tensorweave_demo_pick_none.tensorweave_impl["specname"] = "tensorweave_demo_pick"
"""

WRAPPERS = """
import tensorweave as tw


@tw.hookimpl(wrapper=True)
def tensorweave_demo_collect(log):
    log.append("wrapper-before")
    result = yield
    log.append("wrapper-after")
    return [*result, "wrapped"]


@tw.hookimpl(hookwrapper=True)
def tensorweave_demo_pick(log):
    log.append("hookwrapper-before")
    outcome = yield
    log.append(f"hookwrapper-saw-{outcome.get_result()}")
"""

RAISING = """
import tensorweave as tw


@tw.hookimpl
def tensorweave_demo_collect(log):
    raise RuntimeError("collect is broken on purpose")


@tw.hookimpl(tryfirst=True)
def tensorweave_demo_pick(log):
    raise RuntimeError("pick is broken on purpose")
"""

RAISING_WRAPPER = """
import tensorweave as tw


@tw.hookimpl(wrapper=True)
def tensorweave_demo_collect(log):
    raise RuntimeError("the wrapper is broken before its yield")
    yield


@tw.hookimpl(hookwrapper=True)
def tensorweave_demo_pick(log):
    yield
    raise RuntimeError("the hookwrapper is broken after its yield")
"""


def _hooks(fake_dists, name, source):
    return fake_dists.add(
        name, entry_points={"plugins": {name: "hooks"}}, modules={"hooks": source}
    )


@pytest.fixture
def published(fake_dists):
    _hooks(fake_dists, "publisher", SPECS)
    _hooks(fake_dists, "ordered", ORDERED)
    return fake_dists


def test_tryfirst_and_trylast_order_the_implementations(published):
    log: list[str] = []
    assert tw.plugins.call("tensorweave_demo_collect", log=log) == ["tryfirst", "trylast"]
    assert log == ["tryfirst", "trylast"]


def test_a_firstresult_spec_stops_at_the_first_answer_that_is_not_none(published):
    log: list[str] = []
    assert tw.plugins.call("tensorweave_demo_pick", log=log) == "plain"
    assert log == ["pick-none", "pick-plain"]


def test_wrappers_and_hookwrappers_run_around_the_implementations(published):
    _hooks(published, "wrappers", WRAPPERS)
    log: list[str] = []
    result = tw.plugins.call("tensorweave_demo_collect", log=log)
    assert result == ["tryfirst", "trylast", "wrapped"]
    assert log == ["wrapper-before", "tryfirst", "trylast", "wrapper-after"]
    log.clear()
    assert tw.plugins.call("tensorweave_demo_pick", log=log) == "plain"
    assert log == ["hookwrapper-before", "pick-none", "pick-plain", "hookwrapper-saw-plain"]


def test_a_raising_implementation_is_recorded_and_the_others_still_answer(published):
    bad = _hooks(published, "raising", RAISING)
    _hooks(published, "wrappers", WRAPPERS)
    log: list[str] = []
    with pytest.warns(RuntimeWarning, match="collect is broken on purpose"):
        result = tw.plugins.call("tensorweave_demo_collect", log=log)
    assert result == ["tryfirst", "trylast", "wrapped"]
    with pytest.warns(RuntimeWarning, match="pick is broken on purpose"):
        assert tw.plugins.call("tensorweave_demo_pick", log=[]) == "plain"
    failures = {f.entry_point: f for f in tw.plugins.failures() if f.distribution == bad.name}
    assert set(failures) == {"tensorweave_demo_collect", "tensorweave_demo_pick"}
    assert isinstance(failures["tensorweave_demo_pick"].cause, RuntimeError)
    assert f"TENSORWEAVE_BLOCK={bad.name}" in str(failures["tensorweave_demo_pick"])


def test_a_raising_wrapper_is_skipped_and_the_call_goes_on(published):
    bad = _hooks(published, "raising-wrapper", RAISING_WRAPPER)
    log: list[str] = []
    with pytest.warns(RuntimeWarning, match="broken before its yield"):
        assert tw.plugins.call("tensorweave_demo_collect", log=log) == ["tryfirst", "trylast"]
    with pytest.warns(RuntimeWarning, match="broken after its yield"):
        assert tw.plugins.call("tensorweave_demo_pick", log=log) == "plain"
    assert {f.entry_point for f in tw.plugins.failures() if f.distribution == bad.name} == {
        "tensorweave_demo_collect",
        "tensorweave_demo_pick",
    }


def test_a_registered_plugin_keeps_its_own_attributes(published):
    class Commands:
        COMMANDS = ("hello",)

        @tw.hookimpl
        def tensorweave_demo_collect(self, log):
            return "in-process"

    plugin = Commands()
    tw.plugins.register(plugin, name="in-process")
    try:
        registered = tw.plugins.manager.get_plugin("in-process")
        assert registered.COMMANDS == ("hello",) and registered.plugin is plugin
        assert "in-process" in tw.plugins.call("tensorweave_demo_collect", log=[])
    finally:
        tw.plugins.unregister(plugin)
    assert "in-process" not in tw.plugins.call("tensorweave_demo_collect", log=[])


def test_an_unknown_hook_is_an_error_naming_it():
    with pytest.raises(AttributeError, match="no hook 'tensorweave_no_such_hook'"):
        tw.plugins.call("tensorweave_no_such_hook")


def test_outside_call_the_relay_is_pluggys_own_and_errors_propagate(published):
    _hooks(published, "raising", RAISING)
    with pytest.raises(RuntimeError, match="pick is broken on purpose"):
        tw.plugins.hook.tensorweave_demo_pick(log=[])
