"""The deploy pack imports light: no converter or server loads until an export or a server runs."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_pack_and_its_commands_loads_no_converter_or_server() -> None:
    code = (
        "import sys, tensorweave_deploy, tensorweave_deploy.commands\n"
        "heavy = {'tf2onnx', 'onnxruntime', 'uvicorn', 'starlette', 'tensorflow'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
