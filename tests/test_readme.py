"""The README's Python examples run as written (documentation that cannot drift)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2, "the README lost its examples"
    namespace: dict[str, object] = {}
    for block in blocks:  # later blocks build on earlier ones, as a reader's session would
        exec(compile(block, str(README), "exec"), namespace)
    assert namespace["f"].trace_count == 1  # type: ignore[attr-defined]
    history = namespace["history"]  # one dict of values per epoch
    assert history[-1]["loss"] < history[0]["loss"]  # type: ignore[index]
