"""A pack installs alone: core + the train pack + what it declares, in a fresh virtualenv.

Nothing else of this repository is installed: the set of local distributions comes from
following the ``tensorweave*`` requirements of ``plugins/train/pyproject.toml``, so a
pack that uses another by name without declaring it makes the default job fail here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _local_distributions() -> dict[str, Path]:
    """``{distribution name: source directory}`` for the core, packs and contrib."""
    found = {}
    for pyproject in [ROOT / "core" / "pyproject.toml", *ROOT.glob("*/*/pyproject.toml")]:
        name = tomllib.loads(pyproject.read_text())["project"]["name"]
        found[name] = pyproject.parent
    return found


def declared_closure(start: str) -> list[str]:
    """``start`` and every local distribution it requires, directly or not."""
    local = _local_distributions()
    seen: list[str] = []
    todo = [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        meta = tomllib.loads((local[name] / "pyproject.toml").read_text())["project"]
        for requirement in meta.get("dependencies", []):
            dep = re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip()
            if dep in local:
                todo.append(dep)
    return sorted(seen)


def test_the_closure_of_the_train_pack_is_what_its_jobs_use():
    closure = declared_closure("tensorweave-train")
    assert "tensorweave" in closure and "tensorweave-data" in closure
    assert not [name for name in closure if "template" in name or "keras" in name]


@pytest.mark.slow
def test_core_and_train_with_its_declared_dependencies_run_the_default_job(tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = str(bin_dir / "python")
    local = _local_distributions()
    closure = declared_closure("tensorweave-train")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", TF_CPP_MIN_LOG_LEVEL="3")
    sources = tmp_path / "sources"  # copies: building a wheel writes build/ into the source
    for name in closure:
        shutil.copytree(
            local[name],
            sources / name,
            ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests"),
        )
    install = subprocess.run(
        [python, "-m", "pip", "install", "-q", *(str(sources / name) for name in closure)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    check = subprocess.run([python, "-m", "pip", "check"], capture_output=True, text=True, env=env)
    assert check.returncode == 0, check.stdout + check.stderr
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format=json"], capture_output=True, text=True, env=env
    )
    installed = {p["name"] for p in json.loads(listed.stdout)}
    ours = {name for name in installed if name.startswith("tensorweave")}
    assert ours == set(closure), f"installed {sorted(ours)}, declared {closure}"

    work = tmp_path / "work"
    work.mkdir()
    train = subprocess.run(
        [str(bin_dir / "tensorweave"), "train", "--train.epochs=1", "--train.limit=300"],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
        timeout=900,
    )
    assert train.returncode == 0, train.stdout[-2000:] + train.stderr[-3000:]
    runs = [p for p in (work / "runs").iterdir() if p.is_dir()]
    assert len(runs) == 1 and (runs[0] / "config.json").is_file()
    assert "cuInit" not in train.stderr and "absl::InitializeLog" not in train.stderr
