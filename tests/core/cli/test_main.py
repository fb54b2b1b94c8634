"""The tensorweave command: usage errors, broken pipes, the filter of TensorFlow's notices,
broken hook modules named, ``python -m tensorweave``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tensorweave.cli import main
from tensorweave.cli.quiet import noise
from tensorweave.registries import CORE_VERSION


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    out = capsys.readouterr().out
    assert "plugins" in out and "describe" in out and "new-plugin" in out


def test_tensorflow_notices_are_noise_and_errors_are_not():
    assert noise("WARNING: All log messages before absl::InitializeLog() is called are written")
    assert noise("E0000 00:00 cuda_executor.cc] failed call to cuInit: UNKNOWN ERROR (303)")
    assert not noise("Traceback (most recent call last):")
    assert not noise("RuntimeError: out of memory")


def test_a_closed_pipe_ends_quietly():
    cmd = f"{sys.executable} -m tensorweave.cli plugins | head -1"
    done = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0
    assert done.stdout.startswith("distribution") and "Traceback" not in done.stderr


def test_a_hook_module_that_fails_at_import_is_named_on_the_command_line(fake_dists, capsys):
    from tests.fakes import BROKEN_SOURCE

    broken = fake_dists.add(
        "broken-commands",
        entry_points={"plugins": {"cmds": "hooks"}},
        modules={"hooks": BROKEN_SOURCE},
    )
    with pytest.raises(SystemExit):  # argparse: invalid choice
        main(["its-command"])
    err = capsys.readouterr().err
    assert f"warning: {broken.name}: its hook module failed to load" in err
    assert "this plugin is broken on purpose" in err and "invalid choice" in err


def test_python_dash_m_tensorweave_is_the_command():
    done = subprocess.run(
        [sys.executable, "-m", "tensorweave", "--version"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and done.stdout.strip() == f"tensorweave {CORE_VERSION}"
