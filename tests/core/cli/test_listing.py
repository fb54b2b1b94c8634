"""``tensorweave plugins``: what is installed, and what is wrong with it, gating with --check."""

from __future__ import annotations

import json

import pytest

import tensorweave as tw
from tensorweave.cli import main
from tests.fakes import BROKEN_SOURCE, FUNCTION_SOURCE, LAYER_SOURCE

KIND_SOURCE = """
import tensorweave as tw

gadgets = tw.Kind.of_callables("gadgets", doc="things that whirr, for the listing test")
"""


@pytest.fixture
def only_fakes():
    """Block every real pack (not the core: it declares layers), so only the fakes show."""
    real = set(tw.plugins.distributions()) - {"tensorweave"}
    for name in real:
        tw.plugins.block(name)
    yield
    for name in real:
        tw.plugins.unblock(name)


def _plugins(capsys, *args):
    code = main(["plugins", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def _pack(fake_dists, name, **entry_points):
    return fake_dists.add(
        name,
        entry_points=entry_points,
        modules={"layer": LAYER_SOURCE, "fns": FUNCTION_SOURCE, "kinds": KIND_SOURCE},
    )


def test_a_clash_is_listed_with_both_providers_and_the_qualified_names(fake_dists, capsys):
    a = _pack(fake_dists, "clash-a", layers={"Twin.v1": "layer:Thing"})
    b = _pack(fake_dists, "clash-b", layers={"Twin.v1": "layer:Thing"})
    code, text = _plugins(capsys)
    assert code == 0  # listing informs; --check gates
    assert "Clashes" in text and f"{a.name} 1.0, {b.name} 1.0" in text
    assert f"{a.name}:Twin.v1 or {b.name}:Twin.v1" in text
    code, _ = _plugins(capsys, "--check")
    assert code == 1


def test_a_kind_filled_but_not_declared_is_listed_and_fails_the_check(fake_dists, capsys):
    pack = _pack(fake_dists, "undeclared", widgets_nobody_declares={"w.v1": "fns:double"})
    _, text = _plugins(capsys)
    assert "Kinds filled but not declared" in text
    assert f"widgets_nobody_declares: filled by {pack.name} 1.0" in text
    assert "undeclared kind" in text  # its status column
    assert _plugins(capsys, "--check")[0] == 1


def test_a_declared_kind_shows_its_description(fake_dists, capsys, only_fakes):
    _pack(
        fake_dists, "declares", kinds={"gadgets": "kinds:gadgets"}, gadgets={"g.v1": "fns:double"}
    )
    code, text = _plugins(capsys, "--check")
    assert "declares kind gadgets: things that whirr, for the listing test" in text
    assert code == 0
    assert tw.registry("gadgets").doc == "things that whirr, for the listing test"


def test_check_exits_1_on_a_component_that_fails_to_load(fake_dists, capsys, only_fakes):
    broken = _pack(fake_dists, "broken", layers={"Broken.v1": "boom:Thing"})
    fake_dists.add(
        "broken-module",
        entry_points={"layers": {"Boom.v1": "boom:Thing"}},
        modules={"boom": BROKEN_SOURCE},
    )
    code, text = _plugins(capsys, "--check")
    assert code == 1 and "Failed:" in text and "broken on purpose" in text
    assert broken.name in text


def test_a_misspelled_target_is_shown_with_the_line_to_fix(fake_dists, capsys, only_fakes):
    pack = _pack(fake_dists, "typo", layers={"Thing.v1": "layer:Thin"})
    code, text = _plugins(capsys)
    assert "1 broken" in text and "Broken entry points" in text
    assert "does not define 'Thin' (close matches: Thing)" in text
    assert f'"Thing.v1" = "{pack.module("layer")}:Thin"' in text
    assert 'under [project.entry-points."tensorweave.layers"]' in text
    code, text = _plugins(capsys, "--check")
    assert (
        code == 1 and f"Fix (author of {pack.name})" in text and "reinstall or upgrade" not in text
    )


def test_json_gives_tools_the_same_report(fake_dists, capsys, only_fakes):
    a = _pack(fake_dists, "json-a", layers={"Twin.v1": "layer:Thing"})
    b = _pack(fake_dists, "json-b", layers={"Twin.v1": "layer:Thing"})
    code, text = _plugins(capsys, "--json")
    report = json.loads(text)
    assert code == 0 and report["ok"] is False and report["checked"] is False
    [clash] = report["clashes"]
    assert clash["qualified_names"] == [f"{a.name}:Twin.v1", f"{b.name}:Twin.v1"]
    [entry] = [d for d in report["distributions"] if d["name"] == a.name]
    assert entry["components"]["layers"][0]["name"] == "Twin.v1" and entry["status"] == "1 clash"


def test_check_exits_0_when_nothing_is_wrong(fake_dists, capsys, only_fakes):
    _pack(fake_dists, "fine", layers={"Fine.v1": "layer:Thing"})
    code, text = _plugins(capsys, "--check")
    assert code == 0 and "Failed" not in text and "Clashes" not in text
