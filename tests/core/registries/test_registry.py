"""Registry: lazy discovery through fake distributions, conflicts, isolation, blocking."""

from __future__ import annotations

import pytest

import tensorweave as tw
from tests import fakes
from tests.fakes import BROKEN_SOURCE, FUNCTION_SOURCE, LAYER_SOURCE, counted

TWO_LAYERS = {
    "first": counted(LAYER_SOURCE),
    "second": counted(LAYER_SOURCE.replace("class Thing", "class Other")),
}


def _layer_dist(fake_dists, name="alpha", version="1.0", component="Thing.v1", **kw):
    return fake_dists.add(
        name,
        version,
        entry_points={"layers": {component: "first:Thing"}},
        modules={"first": counted(LAYER_SOURCE)},
        **kw,
    )


def test_listing_imports_no_plugin_module(fake_dists):
    dist = fake_dists.add(
        "alpha",
        "1.2",
        entry_points={"layers": {"Thing.v1": "first:Thing", "Other.v1": "second:Other"}},
        modules=TWO_LAYERS,
    )
    assert {"Thing.v1", "Other.v1"} <= set(tw.layers.names())
    assert "Thing.v1" in tw.layers and "Nope.v1" not in tw.layers and 3 not in tw.layers
    assert tw.layers.providers("Thing.v1") == [dist.name]
    info = tw.layers.info("Thing.v1")
    assert (info.distribution, info.version, info.status) == (dist.name, "1.2", "available")
    assert info.target == f"{dist.module('first')}:Thing"
    assert info.qualified_name == f"{dist.name}:Thing.v1"
    assert {i.name for i in tw.layers.infos()} >= {"Thing.v1", "Other.v1"}
    assert len(tw.layers) >= 2 and "Thing.v1" in list(tw.layers)
    assert fake_dists.imported() == set()


def test_first_lookup_imports_only_that_module_and_caches(fake_dists):
    dist = fake_dists.add(
        "alpha",
        entry_points={"layers": {"Thing.v1": "first:Thing", "Other.v1": "second:Other"}},
        modules=TWO_LAYERS,
    )
    fakes.IMPORTS.clear()
    thing = tw.layers["Thing.v1"]
    assert thing.__name__ == "Thing" and issubclass(thing, tw.Layer)
    assert fake_dists.imported() == {dist.module("first")}
    assert tw.layers["Thing.v1"] is thing
    assert tw.layers.get("Thing.v1") is thing
    assert tw.layers[f"{dist.name}:Thing.v1"] is thing
    assert [dist.module("first")] == fakes.IMPORTS
    assert tw.layers.info("Thing.v1").status == "loaded"
    # the loaded component is a working layer
    x = tw.Input(n_units=2, value=[[1.0, 2.0]])
    assert thing(x, offset=10.0)().numpy().tolist() == [[11.0, 12.0]]


def test_get_picks_the_latest_version(fake_dists):
    source = (
        LAYER_SOURCE + "\n\nclass ThingV2(Thing):\n    pass\n\n\nclass ThingV10(Thing):\n    pass\n"
    )
    fake_dists.add(
        "alpha",
        entry_points={
            "layers": {
                "Thing.v1": "mod:Thing",
                "Thing.v2": "mod:ThingV2",
                "Thing.v10": "mod:ThingV10",
            }
        },
        modules={"mod": source},
    )
    assert tw.layers.latest("Thing") == "Thing.v10"  # numeric, not string, order
    assert tw.layers.get("Thing").__name__ == "ThingV10"
    assert tw.layers.get("Thing.v1").__name__ == "Thing"
    assert tw.layers.get("Missing", None) is None
    with pytest.raises(tw.UnknownComponentError):
        tw.layers.get("Missing")


def test_get_with_a_provider_picks_that_providers_latest(fake_dists):
    one = _layer_dist(fake_dists, "alpha", component="Thing.v1")
    two = _layer_dist(fake_dists, "beta", component="Thing.v2")
    assert tw.layers.latest("Thing") == "Thing.v2"
    assert tw.layers.latest("Thing", provider=one.name) == "Thing.v1"
    assert tw.layers.get(f"{one.name}:Thing").__module__ == one.module("first")
    assert tw.layers.get(f"{two.name}:Thing").__module__ == two.module("first")


def test_conflicting_distributions_are_never_picked_silently(fake_dists):
    one = _layer_dist(fake_dists, "alpha", "1.0")
    two = _layer_dist(fake_dists, "beta", "2.5")
    assert tw.layers.providers("Thing.v1") == [one.name, two.name]
    with pytest.raises(tw.ComponentConflictError) as err:
        tw.layers["Thing.v1"]
    message = str(err.value)
    assert f"{one.name} 1.0" in message and f"{two.name} 2.5" in message
    assert f"layers['{one.name}:Thing.v1']" in message
    assert isinstance(err.value, LookupError)
    first, second = tw.layers[one.qualified("Thing.v1")], tw.layers[two.qualified("Thing.v1")]
    assert first is not second
    assert first.__module__ == one.module("first") and second.__module__ == two.module("first")
    # qualified names are normalised like distribution names
    assert tw.layers[one.name.upper().replace("-", "_") + ":Thing.v1"] is first
    with pytest.raises(tw.ComponentConflictError):
        tw.layers.get("Thing")


def test_a_plugin_that_fails_to_import_is_isolated(fake_dists):
    broken = fake_dists.add(
        "broken",
        "0.3",
        entry_points={"layers": {"Broken.v1": "bad:Thing"}},
        modules={"bad": BROKEN_SOURCE},
    )
    good = _layer_dist(fake_dists, "good")
    assert "Broken.v1" in tw.layers  # listing still works: nothing was imported
    with (
        pytest.warns(RuntimeWarning, match="failed to load"),
        pytest.raises(tw.PluginLoadError) as err,
    ):
        tw.layers["Broken.v1"]
    error = err.value
    assert isinstance(error.__cause__, ImportError)
    assert "broken on purpose" in str(error.__cause__)
    assert error.cause is error.__cause__
    assert (error.distribution, error.version, error.entry_point) == (
        broken.name,
        "0.3",
        "Broken.v1",
    )
    assert f"{broken.name} 0.3" in str(error) and "TENSORWEAVE_BLOCK" in str(error)
    info = tw.layers.info("Broken.v1")
    assert info.status == "failed" and "broken on purpose" in info.error
    assert error in tw.layers.failures()
    # asking again raises the recorded error without importing again
    with pytest.raises(tw.PluginLoadError) as again:
        tw.layers["Broken.v1"]
    assert again.value is error
    # everything else keeps working
    assert tw.layers["Thing.v1"].__module__ == good.module("first")
    loaded = tw.layers.load_all()
    assert good.qualified("Thing.v1") in loaded and broken.qualified("Broken.v1") not in loaded


def test_a_fixed_plugin_loads_after_refresh(fake_dists):
    broken = fake_dists.add(
        "broken", entry_points={"layers": {"Fixed.v1": "bad:Thing"}}, modules={"bad": BROKEN_SOURCE}
    )
    with pytest.warns(RuntimeWarning), pytest.raises(tw.PluginLoadError):
        tw.layers["Fixed.v1"]
    (broken.path / f"{broken.module('bad')}.py").write_text(LAYER_SOURCE)
    tw.plugins.refresh()
    assert tw.layers["Fixed.v1"].__name__ == "Thing"


CALLABLE_KIND_SOURCE = """
import tensorweave as tw


def _callable(obj):
    return None if callable(obj) else f"expected a class or function, got {type(obj).__name__}"


test_funcs = tw.Kind("test_funcs", check=_callable)
"""


@pytest.mark.parametrize(
    ("kind", "source", "target", "problem"),
    [
        ("test_funcs", "VALUE = 3\n", "mod:VALUE", "expected a class or function, got int"),
        ("layers", "class NotALayer:\n    pass\n", "mod:NotALayer", "does not subclass"),
        ("layers", "NAME = 'mse'\n", "mod:NAME", "got str"),
    ],
)
def test_an_entry_point_loading_a_non_component_is_refused(
    fake_dists, kind, source, target, problem
):
    # layers is the core's kind; test_funcs is declared by the fake pack itself
    dist = fake_dists.add(
        "weird",
        entry_points={kind: {"Weird.v1": target}, "kinds": {"test_funcs": "kinds:test_funcs"}},
        modules={"mod": source, "kinds": CALLABLE_KIND_SOURCE},
    )
    registry = tw.registry(kind)
    with pytest.raises(tw.InvalidComponentError) as err:
        registry["Weird.v1"]
    message = str(err.value)
    assert problem in message and dist.name in message and "Weird.v1" in message
    assert err.value.distribution == dist.name
    assert isinstance(err.value, tw.PluginLoadError)
    assert registry.info("Weird.v1").status == "failed"


def test_blocking_by_environment_variable(fake_dists, monkeypatch):
    blocked = _layer_dist(fake_dists, "Blocked_Pack", component="Blocked.v1")
    kept = _layer_dist(fake_dists, "kept", component="Kept.v1")
    monkeypatch.setenv("TENSORWEAVE_BLOCK", f" other , {blocked.name.upper().replace('-', '_')}")
    assert blocked.name in tw.plugins.blocked()
    assert "Blocked.v1" not in tw.layers.names() and "Blocked.v1" not in tw.layers
    assert tw.layers.info("Blocked.v1").status == "blocked"
    with pytest.raises(tw.BlockedPluginError, match=f"{blocked.name} 1.0, which is blocked"):
        tw.layers["Blocked.v1"]
    with pytest.raises(tw.BlockedPluginError):
        tw.layers[blocked.qualified("Blocked.v1")]
    assert tw.layers["Kept.v1"].__name__ == "Thing"
    assert fake_dists.imported() == {kept.module("first")}


def test_blocking_through_the_api_and_unblocking(fake_dists):
    one = _layer_dist(fake_dists, "alpha")
    two = _layer_dist(fake_dists, "beta")
    tw.plugins.block(one.name)
    assert one.name in tw.plugins.blocked()
    # blocking one side of a conflict resolves it
    assert tw.layers["Thing.v1"].__module__ == two.module("first")
    with pytest.raises(tw.BlockedPluginError):
        tw.layers[one.qualified("Thing.v1")]
    assert one.module("first") not in fake_dists.imported()
    tw.plugins.unblock(one.name)
    with pytest.raises(tw.ComponentConflictError):
        tw.layers["Thing.v1"]


def test_an_incompatible_distribution_is_refused_and_others_work(fake_dists):
    old = _layer_dist(
        fake_dists, "old-pack", "0.0.5", component="Old.v1", requires=["tensorweave<0.1"]
    )
    ok = _layer_dist(
        fake_dists,
        "ok-pack",
        component="Ok.v1",
        requires=["tensorweave>=0.1", "tensorweave<0.1; extra == 'legacy'", "numpy"],
    )
    assert tw.layers.info("Old.v1").status == "incompatible"
    with pytest.raises(tw.IncompatiblePluginError) as err:
        tw.layers["Old.v1"]
    message = str(err.value)
    assert old.name in message and "tensorweave<0.1" in message and "0.1.0" in message
    assert err.value.version == "0.0.5"
    assert old.module("first") not in fake_dists.imported()
    assert tw.layers["Ok.v1"].__module__ == ok.module("first")
    assert not tw.plugins.distributions()[old.name].compatible
    assert tw.plugins.distributions()[ok.name].compatible


def test_unknown_names_list_close_matches_and_providers(fake_dists):
    dist = _layer_dist(fake_dists, "alpha")
    with pytest.raises(tw.UnknownComponentError) as err:
        tw.layers["Thng.v1"]
    message = str(err.value)
    assert "no layers component 'Thng.v1'" in message
    assert f"Close matches: Thing.v1 ({dist.name} 1.0)" in message
    providers = next(line for line in message.splitlines() if "Installed providers" in line)
    assert providers.startswith("  Installed providers of layers: ")
    assert f"{dist.name} 1.0 (1)" in providers
    assert "Fix:" in message and isinstance(err.value, KeyError)
    with pytest.raises(tw.UnknownComponentError, match=r"Close matches: Thing\.v1"):
        tw.layers["thing.v3"]  # same base name, other version and case
    with pytest.raises(
        tw.UnknownComponentError, match=r"'Thing\.v1' exists, but not from 'nobody'"
    ):
        tw.layers["nobody:Thing.v1"]


def test_register_as_decorator_and_function():
    with tw.activations.scoped():

        @tw.activations.register("twice.v1")
        def twice(x):
            return 2 * x

        assert tw.activations["twice.v1"] is twice
        assert tw.activations["local:twice.v1"] is twice
        assert tw.activations.providers("twice.v1") == ["local"]
        assert tw.activations.info("twice.v1").status == "loaded"
        assert tw.activations.get("twice")(4) == 8
    assert "twice.v1" not in tw.activations


def test_register_refuses_duplicates_and_invalid_objects():
    with tw.activations.scoped():
        tw.activations.register("dup.v1", abs)
        with pytest.raises(tw.ComponentConflictError, match=r"dup\.v2.*override=True"):
            tw.activations.register("dup.v1", round)
        with pytest.raises(tw.InvalidComponentError, match="got int"):
            tw.layers.register("num.v1", 3)
        with pytest.raises(tw.RegistryError, match="bare name"):
            tw.activations.register("pkg:thing.v1", abs)
        with pytest.raises(tw.InvalidComponentError, match="does not subclass"):
            tw.layers.register("NotLayer.v1", dict)


def test_override_wins_over_an_installed_plugin(fake_dists):
    dist = _layer_dist(fake_dists, "alpha")
    with tw.layers.scoped():

        class Mine(tw.Layer):
            pass

        with pytest.raises(tw.ComponentConflictError, match=dist.name):
            tw.layers.register("Thing.v1", Mine)
        tw.layers.register("Thing.v1", Mine, override=True)
        assert tw.layers["Thing.v1"] is Mine
        assert tw.layers[dist.qualified("Thing.v1")] is not Mine
    assert tw.layers["Thing.v1"] is not Mine


def test_unregister():
    with tw.losses.scoped():
        tw.losses.register("gone.v1", abs)
        tw.losses.unregister("gone.v1")
        assert "gone.v1" not in tw.losses
        with pytest.raises(tw.UnknownComponentError, match="was not registered"):
            tw.losses.unregister("gone.v1")


def test_deprecate_warns_and_resolves_to_the_new_name(fake_dists):
    fake_dists.add(
        "alpha",
        entry_points={"activations": {"double.v2": "fns:double"}},
        modules={"fns": FUNCTION_SOURCE},
    )
    with tw.activations.scoped():
        tw.activations.deprecate("double.v1", "double.v2", reason="renamed for clarity")
        assert "double.v1" in tw.activations
        with pytest.warns(DeprecationWarning, match=r"'double.v1' is deprecated; use 'double.v2'"):
            fn = tw.activations["double.v1"]
        assert fn(3) == 6 and fn is tw.activations["double.v2"]
    assert "double.v1" not in tw.activations


def test_registries_per_kind():
    assert tw.registry("layers") is tw.layers
    custom = tw.registry("test_widgets")
    assert custom is tw.registry("test_widgets") and custom.group == "tensorweave.test_widgets"
    assert "test_widgets" in tw.kinds() and "layers" in tw.kinds()
    assert repr(tw.layers) == "Registry('layers', group='tensorweave.layers')"


def test_an_entry_point_may_be_a_deprecated_alias(fake_dists):
    fake_dists.add(
        "alpha",
        entry_points={"activations": {"double.v1": "aliases:OLD", "double.v2": "fns:double"}},
        modules={
            "fns": FUNCTION_SOURCE,
            "aliases": "import tensorweave as tw\nOLD = tw.alias('double.v2', reason='v2 is faster')\n",
        },
    )
    with pytest.warns(
        DeprecationWarning, match=r"'double.v1' is deprecated; use 'double.v2' \(v2 is faster\)"
    ):
        fn = tw.activations["double.v1"]
    assert fn is tw.activations["double.v2"] and fn(5) == 10
