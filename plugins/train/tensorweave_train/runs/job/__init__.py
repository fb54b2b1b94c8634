"""A job: a config naming data, a model graph, optimizers, callbacks and the ``[train]`` and
``[run]`` settings, validated once and built from that validation.

- ``settings``: the sections (``TrainSettings``, ``RunSettings``: checked by the config's
  one resolver as the parameters of those classes, ``JOB_SECTIONS``), the layout checks
  (``check_settings``, ``check_layout``) and ``validate_config``, the one validation of a
  job, whose ``twc.Plan`` builds it;
- ``builtin``: built-in jobs by name (the ``jobs`` kind): ``config_path``, ``job_names``,
  ``load_config`` (no TensorFlow to find a job's file);
- ``build``: ``build_model`` (the one place a config becomes a ``Model``), ``build_data``,
  ``build_job`` and ``Job``; ``in_run`` and ``build_callbacks``: the options typed
  ``OutputPath`` read inside the run directory.

Names are imported on first use.

>>> from tensorweave_train.runs.job import config_path
>>> config_path("digits").name
'digits.toml'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:
    from tensorweave_train.runs.job.build import (
        Job,
        build_callbacks,
        build_data,
        build_job,
        build_model,
        in_run,
        settings_dict,
    )
    from tensorweave_train.runs.job.builtin import (
        DEFAULT_JOB,
        config_path,
        job_names,
        load_config,
        unknown_job,
    )
    from tensorweave_train.runs.job.settings import (
        JOB_SECTIONS,
        SECTIONS,
        SECTIONS_ALL,
        RunSettings,
        TrainSettings,
        check_layout,
        check_output_paths,
        check_settings,
        settings_of,
        validate_config,
    )

_EXPORTS = {
    "Job": "build",
    "build_callbacks": "build",
    "in_run": "build",
    "build_data": "build",
    "build_job": "build",
    "build_model": "build",
    "settings_dict": "build",
    "DEFAULT_JOB": "builtin",
    "config_path": "builtin",
    "job_names": "builtin",
    "load_config": "builtin",
    "unknown_job": "builtin",
    "JOB_SECTIONS": "settings",
    "SECTIONS": "settings",
    "SECTIONS_ALL": "settings",
    "RunSettings": "settings",
    "TrainSettings": "settings",
    "check_layout": "settings",
    "check_output_paths": "settings",
    "check_settings": "settings",
    "settings_of": "settings",
    "validate_config": "settings",
}
__all__ = [
    "Job",
    "build_callbacks",
    "in_run",
    "build_data",
    "build_job",
    "build_model",
    "settings_dict",
    "DEFAULT_JOB",
    "config_path",
    "job_names",
    "load_config",
    "unknown_job",
    "JOB_SECTIONS",
    "SECTIONS",
    "SECTIONS_ALL",
    "RunSettings",
    "TrainSettings",
    "check_layout",
    "check_output_paths",
    "check_settings",
    "settings_of",
    "validate_config",
]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
