"""docs/performance.md's Python examples run as written, in one session."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "performance.md"


def test_performance_doc_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 2, "docs/performance.md lost (or gained) examples"
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    model = namespace["model"]
    assert model.steps_per_execution == "auto"  # type: ignore[attr-defined]
    step = namespace["my_step"]
    graph = step.get_concrete_function(  # type: ignore[attr-defined]
        namespace["tf"].TensorSpec([None, 4])  # type: ignore[attr-defined]
    ).graph
    assert not {op.type for op in graph.get_operations()} & {"PartitionedCall"}
