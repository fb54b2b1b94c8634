"""Two installed distributions offer ``Linear.v1``: the bare name is refused, naming both;
a qualified name picks one; blocking one distribution makes the bare name usable again.

``contrib/conflict-demo`` is installed by pip into a private ``--target`` directory that only
this test's subprocesses have on ``PYTHONPATH``: they see a real installed distribution, and
the shared environment (where tests run in parallel) never sees the clash.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tensorweave as tw

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "contrib" / "conflict-demo"
DIST = "tensorweave-conflict-demo"
FIRST_PARTY = "tensorweave-layers"
QUIET = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "-1"}
LEFTOVERS = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".hypothesis")

PROBE = textwrap.dedent(
    """
    import json
    import numpy as np, tensorweave as tw

    out = {"providers": tw.layers.providers("Linear.v1")}
    try:
        tw.layers["Linear.v1"]
        out["bare"] = None
    except tw.ComponentConflictError as err:
        out["bare"] = str(err)
    x = tw.Input(n_units=3, value=np.ones((2, 3), "float32"))
    for dist in ("tensorweave-conflict-demo", "tensorweave-layers"):
        cls = tw.layers[dist + ":Linear.v1"]
        out[dist] = {"module": cls.__module__, "shape": list(cls(x, 4)().shape)}
    tw.plugins.block("tensorweave-conflict-demo")  # as TENSORWEAVE_BLOCK=... would
    out["blocked"] = tw.layers["Linear.v1"].__module__
    print(json.dumps(out))
    """
)


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        env=QUIET,
    )


def _python(code: str, cwd: Path, env: dict[str, str]) -> str:
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout.strip().splitlines()[-1]


def _installed(dist: str) -> bool:
    try:
        importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.slow
def test_conflict_is_named_and_resolved_by_qualified_name(tmp_path):
    if FIRST_PARTY not in tw.layers.providers("Linear.v1"):
        pytest.skip(f"{FIRST_PARTY} does not offer Linear.v1 here, so there is nothing to clash")
    if _installed(DIST):
        pytest.skip(f"{DIST} is installed in this environment; Fix: pip uninstall -y {DIST}")
    source = tmp_path / "conflict-demo"
    shutil.copytree(DEMO, source, ignore=LEFTOVERS)
    site = tmp_path / "site"
    env = {
        **QUIET,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(site), QUIET.get("PYTHONPATH")])),
    }
    done = _pip(
        "install", "--no-build-isolation", "--no-deps", "-q", "--target", str(site), str(source)
    )
    assert done.returncode == 0, done.stderr
    probe = json.loads(_python(PROBE, tmp_path, env))
    cli = {
        args: subprocess.run(
            [sys.executable, "-m", "tensorweave", *args.split()],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
        )
        for args in ("plugins", "plugins --check", "describe Linear.v1")
    }
    own_tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        cwd=source,
        env=env,
    )
    assert not _installed(DIST), f"{DIST} leaked into the shared environment"

    assert sorted(probe["providers"]) == sorted([DIST, FIRST_PARTY])
    message = probe["bare"]
    assert message is not None, "the bare name resolved silently despite two providers"
    assert DIST in message and FIRST_PARTY in message, message
    assert f"'{DIST}:Linear.v1'" in message and f"'{FIRST_PARTY}:Linear.v1'" in message
    assert probe[DIST] == {"module": "tensorweave_conflict_demo.linear", "shape": [2, 4]}
    assert probe[FIRST_PARTY]["module"].startswith("tensorweave_layers")
    assert probe[FIRST_PARTY]["shape"] == [2, 4]
    assert probe["blocked"].startswith("tensorweave_layers"), probe["blocked"]
    tail = own_tests.stdout[-3000:] + own_tests.stderr[-2000:]
    assert own_tests.returncode == 0 and " passed" in own_tests.stdout, tail
    skips = [line for line in own_tests.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skips and all("clashes with tensorweave-layers on purpose" in s for s in skips), tail

    # the clash shows before any job fails: listing, --check (which gates), describe
    qualified = f"ask for {DIST}:Linear.v1 or {FIRST_PARTY}:Linear.v1"
    qualified_other_order = f"ask for {FIRST_PARTY}:Linear.v1 or {DIST}:Linear.v1"
    for args in ("plugins", "plugins --check"):
        text = cli[args].stdout
        assert "Clashes" in text and (qualified in text or qualified_other_order in text), text
    assert cli["plugins"].returncode == 0 and cli["plugins --check"].returncode == 1
    described = cli["describe Linear.v1"].stdout
    assert cli["describe Linear.v1"].returncode == 0, cli["describe Linear.v1"].stderr
    assert f"{DIST}:Linear.v1  (layers, from {DIST}" in described
    assert f"{FIRST_PARTY}:Linear.v1  (layers, from {FIRST_PARTY}" in described
