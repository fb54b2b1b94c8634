"""The pack's pluggy hooks: callbacks from plugins, a raising plugin contained, the hookspecs
published through ``tensorweave_add_hookspecs``."""

from __future__ import annotations

import pytest
from twtrain_helpers import regression_data, regression_model

import tensorweave as tw
import tensorweave_train as twt


class _ThirdParty:
    calls: list = []

    @tw.hookimpl
    def tensorweave_train_callbacks(self, model):
        return [
            twt.LambdaCallback(lambda ev, st: _ThirdParty.calls.append(st.epoch), twt.on_epoch())
        ]


def test_pluggy_hook_adds_callbacks():
    tw.plugins.refresh()
    names = [n for n, _ in tw.plugins.manager.list_name_plugin()]
    assert any(n.endswith(":train") for n in names)  # our hook module is installed
    # published by our tensorweave_add_hookspecs implementation, replayed by the core
    assert tw.plugins.manager.hook.tensorweave_train_callbacks.spec is not None
    plugin = _ThirdParty()
    tw.plugins.register(plugin, name="third-party-test")
    try:
        regression_model().train(regression_data(n=16), epochs=2, batch_size=8)
    finally:
        tw.plugins.unregister(plugin)
    assert _ThirdParty.calls == [0, 1]
    assert [f for f in tw.plugins.failures() if f.distribution != _BROKEN] == []


_BROKEN = "broken-callbacks-test"


class _Raising:
    @tw.hookimpl
    def tensorweave_train_callbacks(self, model):
        raise RuntimeError("broken on purpose")


class _Counting:
    def __init__(self):
        self.epochs = []

    @tw.hookimpl
    def tensorweave_train_callbacks(self, model):
        return [twt.LambdaCallback(lambda ev, st: self.epochs.append(st.epoch), twt.on_epoch())]


def test_a_raising_callbacks_hook_is_contained_recorded_and_training_goes_on():
    """The hook is called through tw.plugins.call: a third-party implementation that raises
    is recorded against its distribution with a warning; the others' callbacks still run."""
    tw.plugins.refresh()
    bad, good = _Raising(), _Counting()
    tw.plugins.register(bad, name=f"{_BROKEN}:hooks")
    tw.plugins.register(good, name="counting-test")
    try:
        with pytest.warns(RuntimeWarning, match=f"(?s)tensorweave_train_callbacks.*{_BROKEN}"):
            history = regression_model().train(regression_data(n=16), epochs=2, batch_size=8)
    finally:
        tw.plugins.unregister(bad)
        tw.plugins.unregister(good)
    assert len(history) == 2 and good.epochs == [0, 1]
    (failure,) = [f for f in tw.plugins.failures() if f.distribution == _BROKEN]
    assert "broken on purpose" in str(failure) and isinstance(failure, tw.PluginLoadError)


def test_hookspec_is_published_through_tensorweave_add_hookspecs():
    import pluggy

    from tensorweave_train import hooks

    pm = pluggy.PluginManager("tensorweave")
    hooks.tensorweave_add_hookspecs(plugin_manager=pm)
    assert pm.hook.tensorweave_train_callbacks.spec is not None
    hooks.tensorweave_add_hookspecs(plugin_manager=pm)  # idempotent
