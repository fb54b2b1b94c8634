"""``tensorweave runs tensorboard``: the real command serves TensorBoard over a recorded run,
and a real browser finds the run's hparams on the HParams page and its profile on the
Profile page."""

from __future__ import annotations

import signal
import socket
import subprocess
import time

import pytest
from twstore_helpers import SWEEP_TINY, store_env, tensorweave

from tensorweave.testing.browser import check_not_blank, open_browser, wait_for_text

PROFILED = """
callbacks = [{ "@callbacks" = "TensorBoard.v1", log_dir = "profiled", profile_batch = [2, 3] }]
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def served_url(proc: subprocess.Popen, timeout: float = 120) -> tuple[str, str]:
    """The URL the command prints once it serves, and what it printed before."""
    deadline = time.monotonic() + timeout
    before = ""
    while time.monotonic() < deadline and proc.poll() is None:
        line = proc.stdout.readline()
        if " at http://" in line:
            return line.split(" at ", 1)[1].strip(), before
        before += line
    pytest.fail(f"no URL printed: {before!r} {proc.communicate(timeout=10)}")


@pytest.mark.slow
def test_runs_tensorboard_shows_hparams_and_profile_in_a_browser(tmp_path):
    import tensorweave_train as twt

    url = f"sqlite:///{tmp_path}/store.db"
    env = {**store_env(url, tmp_path), "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    config = tmp_path / "profiled.toml"
    config.write_text(PROFILED + twt.config_path("digits").read_text())
    trained = tensorweave(
        [
            "train",
            str(config),
            "--quiet",
            "--run.name=boarded",
            "--data.limit=200",
            "--train.epochs=2",
            "--train.batch_size=64",
            "--dims.hidden=12",
            f"--run-dir={tmp_path / 'boarded'}",
        ],
        env,
        tmp_path,
    )
    assert trained.wait(timeout=300) == 0, trained.communicate()
    port = free_port()
    proc = tensorweave(["runs", "tensorboard", "boarded", "--port", str(port)], env, tmp_path)
    try:
        page, _ = served_url(proc)
        assert page == f"http://127.0.0.1:{port}/"
        with open_browser() as browser:
            browser.get(page + "#hparams")
            wait_for_text(browser, "Trial ID", timeout=90)
            wait_for_text(browser, "boarded", timeout=30)  # the trial: the run's name
            seen = wait_for_text(browser, "200.00", timeout=30)  # its data.limit in the table
            assert "dims.hidden" in seen and "optimizer.learning_rate" in seen  # all its hparams
            assert "@versions" not in seen and "@provider" not in seen
            check_not_blank(browser, tmp_path / "hparams.png")
            browser.get(page + "#profile")  # XProf's page lives in a frame
            frame = None
            deadline = time.monotonic() + 60
            while frame is None and time.monotonic() < deadline:
                frames = browser.find_elements("tag name", "iframe")
                frame = frames[0] if frames else time.sleep(0.5)
            assert frame is not None, "the Profile page shows no XProf frame"
            browser.switch_to.frame(frame)
            wait_for_text(browser, "Performance Summary", timeout=90)
            assert "Sessions (1)" in wait_for_text(browser, "Sessions", timeout=10)
            sessions = browser.find_element("tag name", "body").text
            assert "boarded/profiled/" in sessions
            browser.switch_to.default_content()
            check_not_blank(browser, tmp_path / "profile.png")
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "stopped TensorBoard" in out
    assert not list((tmp_path / "tmp").glob("tensorweave-board-*"))  # its links are gone
    assert (tmp_path / "boarded" / "profiled").is_dir()  # the run is untouched


def test_runs_tensorboard_refuses_a_run_without_logs(tmp_path):
    run = tmp_path / "quiet-run"
    run.mkdir()
    (run / "config.json").write_text("{}")
    proc = tensorweave(["runs", "tensorboard", str(run)], store_env(None, tmp_path), tmp_path)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert "has no TensorBoard logs" in err and "Fix:" in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_sweep_dashboard_shows_the_trials_and_their_runs_in_a_browser(tmp_path):
    import optuna

    url = f"sqlite:///{tmp_path}/store.db"
    env = store_env(url, tmp_path)
    swept = tensorweave(
        [
            "sweep",
            "digits",
            "--param",
            "dims.hidden=choice(8,16)",
            "--trials",
            "2",
            "--study",
            "tiny",
            *SWEEP_TINY,
            "--train.epochs=1",
        ],
        env,
        tmp_path,
    )
    out, err = swept.communicate(timeout=400)
    assert swept.returncode == 0, err
    study = optuna.load_study(study_name="tiny", storage=url)
    trials = study.get_trials()
    assert [t.state.name for t in trials] == ["COMPLETE", "COMPLETE"]
    port = free_port()
    proc = tensorweave(["sweep", "dashboard", "--port", str(port)], env, tmp_path)
    try:
        page, before = served_url(proc)
        assert page == f"http://127.0.0.1:{port}/dashboard"
        assert "linked 2 trial(s) to their runs" in before
        with open_browser() as browser:
            browser.get(f"{page}/studies/{study._study_id}/trials")
            for trial in trials:
                if trial.number:
                    browser.find_element("xpath", f"//*[text()='Trial {trial.number}']").click()
                seen = wait_for_text(
                    browser, f"tensorweave run: tiny-trial-{trial.number}", timeout=60
                )
                assert f"Trial {trial.number} (trial_id=" in seen
                value = seen.split("\nValue\n", 1)[1].split("\n", 1)[0]
                assert float(value) == pytest.approx(trial.value, abs=1e-6)  # its value
                assert trial.user_attrs["run_dir"] in seen  # the run's directory
            check_not_blank(browser, tmp_path / "dashboard.png")
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "stopped optuna-dashboard" in out
    from tensorweave_store.cli.boards import link_trials

    assert link_trials(url, lambda t: None) == 0  # linked once: the notes are in the database
