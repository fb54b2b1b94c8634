"""``tensorweave serve``'s command line: what it refuses before any model loads, each with
its exit code and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorweave_deploy.commands import cmd_serve

import tensorweave as tw
from tensorweave.cli.command import run_guarded


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = run_guarded(cmd_serve, list(argv))
    return code, capsys.readouterr().err


def test_no_reference_and_bad_options_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(capsys)
    assert code == 2 and "give the RUN directory, MODEL@STAGE or export PATH" in err
    code, err = _run(capsys, "runs/a", "--max-batch", "0")
    assert code == 2 and "--max-batch must be >= 1" in err
    code, err = _run(capsys, "runs/a", "--format", "tflite")
    assert code == 2 and "invalid choice: 'tflite'" in err


def test_onnx_without_an_onnx_exporter_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        tw.resolve("exporters", "onnx")
        pytest.skip("an onnx exporter is installed: the message for a missing one cannot show")
    except tw.TensorweaveError:
        pass
    code, err = _run(capsys, str(tmp_path), "--format", "onnx")
    assert code == 2, err
    assert "no 'onnx' exporter is installed" in err
    assert "pip install 'tensorweave-deploy[onnx]'" in err and "--format savedmodel" in err


def test_binding_all_interfaces_warns_and_a_missing_run_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-run"
    code, err = _run(capsys, str(missing), "--host", "0.0.0.0")
    assert "warning: tensorweave serve binds 0.0.0.0" in err and "docs/security.md" in err
    assert code == 2 and f"{missing} does not exist" in err


def test_the_server_parses_http_in_c_where_httptools_is_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tensorweave_deploy.serving import server

    pytest.importorskip("httptools")
    assert server.http_protocol().endswith(":NoDelayHttpToolsProtocol")
    monkeypatch.setattr(server, "HttpToolsProtocol", None)
    assert server.http_protocol().endswith(":NoDelayH11Protocol")  # the pure-Python fallback
