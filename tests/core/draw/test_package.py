"""``tensorweave.draw``: the package of pictures and summaries beside ``tw.draw``, the function."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "first",
    [
        "import tensorweave.draw.summarize",
        "from tensorweave.draw import drawing",
        "import tensorweave.draw",
        "tw.summary",
    ],
)
def test_tw_draw_stays_the_function_whatever_is_imported_first(first):
    code = (
        f"import tensorweave as tw\n{first}\n"
        "from tensorweave.draw.drawing import draw\n"
        "from tensorweave.draw.summarize import summary\n"
        "assert tw.draw is draw and tw.summary is summary, (tw.draw, tw.summary)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
