"""The pack as a third party ships it: built as a wheel, installed in a fresh virtualenv beside
the wheels of the core and the train pack (and what those declare), used through the
``tensorweave`` command only.

The approach of the worked pack's test (``tests/integration/test_worked_pack.py``), to keep CI
cheap: nothing is downloaded. The fresh virtualenv sees this environment's third-party
packages (TensorFlow, MLflow, pluggy…) through a read-only view that leaves out every
tensorweave distribution, and pip installs the freshly built wheels with ``--no-deps``, so
what the pack and its dependencies are is exactly what the wheels say: a missing entry
point, package file or declared dependency fails here. The wheels are built by one ``pip
wheel`` call (one process for all of them).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

PACK = "tensorweave-mlflow"
ROOT = Path(__file__).resolve().parents[3]  # the repository: core/, plugins/, contrib/
LEFTOVERS = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", "tests")


def local_distributions() -> dict[str, Path]:
    """``{distribution name: source folder}`` of the repository's core and packs."""
    found = {}
    for pyproject in [ROOT / "core" / "pyproject.toml", *ROOT.glob("*/*/pyproject.toml")]:
        found[tomllib.loads(pyproject.read_text())["project"]["name"]] = pyproject.parent
    return found


def declared(start: str, local: dict[str, Path]) -> list[str]:
    """``start`` and every local distribution it requires, directly or not."""
    seen: list[str] = []
    todo = [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        project = tomllib.loads((local[name] / "pyproject.toml").read_text())["project"]
        for requirement in project.get("dependencies", []):
            dep = re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip()
            if dep in local:
                todo.append(dep)
    return sorted(seen)


def fresh_install(where: Path) -> tuple[Path, dict[str, str], list[str]]:
    """The pack and what it declares, as wheels, in a fresh virtualenv: its ``bin``, the
    environment to run it with, the distributions installed."""
    local = local_distributions()
    names = declared(PACK, local)
    sources = []
    for name in names:
        shutil.copytree(local[name], where / "sources" / name, ignore=LEFTOVERS)
        sources.append(str(where / "sources" / name))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    built = subprocess.run(
        [
            *pip,
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(where / "wheels"),
            *sources,
        ],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-3000:]
    env_dir = where / "venv"
    venv.EnvBuilder(with_pip=False, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    view = where / "deps"  # this environment's site-packages without tensorweave
    view.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        name = entry.name.lower()
        if "tensorweave" in name or name.endswith(".pth") or name.startswith("__editable__"):
            continue
        (view / entry.name).symlink_to(entry)
    Path(purelib, "third_party.pth").write_text(f"{view}\n")
    wheels = [str(w) for w in (where / "wheels").glob("*.whl")]
    installed = subprocess.run(
        [*pip, "--python", str(python), "install", "-q", "--no-deps", *wheels],
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(TF_CPP_MIN_LOG_LEVEL="3", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env_dir / "bin", env, names


@pytest.mark.slow
def test_the_wheel_installs_beside_the_core_and_train_wheels_and_describes(tmp_path):
    bin_dir, env, names = fresh_install(tmp_path)
    assert {"tensorweave", "tensorweave-train", PACK} <= set(names)
    assert not [n for n in names if n in ("tensorweave-store", "tensorweave-augment")]

    def tensorweave(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(bin_dir / "tensorweave"), *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=600,
        )

    described = tensorweave("describe", "MLflowLogger.v1")
    assert described.returncode == 0, described.stderr
    assert (
        "MLflowLogger(tracking_uri: str | None = None, experiment: str = 'tensorweave'"
        in described.stdout
    )
    assert PACK in described.stdout

    listed = tensorweave("plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    [pack] = [d for d in json.loads(listed.stdout)["distributions"] if d["name"] == PACK]
    assert pack["status"] == "ok" and pack["hooks"] == ["mlflow"]
    assert [c["name"] for c in pack["components"]["callbacks"]] == ["MLflowLogger.v1"]

    helped = tensorweave("train", "--help")
    assert helped.returncode == 0 and "--mlflow URI" in helped.stdout
    synced = tensorweave("mlflow", "sync", str(tmp_path))
    assert synced.returncode == 0 and "nothing to send" in synced.stdout
