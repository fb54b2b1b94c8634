"""Config files that cannot harm: bounded expansion of YAML aliases and ``${...}``
references, deep nesting, binary and non-UTF-8 files all end quickly in a ``ConfigError``
naming the path or file (issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tensorweave import config
from tensorweave.config import loading

LAUGHS_YAML = "a0: &a0 ['lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol', 'lol']\n" + "".join(
    f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, "
    f"*a{i - 1}, *a{i - 1}, *a{i - 1}]\n"
    for i in range(1, 10)
)


def test_yaml_billion_laughs_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "laughs.yaml"
    path.write_text(LAUGHS_YAML)
    with pytest.raises(config.ConfigError, match="expands to more than 200000 values") as info:
        config.load(path)
    assert str(path) in str(info.value)
    assert info.value.errors[0][0].startswith("a")  # the dotted path where it blew up


def test_reference_laughs_are_refused_quickly(tmp_path: Path) -> None:
    """Ten lines of ``${...}`` each repeating the previous ten times: 10**10 characters
    if expanded; refused at the budget instead."""
    lines = ['[v]\nl0 = "hahahahaha"']
    lines += [f'l{i} = "{("${v.l" + str(i - 1) + "}") * 10}"' for i in range(1, 11)]
    path = tmp_path / "laughs.toml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(config.ConfigError, match="references expand past") as info:
        config.load(path)
    assert info.value.errors[0][0].startswith("v.l")
    tables = "\n".join(
        ['[t0]\nx = "y"']
        + [
            f"[t{i}]\n" + "\n".join(f'k{j} = "${{t{i - 1}}}"' for j in range(10))
            for i in range(1, 12)
        ]
    )
    with pytest.raises(config.ConfigError, match="expand past"):
        config.interpolate(config.loads(tables))


def test_long_reference_chains_and_deep_nesting_are_config_errors(tmp_path: Path) -> None:
    chain = "\n".join([f'k{i} = "${{k{i + 1}}}"' for i in range(3000)] + ["k3000 = 1"])
    with pytest.raises(config.ConfigError, match="references chain deeper than 100"):
        config.interpolate(config.loads(chain))
    deep = tmp_path / "deep.json"
    deep.write_text('{"a": ' + "[" * 50_000 + "]" * 50_000 + "}")
    with pytest.raises(config.ConfigError) as info:
        config.load(deep)
    assert str(deep) in str(info.value)
    nested = tmp_path / "nested.json"
    nested.write_text('{"a": ' + "[" * 500 + "]" * 500 + "}")
    with pytest.raises(config.ConfigError, match="nests deeper than 100 levels") as info:
        config.load(nested)
    assert info.value.errors[0][0].startswith("a[0][0]")
    yaml_deep = tmp_path / "deep.yaml"
    yaml_deep.write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(config.ConfigError):
        config.load(yaml_deep)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", "is not UTF-8 text"),
        (b'[train]\nname = "caf\xe9"\n', "is not UTF-8 text (byte 19)"),
        (b"[train]\x00\x00\x00", "holds NUL bytes"),
    ],
)
def test_binary_and_non_utf8_files_name_the_file(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "job.toml"
    path.write_bytes(content)
    with pytest.raises(config.ConfigError, match=r"job\.toml") as info:
        config.load(path)
    assert message in str(info.value)


def test_oversized_files_are_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loading, "MAX_FILE_BYTES", 100)
    path = tmp_path / "big.toml"
    path.write_text("# " + "x" * 200 + "\n")
    with pytest.raises(config.ConfigError, match="larger than 100 bytes"):
        config.load(path)


def test_ordinary_references_still_work() -> None:
    cfg = config.loads(
        '[d]\nh = 8\nw = "${d.h}"\n[m]\na = "${d.w}"\nb = "n=${d.h}/${d.w}"\nc = "${d}"'
    )
    out = config.interpolate(cfg)
    assert out["m"] == {"a": 8, "b": "n=8/8", "c": {"h": 8, "w": 8}}
    out["m"]["c"]["h"] = 1  # expanded tables are copies, not shared
    assert out["d"]["h"] == 8
