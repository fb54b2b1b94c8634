"""The kinds this pack declares: the ``jobs`` kind accepts packaged config files only, and
refuses anything else with what a job must be."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

import tensorweave as tw
from tensorweave_train.kinds import JOB_SUFFIXES, jobs


def test_a_packaged_config_file_is_a_job() -> None:
    packaged = resources.files("tensorweave_train.configs") / "digits.toml"
    assert jobs.check(packaged) is None
    assert jobs.check(Path(str(packaged))) is None  # a plain path to the file too


@pytest.mark.parametrize(
    "not_a_job",
    ["digits.toml", b"digits.toml", lambda: None, None, {"data": {}}],
    ids=["str", "bytes", "function", "none", "dict"],
)
def test_anything_but_a_file_is_refused_saying_what_a_job_is(not_a_job: object) -> None:
    problem = jobs.check(not_a_job)
    assert problem is not None
    assert problem.startswith("a job must be a config file packaged with its pack")
    assert "importlib.resources.files(__package__)" in problem


def test_a_file_of_another_format_or_missing_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "job.txt"
    text.write_text("")
    assert jobs.check(text) == (
        f"a job's config file must end in {', '.join(JOB_SUFFIXES)}, got 'job.txt'"
    )
    problem = jobs.check(tmp_path / "missing.toml")
    assert problem is not None and "is not in the installed pack" in problem
    assert "[tool.setuptools.package-data]" in problem


def test_registering_a_string_as_a_job_names_the_component_and_the_contract() -> None:
    with tw.registry("jobs").scoped() as registry:
        with pytest.raises(tw.InvalidComponentError, match="cannot register 'my-job' as a jobs"):
            registry.register("my-job", "my_job.toml")
        assert "my-job" not in registry
