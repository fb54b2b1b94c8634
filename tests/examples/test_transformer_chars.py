"""The gallery's character Transformer LM (examples/transformer_chars, the models pack's
built-in job ``transformer-chars``): one epoch on the first 6,000 characters of the corpus,
at a smaller width."""

from __future__ import annotations

from pathlib import Path

from tests.examples.gallery import train_tiny


def test_transformer_chars_job_trains_one_epoch(tmp_path: Path) -> None:
    summary = train_tiny(
        "transformer-chars",
        tmp_path / "run",
        "--data.limit=6000",
        "--model.nodes.lm.n_units=16",
        "--model.nodes.lm.n_layers=1",
    )
    assert 1.0 < summary["valid"]["perplexity"] < 1000.0  # 101 characters
