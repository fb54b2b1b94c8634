"""The public door is lazy, the hook module light, and the hooks offer ``--mlflow``."""

import socket

import pytest

from tensorweave.cli import main
from tensorweave.testing import check_lazy_package, check_light_modules
from tensorweave_mlflow import hooks
from tensorweave_mlflow.jobs import JobContext, forget, remember
from tensorweave_mlflow.logger import MLflowLogger
from tensorweave_mlflow.outbox import Outbox
from tensorweave_mlflow.params import flatten


def test_the_package_is_lazy():
    check_lazy_package("tensorweave_mlflow")


def test_the_hook_and_sync_modules_stay_light():
    check_light_modules(
        "tensorweave_mlflow",
        [
            "tensorweave_mlflow.hooks",
            "tensorweave_mlflow.jobs",
            "tensorweave_mlflow.params",
            "tensorweave_mlflow.outbox",
            "tensorweave_mlflow.resend",
        ],
    )


@pytest.mark.parametrize("command", ["train", "resume"])
def test_train_and_resume_take_the_mlflow_option(command, capsys):
    assert main([command, "--help"]) == 0
    assert "--mlflow URI" in capsys.readouterr().out


def test_a_config_becomes_params_within_mlflows_limits():
    params = flatten(
        {
            "model": {
                "nodes": {"h": {"@layers": "FC.v1", "@provider": "tensorweave-layers 0.1.0"}}
            },
            "note": "n" * 2000,
        }
    )
    assert params == {
        "model.nodes.h:layers": "FC.v1",
        "note": "n" * 470 + "... (+1530 chars: config.json)",
    }
    assert len(params["note"]) == 500


def test_an_outbox_keeps_everything_when_nothing_answers(tmp_path):
    with socket.socket() as free:  # a port nothing listens on: the connection is refused
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    box = Outbox(f"http://127.0.0.1:{port}", run_name="r", retry_seconds=60)
    box.log_params({"lr": "0.1"})
    box.log_metric("loss", 0.5, step=1)
    assert box.flush() is False and box.failures == 1 and "Connection" in box.last_error
    assert box.flush() is False and box.failures == 1  # not again before retry_seconds
    again = Outbox.load(box.save(tmp_path / "p.json"))
    assert (again.params, [m[:2] for m in again.metrics]) == ({"lr": "0.1"}, [("loss", 0.5)])


def test_a_job_run_with_mlflow_gets_one_logger_unless_its_config_lists_one(tmp_path, monkeypatch):
    model = object()
    monkeypatch.setattr(hooks, "_selected", ["http://127.0.0.1:5000"])
    remember(model, JobContext(tmp_path, {"callbacks": []}, "train", "r"))
    try:
        [logger] = hooks.tensorweave_train_callbacks(model=model)
        assert isinstance(logger, MLflowLogger) and logger.tracking_uri == "http://127.0.0.1:5000"
        listed = {"callbacks": [{"@callbacks": "tensorweave-mlflow:MLflowLogger.v1"}]}
        remember(model, JobContext(tmp_path, listed, "train", "r"))
        assert hooks.tensorweave_train_callbacks(model=model) == []
    finally:
        forget(model)
    assert hooks.tensorweave_train_callbacks(model=model) == []  # not a job's model


def test_a_resumed_job_logs_on_to_its_mlflow_run(tmp_path):
    from tensorweave_mlflow.logger import previous_run
    from tensorweave_mlflow.outbox import record_run

    url = "http://127.0.0.1:5000"
    record_run(tmp_path, Outbox(url, run_id="abc", experiment_id="7"))
    assert previous_run(JobContext(tmp_path, {}, "resume"), url) == ("abc", "7")
    assert previous_run(JobContext(tmp_path, {}, "train"), url) is None  # a new run
    assert previous_run(JobContext(tmp_path, {}, "resume"), "http://elsewhere:5000") is None
