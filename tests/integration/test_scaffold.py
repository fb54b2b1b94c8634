"""``tensorweave new-plugin``: the shipped template equals ``contrib/template``, and a pack
made from it installs, passes its own tests, resolves by name and trains, with no edits."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from tensorweave.cli import scaffold
from tests.integration.wheels import build_wheel

REPO = Path(__file__).resolve().parents[2]
CONTRIB_TEMPLATE = REPO / "contrib" / "template"
QUIET = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "-1"}


def _files(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in scaffold._pack_files(root)
    }


def test_shipped_template_equals_contrib_template():
    shipped = scaffold.render_template(scaffold.TEMPLATE_DIST, scaffold.TEMPLATE_PACKAGE)
    source = _files(CONTRIB_TEMPLATE)
    fix = (
        "the template shipped in core/tensorweave/templates/plugin drifted from contrib/template."
        '\n  Fix: python -c "from pathlib import Path; from tensorweave.cli.scaffold import '
        "export_template; export_template(Path('contrib/template'))\""
    )
    assert sorted(shipped) == sorted(source), fix
    for path, text in source.items():
        assert shipped[path] == text, f"{path}: {fix}"


def test_rendered_pack_keeps_no_template_name():
    files = scaffold.render_template("tensorweave-fancy", "fancy_pkg")
    for path, text in files.items():
        for name in (scaffold.TEMPLATE_DIST, scaffold.TEMPLATE_PACKAGE, "{{"):
            assert name not in path and name not in text, f"{path} still says {name!r}"
    project = tomllib.loads(files["pyproject.toml"])
    assert project["project"]["name"] == "tensorweave-fancy"
    assert project["project"]["dependencies"] == ["tensorweave>=0.1,<0.2"]
    entry_points = project["project"]["entry-points"]
    assert entry_points["tensorweave.layers"] == {
        "FancyScale.v1": "fancy_pkg.scale:Scale",
        "FancyRescale.v1": "fancy_pkg.scale:rescale_v1",
    }
    assert entry_points["tensorweave.losses"]["fancy_log_cosh.v1"] == "fancy_pkg.losses:log_cosh"
    assert "fancy_pkg/scale.py" in files
    # an SPDX string (PEP 639), which setuptools>=77 reads without a deprecation warning
    assert project["project"]["license"] == "Apache-2.0"
    assert project["build-system"]["requires"] == ["setuptools>=77"]


@pytest.mark.parametrize(
    ("name", "dist", "package"),
    [
        ("fancy", "tensorweave-fancy", "tensorweave_fancy"),
        ("Fancy_Layers", "tensorweave-fancy-layers", "tensorweave_fancy_layers"),
        ("tensorweave-fancy", "tensorweave-fancy", "tensorweave_fancy"),
        ("My Fancy  Layers", "tensorweave-my-fancy-layers", "tensorweave_my_fancy_layers"),
    ],
)
def test_pack_names(name, dist, package):
    assert scaffold.pack_names(name) == (dist, package)


@pytest.mark.parametrize("name", ["", "tensorweave", "bad/name", "-", "é"])
def test_bad_names_are_refused(name):
    with pytest.raises(ValueError, match="new-plugin"):
        scaffold.pack_names(name)


def test_bad_package_is_refused():
    with pytest.raises(ValueError, match="--package"):
        scaffold.pack_names("fancy", "not-an-identifier")


def test_taken_names_are_refused(tmp_path):
    with pytest.raises(ValueError, match="'json' can already be imported"):
        scaffold.scaffold_plugin("fancy", tmp_path, package="json")
    with pytest.raises(ValueError, match="already installed"):  # the core is installed
        scaffold._refuse_taken("tensorweave", "not_a_module_xyz")
    assert not any(tmp_path.iterdir())


def _run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="tensorweave")
    scaffold.add_command(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    return args.func(args)


def test_command_writes_the_pack_and_prints_next_steps(tmp_path, capsys):
    assert _run_cli("new-plugin", "fancy", "--dir", str(tmp_path)) == 0
    root = tmp_path / "tensorweave-fancy"
    out = capsys.readouterr().out
    assert str(root) in out and "pip install -e" in out and "pytest" in out
    assert (root / "tensorweave_fancy" / "losses.py").is_file()
    assert (root / "tests" / "test_conformance.py").is_file()
    # never overwrites
    assert _run_cli("new-plugin", "fancy", "--dir", str(tmp_path)) == 1
    assert "already exists" in capsys.readouterr().err


def test_command_takes_a_package_name(tmp_path):
    assert _run_cli("new-plugin", "fancy", "--dir", str(tmp_path), "--package", "fz") == 0
    assert (tmp_path / "tensorweave-fancy" / "fz" / "scale.py").is_file()


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        env=QUIET,
    )


RESOLVE_AND_TRAIN = textwrap.dedent(
    """
    import json, sys
    import numpy as np, tensorflow as tf, tensorweave as tw

    dist = sys.argv[1]
    assert dist in tw.layers.providers("ScaffoldE2eScale.v1"), tw.layers.providers("ScaffoldE2eScale.v1")
    Scale = tw.layers[dist + ":ScaffoldE2eScale.v1"]
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert tw.layers[dist + ":ScaffoldE2eRescale.v1"] is Scale  # the deprecated alias
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    log_cosh = tw.losses[dist + ":scaffold_e2e_log_cosh.v1"]
    x = tw.Input(n_units=3, value=np.ones((4, 3), "float32"))
    target = tw.Input(n_units=3, value=np.full((4, 3), 3.0, "float32"))
    y = Scale(x)
    loss = tw.compile(log_cosh(target, y))  # labels, then predictions
    before = float(loss())
    with tf.GradientTape() as tape:
        value = loss()
    grads = tape.gradient(value, y.trainable_variables)
    for v, g in zip(y.trainable_variables, grads):
        v.assign_sub(0.5 * g)
    print(json.dumps({
        "module": Scale.__module__, "before": before, "after": float(loss()),
        "scale": y.scale.numpy().tolist(),
    }))
    """
)


@pytest.mark.slow
def test_scaffolded_pack_installs_passes_its_tests_resolves_and_trains(tmp_path):
    dist, package = "tensorweave-scaffold-e2e", "tensorweave_scaffold_e2e"
    root = scaffold.scaffold_plugin("scaffold-e2e", tmp_path)
    # pip installs into a private --target directory put first on PYTHONPATH: the subprocesses
    # see the pack exactly as an installed distribution (metadata, entry points), while the
    # shared environment (and tests running in parallel with this one) never does.
    site = tmp_path / "site"
    env = {
        **QUIET,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(site), QUIET.get("PYTHONPATH")])),
    }
    # built as a wheel with `build` (requirements-dev.txt), as CONTRIBUTING's publish step does
    wheel, printed = build_wheel(root, tmp_path / "dist", QUIET)
    assert "deprecated" not in printed.lower(), printed[-3000:]  # the license is an SPDX string
    installed = _pip("install", "--no-deps", "-q", "--target", str(site), str(wheel))
    assert installed.returncode == 0, installed.stderr
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],  # what the newcomer types
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
    )
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout and "failed" not in tests.stdout
    run = subprocess.run(
        [sys.executable, "-c", RESOLVE_AND_TRAIN, dist],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["module"] == f"{package}.scale"
    assert result["after"] < result["before"]
    assert all(s > 1.0 for s in result["scale"])  # moved toward the target of 3
    assert _pip("show", dist).returncode != 0, f"{dist} leaked into the shared environment"
