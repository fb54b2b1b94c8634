"""Building a pack's wheel with ``build`` (from requirements-dev.txt), as a publisher does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def build_wheel(source: Path, outdir: Path, env: dict[str, str] | None = None) -> tuple[Path, str]:
    """Build ``source`` (a copy: building writes into it) into ``outdir``: the wheel's path
    and what the build printed.

    ``--no-isolation``: the build uses this environment's setuptools, nothing is downloaded.
    """
    before = set(outdir.glob("*.whl")) if outdir.exists() else set()
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(outdir),
            str(source),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-2000:]
    [wheel] = set(outdir.glob("*.whl")) - before
    return wheel, built.stdout + built.stderr
