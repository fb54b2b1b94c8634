"""``docs/training.md`` runs as written: several losses and optimizers, a frozen module,
a step of one's own, a GAN and a saved model loaded back."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "training.md"


def test_the_training_guide_runs_as_written():
    namespace: dict[str, object] = {}
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 4, "the guide lost its examples"
    for block in blocks:  # later blocks build on earlier ones, as a reader's session would
        exec(compile(block, str(DOC), "exec"), namespace)
    assert namespace["samples"].shape == (5, 2)  # type: ignore[attr-defined]
    assert int(namespace["gan"].optimizers["discriminator"].iterations) == 8  # type: ignore[attr-defined]
