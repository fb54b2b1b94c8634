"""The exception tree: catch by meaning or by builtin; messages read as sentences."""

from __future__ import annotations

import pickle

import pytest

import tensorweave as tw

BUILTINS = {
    tw.TensorweaveError: Exception,
    tw.RegistryError: LookupError,
    tw.UnknownComponentError: KeyError,
    tw.ComponentConflictError: LookupError,
    tw.PluginLoadError: LookupError,
    tw.InvalidComponentError: LookupError,
    tw.IncompatiblePluginError: LookupError,
    tw.BlockedPluginError: LookupError,
    tw.GraphError: ValueError,
    tw.ShapeError: ValueError,
    tw.InputValueError: TypeError,
}


@pytest.mark.parametrize(("error", "builtin"), BUILTINS.items(), ids=lambda c: c.__name__)
def test_every_error_is_a_tensorweave_error_and_a_builtin(error, builtin):
    assert issubclass(error, tw.TensorweaveError) and issubclass(error, builtin)
    assert error.__name__ in tw.__all__


@pytest.mark.parametrize(
    "error",
    [tw.InvalidComponentError, tw.IncompatiblePluginError, tw.BlockedPluginError],
    ids=lambda c: c.__name__,
)
def test_plugin_problems_are_plugin_load_errors(error):
    assert issubclass(error, tw.PluginLoadError)


def test_key_errors_are_not_quoted():
    message = "no layers component 'X.v1'.\n  Fix: check the spelling."
    err = tw.UnknownComponentError(message)
    assert str(err) == message  # KeyError would show repr(message)
    assert str(tw.TensorweaveError()) == ""


def test_plugin_load_error_carries_where_it_came_from():
    cause = ImportError("no module named nowhere")
    err = tw.PluginLoadError(
        "failed", entry_point="Thing.v1", distribution="pack", version="1.2", cause=cause
    )
    assert (err.entry_point, err.distribution, err.version, err.cause) == (
        "Thing.v1",
        "pack",
        "1.2",
        cause,
    )
    bare = tw.PluginLoadError("failed")
    assert (bare.entry_point, bare.distribution, bare.version, bare.cause) == ("", "", "", None)


def test_catching_by_builtin_works_for_real_failures():
    with pytest.raises(KeyError):
        tw.layers["Surely.Missing.v1"]
    with pytest.raises(ValueError):
        tw.Input(n_units=2).value = [[1.0, 2.0, 3.0]]
    with pytest.raises(TypeError):
        tw.Input(n_units=2, dtype="int32").value = [[0.5, 1.5]]
    with pytest.raises(ValueError):
        tw.Graph.build(outputs=[])


def test_real_messages_say_what_which_and_how_to_fix():
    with pytest.raises(tw.UnknownComponentError) as unknown:
        tw.losses["nope.v1"]
    with pytest.raises(tw.GraphError) as graph:
        tw.Graph.build(inputs=tw.Input(n_units=1, name="given"), outputs=tw.Input(n_units=1) + 1.0)
    for err in (unknown.value, graph.value):
        assert "Fix:" in str(err)


def test_errors_pickle_with_their_message():
    err = pickle.loads(pickle.dumps(tw.ShapeError("Input 'x' expects shape (None, 3)")))
    assert isinstance(err, tw.ShapeError) and "Input 'x'" in str(err)
