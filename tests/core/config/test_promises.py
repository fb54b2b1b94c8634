"""Looking a promise's component up: a missing kind names what to install, and a plugin
that fails to load is the cause of the config's error (its traceback reaches the plugin)."""

from __future__ import annotations

import traceback
import warnings
from typing import Any

import pytest

import tensorweave as tw
from tensorweave import config
from tensorweave.config import ConfigError

RAISING = """
raise RuntimeError("acme: boom at import")
"""


def test_a_kind_whose_pack_is_missing_names_the_distribution_the_config_recorded():
    node = {"@augmenters_gone": "Flip.v1", "@provider": "tensorweave-acme 1.2.0"}
    [(path, message)] = config.validate({"aug": node})
    assert path == "aug.@augmenters_gone"
    assert message.startswith("unknown component kind '@augmenters_gone'.")
    assert "Flip.v1 was provided by tensorweave-acme 1.2.0 when the config was saved" in message
    assert "pip install 'tensorweave-acme==1.2.0'" in message


def test_a_plugin_that_fails_to_load_is_the_cause_of_the_config_error(fake_dists):
    pack = fake_dists.add(
        "raising-cfg", entry_points={"layers": {"Boom.v1": "boom:Boom"}}, modules={"boom": RAISING}
    )
    cfg = {
        "m": {
            "nodes": {
                "x": {"input": [3]},
                "h": {"@layers": pack.qualified("Boom.v1"), "inputs": "x"},
            }
        }
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(ConfigError) as caught:
            config.resolve(cfg)
    cause = caught.value.__cause__
    assert isinstance(cause, tw.PluginLoadError) and isinstance(cause.__cause__, RuntimeError)
    printed = "".join(traceback.format_exception(caught.value))
    assert f'{pack.module("boom")}.py", line 2, in <module>' in printed


def test_a_component_typed_any_or_unannotated_takes_a_class_component():
    class Adam:
        def __init__(self, learning_rate: float = 0.1) -> None:
            self.learning_rate = learning_rate

    def holder(opt: Any, other=None) -> dict:
        return {"opt": opt, "other": other}

    with (
        tw.registry("cfgtest_opts").scoped() as opts,
        tw.registry("cfgtest_holders").scoped() as holders,
    ):
        opts.register("Adam.v1", Adam)
        holders.register("Holder.v1", holder)
        promise = {"@cfgtest_opts": "Adam.v1"}
        cfg = {"h": {"@cfgtest_holders": "Holder.v1", "opt": promise, "other": dict(promise)}}
        assert config.validate(cfg) == []
        built = config.resolve(cfg)["h"]
    assert isinstance(built["opt"], Adam) and isinstance(built["other"], Adam)
