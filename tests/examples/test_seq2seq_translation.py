"""The gallery's seq2seq with attention (examples/seq2seq_translation): one epoch on 128
dates, then greedy decoding of the held-out ones."""

from __future__ import annotations

import math

from tests.examples.gallery import script


def test_seq2seq_translation_script_trains_and_decodes_greedily() -> None:
    # 142 dates: 128 to train, two whole batches of 64 (no partial batch to compile again)
    figures = script("seq2seq_translation/seq2seq_translation.py").main(epochs=1, n_samples=142)
    assert math.isfinite(figures["loss"]) and figures["loss"] > 0.0
    assert 0.0 <= figures["teacher_forced"] <= 1.0
    assert 0.0 <= figures["greedy_exact_match"] <= 1.0
    assert len(figures["examples"]) == 3 and all(" -> " in e for e in figures["examples"])
