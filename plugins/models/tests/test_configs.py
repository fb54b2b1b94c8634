"""The pack's built-in job: ``transformer-chars`` is registered in the train pack's ``jobs``
kind, its file ships with the package and validates, and looking it up imports only this
pack's ``configs`` module (and the kind's declaration), no builder and no TensorFlow."""

from __future__ import annotations

import subprocess
import sys

import tensorweave as tw
import tensorweave.config as twc
import tensorweave_train as twt
from tensorweave_models import configs


def test_transformer_chars_is_a_job_of_this_pack_and_validates():
    jobs = tw.registry("jobs")
    assert jobs.providers("transformer-chars") == ["tensorweave-models"]
    assert jobs["transformer-chars"] == configs.transformer_chars
    path = twt.config_path("transformer-chars")
    assert path.is_file() and path.parent.name == "configs"
    cfg = twc.load(path)
    assert cfg["model"]["nodes"]["lm"]["@models"] == "TransformerLM.v1"
    twt.validate_config(cfg)  # raises on any problem


def test_the_lookup_imports_only_the_configs_module():
    code = (
        "import sys, tensorweave as tw; tw.registry('jobs')['transformer-chars'];"
        "print(sorted(m for m in sys.modules if m.startswith('tensorweave_models')),"
        " 'tensorflow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['tensorweave_models', 'tensorweave_models.configs'] False"
