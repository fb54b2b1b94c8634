"""Config files, overrides and interpolation (tw.config.loading)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tensorweave import config
from tensorweave.config import ConfigError


def test_toml_json_yaml_load_the_same(tmp_path: Path) -> None:
    data = {"train": {"epochs": 3, "lr": 0.1, "tags": ["a", "b"]}}
    (tmp_path / "c.toml").write_text('[train]\nepochs = 3\nlr = 0.1\ntags = ["a", "b"]\n')
    (tmp_path / "c.json").write_text(json.dumps(data))
    (tmp_path / "c.yaml").write_text("train:\n  epochs: 3\n  lr: 0.1\n  tags: [a, b]\n")
    for name in ("c.toml", "c.json", "c.yaml"):
        assert config.load(tmp_path / name) == data


def test_load_errors_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no config file"):
        config.load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[train\nepochs = ")
    with pytest.raises(ConfigError, match="cannot parse TOML"):
        config.load(bad)
    other = tmp_path / "c.ini"
    other.write_text("")
    with pytest.raises(ConfigError, match="unknown config suffix"):
        config.load(other)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", 3),
        ("-2", -2),
        ("1e-3", 0.001),
        ("0.5", 0.5),
        ("true", True),
        ("false", False),
        ("relu", "relu"),
        ('"3"', "3"),
        ("[1, 2]", [1, 2]),
        ("null", None),
        ("Linear.v1", "Linear.v1"),
        ("{a = 1}", {"a": 1}),
    ],
)
def test_override_values_are_typed(text: str, value: object) -> None:
    assert config.parse_override(f"--a.b={text}") == ("a.b", value)


def test_overrides_set_nested_paths_and_create_tables() -> None:
    cfg = {"model": {"nodes": {"h": {"@layers": "Linear.v1", "n_units": 4}}}}
    out = config.apply_overrides(
        cfg, ["--model.nodes.h.n_units=8", "--model.nodes.h.@layers=Other.v1", "--new.x.y=1"]
    )
    assert out["model"]["nodes"]["h"] == {"@layers": "Other.v1", "n_units": 8}
    assert out["new"] == {"x": {"y": 1}}
    assert cfg["model"]["nodes"]["h"]["n_units"] == 4  # the input is not modified
    assert config.apply_overrides({"a": {}}, {"a.b": [1]}) == {"a": {"b": [1]}}


def test_bad_overrides() -> None:
    with pytest.raises(ConfigError, match="needs a value"):
        config.parse_override("--train.epochs")
    with pytest.raises(ConfigError, match="empty path segment"):
        config.parse_override("--train..epochs=1")
    with pytest.raises(ConfigError) as info:
        config.apply_overrides({"a": 1}, ["--a.b=2"])
    assert info.value.errors[0][0] == "a.b"


@given(st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.booleans())
def test_override_roundtrip_numbers(i: int, f: float, b: bool) -> None:
    assert config.parse_value(str(i)) == i
    assert config.parse_value(repr(f)) == pytest.approx(f)
    assert config.parse_value(str(b).lower()) is b


def test_interpolation_keeps_types_and_formats_strings() -> None:
    cfg = {
        "dims": {"hidden": 16, "names": ["a"]},
        "model": {"n": "${dims.hidden}", "label": "h${dims.hidden}", "x": "${dims.names}"},
        "chain": {"a": "${model.n}"},
    }
    out = config.interpolate(cfg)
    assert out["model"] == {"n": 16, "label": "h16", "x": ["a"]}
    assert out["chain"]["a"] == 16


def test_interpolation_errors_all_reported() -> None:
    cfg = {"a": {"x": "${b.y}", "z": "${nowhere.k}"}, "b": {"y": "${a.x}"}}
    with pytest.raises(ConfigError) as info:
        config.interpolate(cfg)
    messages = " ".join(m for _, m in info.value.errors)
    assert "cycle" in messages and "refers to nothing" in messages
    assert {p for p, _ in info.value.errors} >= {"a.z"}


def test_load_applies_overrides_before_interpolation(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[d]\nn = 2\n[m]\nunits = "${d.n}"\n')
    assert config.load(path, overrides=["--d.n=7"])["m"]["units"] == 7
