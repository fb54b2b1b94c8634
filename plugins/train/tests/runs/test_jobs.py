"""Built-in jobs by name: the train pack's own through the ``jobs`` kind, any pack's job
found the same way (a dash in the name is fine), paths passed through, an unknown name
refused with the installed jobs and the closest one, and a lookup that imports only its
provider's module."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from twtrain_helpers import run_cli

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train.runs.job import (
    DEFAULT_JOB,
    check_settings,
    config_path,
    job_names,
    unknown_job,
)

pytestmark = pytest.mark.usefixtures("no_conflict_demo")

OWN = ("chars", "dcgan", "digits")


@pytest.fixture
def my_job(tmp_path: Path) -> Iterator[str]:
    """A job named ``my-tiny-job`` registered in this process (a copy of ``digits``)."""
    path = tmp_path / "my_tiny_job.toml"
    path.write_text(config_path("digits").read_text())
    with tw.registry("jobs").scoped() as registry:
        registry.register("my-tiny-job", path)
        yield "my-tiny-job"


def test_the_packs_own_jobs_are_registered_and_validate() -> None:
    assert set(OWN) <= set(job_names()) and DEFAULT_JOB == "digits"
    for name in OWN:
        path = config_path(name)
        assert path.is_file() and path.name == f"{name}.toml"
        assert tw.registry("jobs").providers(name) == ["tensorweave-train"]
        cfg = twc.load(path)
        assert check_settings(cfg) == [] and twc.validate(cfg) == []
    assert config_path(None) == config_path("digits")


def test_a_job_of_another_pack_is_found_by_its_name_with_a_dash(my_job: str) -> None:
    assert my_job in job_names()
    assert config_path(my_job).name == "my_tiny_job.toml"
    assert config_path(f"local:{my_job}").name == "my_tiny_job.toml"


def test_paths_are_passed_through(tmp_path: Path) -> None:
    assert config_path("configs/missing.toml") == Path("configs/missing.toml")
    assert config_path("missing.yaml") == Path("missing.yaml")
    folder = tmp_path / "digits"  # an existing path that is no job
    folder.write_text("")
    assert config_path(str(folder)) == folder


def test_an_unknown_name_lists_the_jobs_and_the_closest_one() -> None:
    with pytest.raises(tw.UnknownComponentError) as info:
        config_path("dgits")
    message = str(info.value)
    assert message.startswith("no built-in job or config file 'dgits'. Did you mean 'digits'?")
    assert "chars, dcgan, digits (tensorweave-train 0.1.0)" in message
    assert "Fix: give a job's name, or the path of a config file" in message


def test_a_blocked_packs_job_is_refused_and_not_listed(my_job: str) -> None:
    tw.plugins.block("tensorweave-train")
    try:
        error = unknown_job("chars")
        assert "tensorweave-train" not in str(error)
        assert "Built-in jobs: my-tiny-job (local)" in str(error)
        with pytest.raises(tw.UnknownComponentError):
            config_path("chars")
    finally:
        tw.plugins.unblock("tensorweave-train")


def test_without_the_models_pack_transformer_chars_is_refused_clearly() -> None:
    if "tensorweave-models" not in tw.plugins.distributions():
        pytest.skip("tensorweave-models is not installed")
    assert config_path("transformer-chars").name == "transformer_chars.toml"
    tw.plugins.block("tensorweave-models")
    try:
        with pytest.raises(tw.UnknownComponentError) as info:
            config_path("transformer-chars")
        message = str(info.value)
        assert "no built-in job or config file 'transformer-chars'" in message
        assert "digits (tensorweave-train" in message and "tensorweave-models" not in message
    finally:
        tw.plugins.unblock("tensorweave-models")


def test_the_command_line_refuses_an_unknown_job_with_exit_code_3(cli: None, capsys) -> None:
    code, _, err = run_cli(capsys, "train", "dcgn")
    assert code == 3
    assert "no built-in job or config file 'dcgn'. Did you mean 'dcgan'?" in err


def test_train_help_lists_the_installed_jobs(cli: None, my_job: str, capsys) -> None:
    code, out, _ = run_cli(capsys, "train", "--help")
    assert code == 0
    listed = re.search(r"a built-in job: ([^)]*\)[^.]*)\.", " ".join(out.split()))
    assert listed is not None and "digits (default)" in listed[1]
    assert {"chars", "dcgan", my_job} <= set(listed[1].replace(" (default)", "").split(", "))
    code, out, _ = run_cli(capsys, "train", my_job, "--help")
    assert code == 0 and "parameters of my_tiny_job.toml" in out


def test_a_job_lookup_imports_only_its_providers_module() -> None:
    code = (
        "import sys, tensorweave as tw; tw.registry('jobs')['dcgan'];"
        "print(sorted(m for m in sys.modules if m.startswith('tensorweave_')),"
        " 'tensorflow' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    modules = [
        "tensorweave_train",
        *(f"tensorweave_train.{m}" for m in ("configs", "kinds", "loop", "loop.services")),
    ]
    assert done.stdout.strip() == f"{modules} False"
