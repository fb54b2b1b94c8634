"""config.upgrade: the names declared moved are rewritten as text (TOML comments and layout,
JSON, YAML kept), unknown names are reported with the closest match, and a rewrite that
does not come out exact is refused."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

import tensorweave as tw
from tensorweave.config.errors import ConfigError
from tensorweave.config.upgrade import (
    MovedName,
    UpgradeError,
    rewrite_text,
    upgrade_file,
    upgrade_text,
)
from tensorweave.registries import Move, supersede

KIND = "twup_acts"

TOML = """\
# written against the first release
[model.nodes.a]
"@twup_acts" = "scale.v1"   # moved: an alias
factor = 3

[model.nodes.b]
"@twup_acts" = 'shift.v1'   # superseded, still installed
note = "scale.v1 stays as it is in a string"

[model.nodes.c]
"@twup_acts" = "shift.v2"   # already current
steps = [{ "@twup_acts" = "scale.v1" }]
"""


@pytest.fixture
def moves() -> Iterator[None]:
    with tw.registry(KIND).scoped() as reg:
        reg.register("scale.v2", lambda x, factor=2: factor * x)
        reg.deprecate("scale.v1", tw.alias("scale.v2", reason="v2 takes the factor"))
        reg.register("shift.v1", supersede("shift.v2")(lambda x: x + 1))
        reg.register("shift.v2", lambda x, by=1: x + by)
        yield


def test_toml_names_are_rewritten_and_every_other_character_kept(moves):
    done = upgrade_text(TOML, "toml")
    assert done.new == (
        TOML.replace('"scale.v1"   # moved', '"scale.v2"   # moved')
        .replace("'shift.v1'", "'shift.v2'")
        .replace('{ "@twup_acts" = "scale.v1" }', '{ "@twup_acts" = "scale.v2" }')
    )
    assert [m.describe() for m in done.moved] == [
        "model.nodes.a: twup_acts scale.v1 -> scale.v2 (declared by local): v2 takes the factor",
        "model.nodes.b: twup_acts shift.v1 -> shift.v2 (declared by local)",
        "model.nodes.c.steps[0]: twup_acts scale.v1 -> scale.v2 (declared by local): v2 takes the factor",
    ]
    assert done.unknown == []
    assert upgrade_text(done.new, "toml").moved == []  # nothing left to upgrade


def test_json_and_yaml_configs(moves, tmp_path):
    cfg = {"model": {"nodes": {"a": {"@twup_acts": "scale.v1", "factor": 3}}}}
    path = tmp_path / "job.json"
    path.write_text(json.dumps(cfg, indent=2))
    assert json.loads(upgrade_file(path).new)["model"]["nodes"]["a"]["@twup_acts"] == "scale.v2"
    yaml_text = "model:\n  nodes:\n    a:\n      '@twup_acts': shift.v1  # old\n"
    assert upgrade_text(yaml_text, "yaml").new == yaml_text.replace("shift.v1", "shift.v2")


def test_unknown_names_are_reported_with_the_closest_match(moves):
    done = upgrade_text('[x]\n"@twup_acts" = "shfit.v2"\n[y]\n"@twup_acts" = "shift.v1"\n', "toml")
    assert [path for path, _ in done.unknown] == ["x"]
    assert "Close matches: shift.v2" in str(done.unknown[0][1])
    assert [m.path for m in done.moved] == ["y"]


def test_a_rewrite_that_does_not_come_out_exact_is_refused():
    # the same name written with escapes: the text rewrite cannot see it
    text = '[a]\n"@twup_acts" = "scale\\u002ev1"\n'
    moved = [MovedName("a", Move(KIND, "scale.v1", "scale.v2"))]
    with pytest.raises(UpgradeError, match=r"Fix: change the names by hand: a: twup_acts scale.v1"):
        rewrite_text(text, "toml", moved)


def test_a_missing_or_broken_file_is_the_loaders_error(tmp_path):
    with pytest.raises(ConfigError, match="no config file"):
        upgrade_file(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[a\n")
    with pytest.raises(ConfigError, match="cannot parse TOML"):
        upgrade_file(bad)
