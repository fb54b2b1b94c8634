"""tensorweave upgrade: the names a fixture pack declares moved (an alias entry point, a
superseded version kept) are rewritten with a diff; nothing is written unless asked, never
over an existing file; unknown names get the closest match and exit 3."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from twtrain_helpers import run_cli

import tensorweave as tw

DIST = "twup-fixture-pack"
MODULE = "twup_fixture_moves"
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
ENTRY_POINTS = """\
[tensorweave.activations]
twup_scale.v1 = twup_fixture_moves:OLD_SCALE
twup_scale.v2 = twup_fixture_moves:scale
twup_shift.v1 = twup_fixture_moves:shift_v1
twup_shift.v2 = twup_fixture_moves:shift_v2
twup_broken.v1 = twup_fixture_missing_module:thing
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


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A tiny installed pack (a dist-info folder on ``sys.path``) declaring two moves."""
    site = tmp_path_factory.mktemp("site")
    (site / f"{MODULE}.py").write_text(MOVES)
    info = site / "twup_fixture_pack-0.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DIST}\nVersion: 0.2\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    tw.plugins.refresh()
    yield site
    sys.path.remove(str(site))
    sys.modules.pop(MODULE, None)
    importlib.invalidate_caches()
    tw.plugins.refresh()


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "job.toml"
    path.write_text(CONFIG)
    return path


def _umask() -> int:
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def _names(path: Path) -> dict[str, str]:
    nodes = tomllib.loads(path.read_text())["model"]["nodes"]
    return {k: v["@activations"] for k, v in nodes.items()}


def test_a_diff_only_unless_a_new_file_is_named(cli, pack, config, tmp_path, capsys):
    before = config.read_text()
    code, out, _ = run_cli(capsys, "upgrade", str(config))
    assert code == 0
    assert '-"@activations" = "twup_scale.v1"   # moved: an alias' in out
    assert '+"@activations" = "twup_scale.v2"   # moved: an alias' in out
    assert '+"@activations" = "twup_shift.v2"   # superseded, still installed' in out
    assert (
        f"model.nodes.b: activations twup_shift.v1 -> twup_shift.v2 (declared by {DIST} 0.2): "
        "v2 shifts by a learned amount"
    ) in out
    assert "nothing written" in out and config.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.toml"]

    new = tmp_path / "job.v2.toml"
    code, out, _ = run_cli(capsys, "upgrade", str(config), "-o", str(new))
    assert code == 0 and f"wrote {new} (2 name(s))" in out
    assert config.read_text() == before
    assert _names(new) == {"a": "twup_scale.v2", "b": "twup_shift.v2", "c": "twup_shift.v2"}
    assert new.read_text() == before.replace("twup_scale.v1", "twup_scale.v2").replace(
        "twup_shift.v1", "twup_shift.v2"
    )  # comments and layout kept

    # never over an existing file; --in-place is the explicit way
    code, out, err = run_cli(capsys, "upgrade", str(config), "-o", str(new))
    assert code == 2 and "exists" in err and "--in-place" in err
    assert "moved" not in out and "+++" not in out  # refused before any work, no diff shown
    code, _, err = run_cli(capsys, "upgrade", str(config), "-o", str(new), "--in-place")
    assert code == 2 and "not allowed with" in err
    assert new.stat().st_mode & 0o777 == 0o666 & ~_umask()  # not the temporary file's 0o600
    config.chmod(0o640)
    code, out, _ = run_cli(capsys, "upgrade", str(config), "--in-place")
    assert code == 0 and f"rewrote {config}" in out
    assert config.read_text() == new.read_text()
    assert config.stat().st_mode & 0o777 == 0o640  # its permissions kept
    code, out, _ = run_cli(capsys, "upgrade", str(config))
    assert code == 0 and "nothing to upgrade" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.toml", "job.v2.toml"]


def test_unknown_names_get_the_closest_match_and_nothing_is_written(
    cli, pack, config, tmp_path, capsys
):
    config.write_text(CONFIG.replace('"twup_shift.v2"', '"twup_shfit.v2"'))
    new = tmp_path / "new.toml"
    code, _, err = run_cli(capsys, "upgrade", str(config), "-o", str(new))
    assert code == 3
    assert "unknown  model.nodes.c:" in err and "twup_shfit.v2" in err
    assert "Close matches: twup_shift.v2" in err
    assert "nothing written" in err
    assert not new.exists()

    config.write_text(CONFIG.replace('"twup_shift.v2"', '"twup_broken.v1"'))
    code, _, err = run_cli(capsys, "upgrade", str(config), "-o", str(new))
    assert code == 3 and "failed   model.nodes.c:" in err and "twup_broken.v1" in err
    assert "install or repair their pack" in err and not new.exists()


def test_a_missing_or_unreadable_config_is_a_usage_error(cli, tmp_path, capsys):
    code, _, err = run_cli(capsys, "upgrade", str(tmp_path / "none.toml"))
    assert code == 2 and "no config file" in err
    bad = tmp_path / "bad.toml"
    bad.write_text("[a\n")
    code, _, err = run_cli(capsys, "upgrade", str(bad))
    assert code == 2 and "cannot parse TOML" in err


@pytest.mark.slow
def test_a_json_config_upgraded_by_a_real_tensorweave_process(pack, tmp_path):
    cfg = {"model": {"nodes": {"a": {"@activations": "twup_scale.v1", "factor": 3}}}}
    source = tmp_path / "job.json"
    source.write_text(json.dumps(cfg, indent=2) + "\n")
    new = tmp_path / "new.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pack), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-m", "tensorweave", "upgrade", str(source), "-o", str(new)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "model.nodes.a: activations twup_scale.v1 -> twup_scale.v2" in done.stdout
    changed = [line for line in done.stdout.splitlines() if line[:1] in "+-" and line[1:2] == " "]
    assert changed == [
        '-        "@activations": "twup_scale.v1",',
        '+        "@activations": "twup_scale.v2",',
    ]
    assert json.loads(new.read_text())["model"]["nodes"]["a"] == {
        "@activations": "twup_scale.v2",
        "factor": 3,
    }
    assert json.loads(source.read_text()) == cfg  # the original is untouched
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
