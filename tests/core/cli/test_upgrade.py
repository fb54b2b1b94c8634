"""tensorweave upgrade: the names a fixture pack declares moved (an alias, a superseded
version) are rewritten with a diff; unknown names get the closest match; nothing is
overwritten or rewritten silently."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tensorweave.cli import main
from tensorweave.cli.upgrade import moved_to

MOVES = """
import tensorweave as tw

OLD_SCALE = tw.alias("twup_scale.v2", reason="v2 takes the factor by keyword")


def scale(x, factor=2):
    return factor * x


def shift_v1(x):
    return x + 1

shift_v1.superseded_by = "twup_shift.v2"
shift_v1.superseded_reason = "v2 shifts by a learned amount"


def shift_v2(x, by=1):
    return x + by
"""

CONFIG = """\
# a config written against the fixture pack's first release
[model.nodes.a]
"@activations" = "twup_scale.v1"   # moved: an alias
factor = 3

[model.nodes.b]
"@activations" = "twup_shift.v1"   # superseded, still installed

[model.nodes.c]
"@activations" = "twup_shift.v2"   # already current
"""


@pytest.fixture
def pack(fake_dists):
    return fake_dists.add(
        "twup-pack",
        "0.2",
        entry_points={
            "activations": {
                "twup_scale.v1": "moves:OLD_SCALE",
                "twup_scale.v2": "moves:scale",
                "twup_shift.v1": "moves:shift_v1",
                "twup_shift.v2": "moves:shift_v2",
            }
        },
        modules={"moves": MOVES},
    )


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "job.toml"
    path.write_text(CONFIG)
    return path


def _names(path: Path) -> dict[str, str]:
    nodes = tomllib.loads(path.read_text())["model"]["nodes"]
    return {k: v["@activations"] for k, v in nodes.items()}


def test_moved_to_follows_an_alias_and_a_superseded_version(pack):
    assert moved_to("activations", "twup_scale.v1")[0] == "twup_scale.v2"
    new, reason, by = moved_to("activations", "twup_shift.v1")
    assert (new, reason) == ("twup_shift.v2", "v2 shifts by a learned amount")
    assert by.startswith(pack.name)
    assert moved_to("activations", f"{pack.name}:twup_shift.v1")[0] == f"{pack.name}:twup_shift.v2"
    assert moved_to("activations", "twup_shift.v2") is None


def test_a_diff_only_unless_a_new_file_is_named(pack, config, tmp_path, capsys):
    before = config.read_text()
    assert main(["upgrade", str(config)]) == 0
    out = capsys.readouterr().out
    assert '-"@activations" = "twup_scale.v1"   # moved: an alias' in out
    assert '+"@activations" = "twup_scale.v2"   # moved: an alias' in out
    assert '+"@activations" = "twup_shift.v2"   # superseded, still installed' in out
    assert "model.nodes.b: activations twup_shift.v1 -> twup_shift.v2" in out
    assert "nothing written" in out and config.read_text() == before

    new = tmp_path / "job.v2.toml"
    assert main(["upgrade", str(config), "-o", str(new)]) == 0
    capsys.readouterr()
    assert config.read_text() == before
    assert _names(new) == {"a": "twup_scale.v2", "b": "twup_shift.v2", "c": "twup_shift.v2"}
    assert new.read_text().startswith("# a config written")  # comments and layout kept

    # never over an existing file; --in-place is the explicit way
    assert main(["upgrade", str(config), "-o", str(new)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["upgrade", str(config), "--in-place"]) == 0
    assert config.read_text() == new.read_text()
    assert main(["upgrade", str(config)]) == 0
    assert "nothing to upgrade" in capsys.readouterr().out


def test_unknown_names_get_the_closest_match_and_nothing_is_written(pack, config, tmp_path, capsys):
    config.write_text(CONFIG.replace('"twup_shift.v2"', '"twup_shfit.v2"'))
    new = tmp_path / "new.toml"
    assert main(["upgrade", str(config), "-o", str(new)]) == 3
    err = capsys.readouterr().err
    assert "model.nodes.c" in err and "twup_shfit.v2" in err
    assert "Close matches: twup_shift.v2" in err
    assert not new.exists()


@pytest.mark.slow
def test_json_config_in_a_real_process(pack, tmp_path):
    cfg = {"model": {"nodes": {"a": {"@activations": "twup_scale.v1", "factor": 3}}}}
    source = tmp_path / "job.json"
    source.write_text(json.dumps(cfg, indent=2) + "\n")
    new = tmp_path / "new.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pack.path), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-m", "tensorweave.cli", "upgrade", str(source), "-o", str(new)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    added = [line for line in done.stdout.splitlines() if line.startswith("+ ")]
    assert added == ['+        "@activations": "twup_scale.v2",']
    assert json.loads(new.read_text())["model"]["nodes"]["a"] == {
        "@activations": "twup_scale.v2",
        "factor": 3,
    }
