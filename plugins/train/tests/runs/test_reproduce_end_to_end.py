"""``tensorweave reproduce`` end to end, with real wheels, real environments, real processes.

Wheels of the repository's packs the job needs (``python -m build --wheel --no-isolation``) and of a
test-only pack (``fixtures/scale_pack``: ``Scale.v1``) at 0.1.0, and again at 0.2.0 whose
``Scale.v1`` computes differently, go into one folder. A training environment gets the packs
from those wheels (third-party distributions are linked from this one: no download), trains a
tiny digits job there, then:

- ``tensorweave reproduce RUN --find-links WHEELS`` in a fresh environment: every figure
  equal, bit for bit (the weights' sha256 too), exit 0; the original run untouched;
- the training environment upgraded to the fixture pack's 0.2.0: ``reproduce --here
  --bisect`` finds the figures moved (exit 5), lists the pack's versions among the
  differences, and names the pack;
- a reproduction stopped by SIGTERM halfway removes its temporary environment and its
  half-written run, and writes nothing into the original.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from twtrain_helpers import files_of

from tensorweave_train.runs.reproduce.environments import Env, Source, install, make_env, share

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[4]
FIXTURE = Path(__file__).parent / "fixtures" / "scale_pack"
LEFTOVERS = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", "tests")


def _build(source: Path, out: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(source)],
        check=True,
        capture_output=True,
    )  # fmt: skip


def _packs() -> list[Path]:
    """The core and the packs the digits job needs (tensorweave-train and its dependencies):
    the training environment holds only these, so reproducing installs only these."""
    return [
        ROOT / "core",
        *(ROOT / "plugins" / p for p in ("layers", "losses", "rnn", "data", "train")),
    ]


def _fixture(tmp: Path, version: str, factor: str) -> Path:
    where = tmp / f"scale-{version}"
    shutil.copytree(FIXTURE, where, ignore=LEFTOVERS)
    toml = where / "pyproject.toml"
    toml.write_text(toml.read_text().replace('version = "0.1.0"', f'version = "{version}"'))
    module = where / "tensorweave_fixture_scale" / "scale.py"
    module.write_text(module.read_text().replace("FACTOR = 1.0", f"FACTOR = {factor}"))
    return where


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONUNBUFFERED": "1"}


def _tensorweave(python: Path | str, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "tensorweave_train.commands", *argv],
        capture_output=True, text=True, env=_env(), cwd=cwd, timeout=600,
    )  # fmt: skip


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("wheels")
    out = tmp / "wheels"
    for pack in _packs():  # a copy: building writes into the source folder
        copy = tmp / "src" / pack.name
        shutil.copytree(pack, copy, ignore=LEFTOVERS)
        _build(copy, out)
    _build(_fixture(tmp, "0.1.0", "1.0"), out)
    _build(_fixture(tmp, "0.2.0", "0.5"), tmp / "later")  # not offered to reproduce's install
    return out


@pytest.fixture(scope="module")
def trained(wheels: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Env, Path]:
    """An environment with the packs from the wheels (the fixture pack at 0.1.0) and the
    third-party distributions of this one linked, and a run trained in it."""
    tmp = tmp_path_factory.mktemp("trained")
    env = make_env(tmp / "env")
    packs = {"tensorweave"} | {
        str(d.metadata["Name"]).lower().replace("_", "-")
        for d in metadata.distributions()
        if any(ep.group.startswith("tensorweave.") for ep in d.entry_points)
    }
    third = [
        d for d in metadata.distributions()
        if str(d.metadata["Name"]).lower().replace("_", "-") not in packs
    ]  # fmt: skip
    share(env, third)
    install(env, [str(w) for w in sorted(wheels.glob("*.whl"))], Source(no_index=True))
    done = _tensorweave(
        env.python, "train", str(FIXTURE / "digits_scaled.toml"), "--run-dir", "run", "--quiet",
        cwd=tmp,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return env, tmp / "run"


def test_reproduce_bit_for_bit_then_interrupted_then_bisect_names_the_pack(
    trained: tuple[Env, Path], wheels: Path
) -> None:
    """One test (a module's tests may be split among xdist workers, each building the
    environments again): the three cases in order, the last one changes the environment."""
    _reproduced_bit_for_bit(*trained, wheels)
    _interrupted_leaves_nothing(trained[1], wheels)
    _moved_figures_name_the_pack(*trained, wheels)


def _reproduced_bit_for_bit(env: Env, run: Path, wheels: Path) -> None:
    before = files_of(run)
    done = _tensorweave(
        sys.executable, "reproduce", str(run), "--find-links", str(wheels), "--no-index",
        "--share-unchanged", cwd=run.parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "installing 7 recorded versions" in done.stdout  # 6 packs + the fixture's
    assert re.search(r"weights sha256\s+(\w{12})\s+\1\s+same\s+yes", done.stdout), done.stdout
    assert re.search(r"valid loss\s+(\S+)\s+\1\s+0\s+yes", done.stdout), done.stdout
    assert "reproduced: every figure within 1e-06" in done.stdout
    assert files_of(run) == before  # the original is only read
    made = [p for p in run.parent.iterdir() if p.name.startswith("run-reproduced-")]
    assert len(made) == 1 and (made[0] / "summary.json").is_file()


def _interrupted_leaves_nothing(run: Path, wheels: Path) -> None:
    before = files_of(run)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tensorweave_train.commands", "reproduce", str(run),
         "--find-links", str(wheels), "--no-index", "--share-unchanged"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=run.parent,
    )  # fmt: skip
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:  # stopped once the new run exists and is being written
        lines.append(line)
        if line.startswith("re-running the recorded config into"):
            break
    half = run.parent / line.split(" into ")[1].strip()
    assert half.is_dir(), "".join(lines)
    proc.send_signal(signal.SIGTERM)
    rest, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, "".join(lines) + rest + err
    env_dir = Path(re.search(r"fresh environment in (\S+)", "".join(lines)).group(1))  # type: ignore[union-attr]
    assert not env_dir.exists() and not env_dir.parent.exists()
    assert not half.exists()
    assert (
        "removed the temporary environment" in err and f"removed the half-written run {half}" in err
    )
    assert f"nothing was written into {run}" in err
    assert files_of(run) == before


def _moved_figures_name_the_pack(env: Env, run: Path, wheels: Path) -> None:
    later = next((wheels.parent / "later").glob("*.whl"))
    install(env, [str(later)], Source(no_index=True))  # the environment moves on: 0.2.0
    done = _tensorweave(
        env.python, "reproduce", str(run), "--here", "--bisect", "--find-links", str(wheels),
        "--no-index", cwd=run.parent,
    )  # fmt: skip
    assert done.returncode == 5, done.stdout + done.stderr
    assert "NOT reproduced" in done.stdout
    assert re.search(r"pack\s+tensorweave-fixture-scale\s+0\.1\.0\s+0\.2\.0", done.stdout)
    assert (
        "bisect: the figures moved with tensorweave-fixture-scale (0.1.0 recorded, 0.2.0 now)"
        in done.stdout
    )
