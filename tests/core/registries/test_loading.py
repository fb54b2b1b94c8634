"""Loading one component: failures say who can fix them and where the plugin raised."""

from __future__ import annotations

import traceback
import warnings

import pytest

import tensorweave as tw
from tests.fakes import LAYER_SOURCE

RAISING_SOURCE = """
import os


def helper():
    raise RuntimeError("acme: boom at import")


helper()
"""


def _lookup(qualified):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(tw.PluginLoadError) as caught:
            tw.layers[qualified]
    return caught.value


def test_a_misspelled_attribute_is_the_authors_to_fix_with_close_matches(fake_dists):
    pack = fake_dists.add(
        "typo",
        entry_points={"layers": {"Thing.v1": "layer:Thinng"}},
        modules={"layer": LAYER_SOURCE},
    )
    text = str(_lookup(pack.qualified("Thing.v1")))
    assert "does not define 'Thinng' (close matches: Thing)" in text
    assert f"Fix (author of {pack.name}): correct the line" in text
    assert (
        f'"Thing.v1" = "{pack.module("layer")}:Thinng" under [project.entry-points."tensorweave.layers"]'
        in text
    )
    assert "reinstall or upgrade" not in text


def test_a_misspelled_module_is_the_authors_to_fix(fake_dists):
    pack = fake_dists.add(
        "typo-module",
        entry_points={"layers": {"Thing.v1": "layer:Thing"}},
        modules={"layer": LAYER_SOURCE},
    )
    module = pack.module("layer")
    fake_dists.add(
        "typo-module-b",
        entry_points={"layers": {"Other.v1": f"{module}_x:Thing"}},
        exact_name=False,
    )
    text = str(_lookup("Other.v1"))
    assert f"no module '{module}_x'" in text and "Fix (author of" in text


def test_a_module_that_raises_shows_the_plugins_file_and_line_and_keeps_its_frames(fake_dists):
    pack = fake_dists.add(
        "raising",
        entry_points={"layers": {"Boom.v1": "boom:Boom"}},
        modules={"boom": RAISING_SOURCE},
    )
    error = _lookup(pack.qualified("Boom.v1"))
    path = pack.path / f"{pack.module('boom')}.py"
    assert f"(raised at {path}:6)" in str(error)
    frames = traceback.extract_tb(error.__cause__.__traceback__)
    assert [f.name for f in frames if f.filename == str(path)] == ["<module>", "helper"]


def test_a_missing_dependency_says_what_to_install(fake_dists):
    pack = fake_dists.add(
        "needs-dep",
        entry_points={"layers": {"Dep.v1": "dep:Thing"}},
        modules={"dep": "import tw_no_such_dependency\n"},
    )
    text = str(_lookup(pack.qualified("Dep.v1")))
    assert (
        "pip install 'tw_no_such_dependency'" in text
        and "should list it in its dependencies" in text
    )
