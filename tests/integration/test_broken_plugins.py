"""A whole environment of plugins, some broken in every way: the good ones keep working.

One good pack, and packs that fail to import (raising, or calling ``sys.exit``), load a
non-component, declare an incompatible core, are blocked, ship a hook module that fails at
import or a hook that raises, or declare a kind whose check rejects or raises. Each failure
is reported with its distribution and cause; the good components build, compile and run,
and the good pack's commands stay on the command line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import tensorweave as tw
from tests.fakes import (
    BROKEN_SOURCE,
    COMMANDS_SOURCE,
    EXITING_SOURCE,
    FUNCTION_SOURCE,
    LAYER_SOURCE,
    POLICY_KIND_SOURCE,
    RAISING_COMMANDS_SOURCE,
)


@pytest.fixture
def world(fake_dists, monkeypatch):
    good = fake_dists.add(
        "good-pack",
        "1.4",
        entry_points={
            "layers": {"Thing.v1": "layer:Thing"},
            "activations": {"triple.v1": "fns:triple"},
            "kinds": {"activations": "policy:activations"},
            "plugins": {"commands": "commands"},
        },
        modules={
            "layer": LAYER_SOURCE,
            "fns": FUNCTION_SOURCE,
            "policy": POLICY_KIND_SOURCE,
            "commands": COMMANDS_SOURCE,
        },
    )
    dists = {
        "good": good,
        "crashing": fake_dists.add(
            "crashing-pack",
            "0.9",
            entry_points={"layers": {"Crash.v1": "boom:Thing"}},
            modules={"boom": BROKEN_SOURCE},
        ),
        "invalid": fake_dists.add(
            "invalid-pack",
            entry_points={"layers": {"Invalid.v1": "notlayer:NotALayer"}},
            modules={"notlayer": "class NotALayer:\n    pass\n"},
        ),
        "old": fake_dists.add(
            "old-pack",
            "0.0.1",
            entry_points={"layers": {"Old.v1": "oldlayer:Thing"}},
            modules={"oldlayer": LAYER_SOURCE},
            requires=["tensorweave<0.1"],
        ),
        "blocked": fake_dists.add(
            "blocked-pack",
            entry_points={"layers": {"Blocked.v1": "blockedlayer:Thing"}},
            modules={"blockedlayer": LAYER_SOURCE},
        ),
        "exiting": fake_dists.add(
            "exiting-pack",
            entry_points={"layers": {"Exit.v1": "exiting:Thing"}},
            modules={"exiting": EXITING_SOURCE},
        ),
        "badhooks": fake_dists.add(
            "bad-hooks",
            entry_points={"plugins": {"hooks": "hooks"}},
            modules={"hooks": EXITING_SOURCE},
        ),
        "badcommands": fake_dists.add(
            "bad-commands",
            entry_points={"plugins": {"commands": "badcommands"}},
            modules={"badcommands": RAISING_COMMANDS_SOURCE},
        ),
        "rejected": fake_dists.add(
            "rejected-pack",
            entry_points={"activations": {"Rejected.v1": "rfns:double"}},
            modules={"rfns": FUNCTION_SOURCE},
        ),
    }
    monkeypatch.setenv("TENSORWEAVE_BLOCK", dists["blocked"].name)
    return dists


def test_listing_the_world_imports_nothing(world, fake_dists):
    names = set(tw.layers.names())
    assert {"Thing.v1", "Crash.v1", "Exit.v1", "Invalid.v1", "Old.v1"} <= names
    assert "Blocked.v1" not in names
    statuses = {i.name: i.status for i in tw.layers.infos() if i.name.endswith(".v1")}
    assert statuses["Blocked.v1"] == "blocked" and statuses["Old.v1"] == "incompatible"
    assert statuses["Thing.v1"] == statuses["Crash.v1"] == "available"
    assert fake_dists.imported() == set()


def test_every_failure_is_reported_and_the_good_pack_works(world, fake_dists):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(tw.PluginLoadError) as crash:
            tw.layers["Crash.v1"]
        with pytest.raises(tw.PluginLoadError) as exiting:
            tw.layers["Exit.v1"]
        with pytest.raises(tw.InvalidComponentError) as invalid:
            tw.layers["Invalid.v1"]
        with pytest.raises(tw.IncompatiblePluginError) as old:
            tw.layers["Old.v1"]
        with pytest.raises(tw.BlockedPluginError) as blocked:
            tw.layers["Blocked.v1"]
        with pytest.raises(tw.InvalidComponentError, match="house rules") as rejected:
            tw.activations["Rejected.v1"]
        hook_failures = tw.plugins.failures()
    for key, err in [
        ("crashing", crash),
        ("exiting", exiting),
        ("invalid", invalid),
        ("old", old),
        ("blocked", blocked),
        ("rejected", rejected),
    ]:
        assert err.value.distribution == world[key].name
        assert world[key].name in str(err.value)
    assert isinstance(crash.value.__cause__, ImportError)
    assert isinstance(exiting.value.__cause__, SystemExit)
    assert [f.distribution for f in hook_failures] == [world["badhooks"].name]
    failed = {e.entry_point for e in tw.layers.failures()}
    assert {"Crash.v1", "Exit.v1", "Invalid.v1", "Old.v1"} <= failed

    # the good pack: a layer and an activation composed by name, eager and compiled
    Thing = tw.layers["Thing.v1"]
    triple = tw.activations["triple.v1"]
    x = tw.Input(n_units=3, name="x")
    y = tw.Lambda(triple, Thing(x, offset=0.5))
    value = np.arange(6, dtype="float32").reshape(2, 3)
    expected = 3 * (value + 0.5)
    np.testing.assert_allclose(y(value).numpy(), expected)
    np.testing.assert_allclose(tw.compile(y)(value).numpy(), expected)
    loaded = {m.rsplit("_", 2)[0] for m in fake_dists.imported()}
    assert "blockedlayer" not in loaded and "oldlayer" not in loaded


def test_load_all_isolates_failures(world):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        loaded = tw.layers.load_all()
    assert world["good"].qualified("Thing.v1") in loaded
    for key, name in [("crashing", "Crash.v1"), ("invalid", "Invalid.v1"), ("old", "Old.v1")]:
        assert world[key].qualified(name) not in loaded
    assert world["blocked"].qualified("Blocked.v1") not in loaded


@pytest.mark.slow
def test_a_fresh_process_sees_the_same_world(world):
    """In a new interpreter: env-var blocking from the start, lazy listing, good lookups."""
    script = textwrap.dedent(
        """
        import json, sys, warnings
        warnings.simplefilter("ignore")
        import tensorweave as tw
        names = tw.layers.names()
        fake_modules = set(json.loads(sys.argv[1]))
        listed_imports = sorted(fake_modules & set(sys.modules))
        thing = tw.layers["Thing.v1"]
        try:
            tw.layers["Blocked.v1"]
            blocked = "not blocked"
        except tw.BlockedPluginError as err:
            blocked = type(err).__name__
        print(json.dumps({"names": names, "listed_imports": listed_imports,
                          "thing": thing.__name__, "blocked": blocked,
                          "hook_failures": [f.distribution for f in tw.plugins.failures()],
                          "still_running": True}))
        """
    )
    paths = [d.path for d in world.values()]
    modules = [m for d in world.values() for m in d.modules.values()]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), env.get("PYTHONPATH", "")])
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(modules)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert "Thing.v1" in result["names"] and "Blocked.v1" not in result["names"]
    assert result["listed_imports"] == []
    assert result["thing"] == "Thing" and result["blocked"] == "BlockedPluginError"
    assert result["hook_failures"] == [world["badhooks"].name]
    assert result["still_running"] is True  # sys.exit in a plugin did not end the process


def test_the_plugins_command_shows_every_failure_with_why(world, capsys):
    from tensorweave import cli

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        code = cli.main(["plugins", "--check"])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 1  # --check gates: any failure is a non-zero exit
    assert world["good"].name in text and "1.4" in text
    assert world["crashing"].name in text and "broken on purpose" in text
    assert world["exiting"].name in text and "calls sys.exit() at import" in text
    assert world["badhooks"].name in text and "SystemExit" in text
    assert world["badcommands"].name in text and "commands are broken on purpose" in text
    assert world["rejected"].name in text and "house rules" in text


def test_the_good_packs_commands_survive_a_broken_one(world, capsys):
    from tensorweave import cli

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        code = cli.main(["hello-fake"])
    out = capsys.readouterr()
    assert code == 0 and "hello from a plugin" in out.out
    assert world["badcommands"].name in out.err  # one line naming the broken pack
