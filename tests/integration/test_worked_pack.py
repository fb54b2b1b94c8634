"""The worked pack of CONTRIBUTING.md (``contrib/augment``), used as a third party would:
built as a wheel, installed in a fresh virtualenv with the wheels of what it declares, and
run through the ``tensorweave`` command only.

To keep CI cheap nothing is downloaded: the fresh virtualenv sees this environment's
third-party packages (TensorFlow, numpy, pluggy…) through a read-only view that leaves out
every tensorweave distribution, and pip installs the freshly built wheels with
``--no-deps``. What the pack and its dependencies are is therefore exactly what the wheels
say: a missing entry point, package file or dependency fails here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from tests.integration.test_fresh_install import _local_distributions, declared_closure
from tests.integration.wheels import build_wheel

ROOT = Path(__file__).resolve().parents[2]
PACK = "tensorweave-augment"
CONFIG = ROOT / "contrib" / "augment" / "configs" / "digits_augmented.toml"
LEFTOVERS = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", "tests")


def _deps_view(where: Path) -> Path:
    """This environment's site-packages without any tensorweave distribution or ``.pth``."""
    site = Path(sysconfig.get_paths()["purelib"])
    view = where / "deps"
    view.mkdir()
    for entry in site.iterdir():
        name = entry.name.lower()
        if "tensorweave" in name or name.endswith(".pth") or name.startswith("__editable__"):
            continue
        (view / entry.name).symlink_to(entry)
    return view


def _wheels(names: list[str], where: Path) -> list[Path]:
    local = _local_distributions()
    wheels = []
    for name in names:
        source = where / "sources" / name
        shutil.copytree(local[name], source, ignore=LEFTOVERS)
        wheels.append(build_wheel(source, where / "wheels")[0])
    return wheels


def _fresh_install(where: Path) -> dict[str, object]:
    """The pack and what it declares, as wheels, in a fresh virtualenv."""
    names = declared_closure(PACK)
    wheels = _wheels(names, where)
    env_dir = where / "venv"
    venv.EnvBuilder(with_pip=False, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "third_party.pth").write_text(f"{_deps_view(where)}\n")
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            *map(str, wheels),
        ],
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(TF_CPP_MIN_LOG_LEVEL="3", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return {"python": python, "bin": env_dir / "bin", "env": env, "where": where, "dists": names}


def _tensorweave(fresh: dict[str, object], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(str(fresh["bin"])) / "tensorweave"), *args],
        capture_output=True,
        text=True,
        env=fresh["env"],  # type: ignore[arg-type]
        cwd=fresh["where"],  # type: ignore[arg-type]
        timeout=900,
    )


@pytest.mark.slow
def test_the_worked_pack_installed_from_wheels_works_from_the_command_line(tmp_path):
    # one test, not three: each would build and install the wheels again (xdist spreads tests)
    fresh = _fresh_install(tmp_path)
    _lists_declares_describes_and_runs_its_command(fresh)
    _a_config_using_the_packs_kind_and_callback_trains(fresh)
    _without_the_pack_it_builds_on_the_check_fails_naming_what_to_install(fresh)


def _lists_declares_describes_and_runs_its_command(fresh: dict[str, object]) -> None:
    listed = _tensorweave(fresh, "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    report = json.loads(listed.stdout)
    assert {d["name"] for d in report["distributions"]} == set(fresh["dists"])
    [pack] = [d for d in report["distributions"] if d["name"] == PACK]
    assert pack["declares_kinds"] == {
        "augmenters": "batch transforms applied while training: augmenter(x, rng) -> x's shape and dtype"
    }
    assert [c["name"] for c in pack["components"]["augmenters"]] == [
        "AugmentJitter.v1",
        "AugmentScale.v1",
    ]
    assert pack["components"]["callbacks"][0]["name"] == "AugmentOff.v1"
    assert pack["hooks"] == ["augment"] and pack["status"] == "ok"

    checked = _tensorweave(fresh, "plugins", "--check", "--json")
    report = json.loads(checked.stdout)
    assert report["failures"] == [] and report["clashes"] == [], report
    assert "augmenters" not in report["undeclared_kinds"]
    assert checked.returncode == (0 if report["ok"] else 1)  # --check gates on any problem

    described = _tensorweave(fresh, "describe", "Augment.v1")
    assert described.returncode == 0, described.stderr
    assert (
        "Augment(x: tw.Layer, augmenter: str | Callable[..., Any] | None = None" in described.stdout
    )
    assert "also known as: keras.layers.GaussianNoise" in described.stdout

    preview = _tensorweave(
        fresh, "augment-preview", "AugmentScale.v1", "--option", "low=2", "--option", "high=2"
    )
    assert preview.returncode == 0, preview.stderr
    assert "  after   0.00  0.17  0.33  0.50" in preview.stdout
    assert _tensorweave(fresh, "augment-preview", "AugmentJiter.v1").returncode == 3


def _a_config_using_the_packs_kind_and_callback_trains(fresh: dict[str, object]) -> None:
    run = Path(str(fresh["where"])) / "run"
    trained = _tensorweave(
        fresh,
        "train",
        str(CONFIG),
        "--train.epochs=3",
        "--train.limit=200",
        "--run-dir",
        str(run),
        "--quiet",
    )
    assert trained.returncode == 0, trained.stdout[-2000:] + trained.stderr[-3000:]
    header, *rows = (run / "log.csv").read_text().splitlines()
    column = header.split(",").index("augment_strength")
    assert [float(r.split(",")[column]) for r in rows] == [1.0, 1.0, 0.0]
    filled = json.loads((run / "config.json").read_text())
    assert filled["model"]["nodes"]["noisy"]["augmenter"]["@provider"] == f"{PACK} 0.1.0"


def _without_the_pack_it_builds_on_the_check_fails_naming_what_to_install(
    fresh: dict[str, object],
) -> None:
    removed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(fresh["python"]),
            "uninstall",
            "-y",
            "-q",
            "tensorweave-train",
        ],
        capture_output=True,
        text=True,
    )
    assert removed.returncode == 0, removed.stderr
    checked = _tensorweave(fresh, "plugins", "--check")
    assert checked.returncode == 1
    assert "callbacks component 'AugmentOff.v1' from tensorweave-augment 0.1.0" in checked.stdout
    assert "pip install 'tensorweave_train'" in checked.stdout
    assert (
        _tensorweave(fresh, "augment-preview", "AugmentJitter.v1").returncode == 0
    )  # the rest works
