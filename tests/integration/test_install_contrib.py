"""A real package from ``contrib/`` installed with pip resolves by name in a fresh process.

The pack is built and installed by pip (wheel, metadata, entry points), never put on the
path by hand. When ``tensorweave-template`` is not installed, it goes into this environment
and is uninstalled afterwards; when it already is (an editable install for development),
that install is left alone and the new one goes to a ``--target`` directory put first on
``PYTHONPATH``, which wins: the test checks that the component came from it.
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

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "contrib" / "template"
DIST = "tensorweave-template"
QUIET = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "-1"}
LEFTOVERS = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".hypothesis")

RESOLVE = textwrap.dedent(
    """
    import json, sys
    import numpy as np, tensorweave as tw

    info = tw.layers.info("tensorweave-template:TemplateScale.v1")
    Scale = tw.layers["tensorweave-template:TemplateScale.v1"]
    log_cosh = tw.losses["tensorweave-template:template_log_cosh.v1"]
    x = tw.Input(n_units=2, value=[[1.0, -2.0]])
    y = Scale(x, initial=2.0)
    print(json.dumps({
        "file": sys.modules[Scale.__module__].__file__,
        "target": info.target,
        "version": info.version,
        "output": tw.compile(y)().numpy().tolist(),
        "loss": float(log_cosh(x, y)()),  # labels, then predictions
    }))
    """
)


def _installed(dist: str) -> bool:
    try:
        importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        env=QUIET,
    )


@pytest.mark.slow
def test_contrib_template_installs_and_resolves_by_name(tmp_path):
    source = tmp_path / "src"  # build from a copy: nothing is written into the repository
    shutil.copytree(TEMPLATE, source, ignore=LEFTOVERS)
    already = _installed(DIST)
    site = tmp_path / "site"
    where = ["--target", str(site)] if already else []
    env = {**QUIET, "PYTHONPATH": os.pathsep.join([str(site), QUIET.get("PYTHONPATH", "")])}
    try:
        done = _pip("install", "--no-build-isolation", "--no-deps", "-q", *where, str(source))
        assert done.returncode == 0, done.stderr
        run = subprocess.run(
            [sys.executable, "-c", RESOLVE],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env if already else QUIET,
        )
        assert run.returncode == 0, run.stderr[-3000:]
        result = json.loads(run.stdout.strip().splitlines()[-1])
    finally:
        if not already:
            _pip("uninstall", "-y", DIST)
    if already:
        assert Path(result["file"]).is_relative_to(site), result["file"]
    else:
        assert not _installed(DIST), f"{DIST} is still installed"
        assert not Path(result["file"]).is_relative_to(TEMPLATE), result["file"]
    assert result["target"] == "tensorweave_template.scale:Scale"
    assert result["version"] == "0.1.0"
    assert result["output"] == [[2.0, -4.0]]
    assert result["loss"] > 0
