"""The tensorweave command: usage errors, broken pipes, the filter of TensorFlow's notices."""

from __future__ import annotations

import subprocess
import sys

from tensorweave.cli import main
from tensorweave.cli.quiet import noise


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
