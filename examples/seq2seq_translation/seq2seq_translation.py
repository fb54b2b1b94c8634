"""Sequence to sequence with attention (Luong et al., 2015) on a synthetic translation task:
the `models` pack's ``Seq2Seq.v1`` (LSTM encoder and decoder, dot-product attention over the
encoder's outputs) learns to rewrite dates written by people (``"nov 27, 2026"``,
``"27.11.2026"``…) as ISO 8601 (``"2026-11-27"``), from ``synthetic_translation.v1``.
Trained with teacher forcing through ``Model.train``; the figure is the exact match of whole
outputs that the model decodes greedily from its own predictions on held-out dates.
Run it: ``python examples/seq2seq_translation/seq2seq_translation.py [TASK]``.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_data.translation_tasks import END_ID, START_ID, ids_to_text
from tensorweave_models import greedy_decode


def main(task: str = "dates", epochs: int = 10, n_samples: int = 10000) -> dict[str, Any]:
    """Train; returns the validation figures (loss, teacher-forced and greedy exact match),
    a few decoded examples and the time."""
    start = time.perf_counter()
    tf.random.set_seed(0)
    data = tw.datasets["synthetic_translation.v1"](task=task, n_samples=n_samples, seed=0)
    info, valid = data.info, data.valid
    # any length: greedy decoding feeds the decoder one more character each step
    source = tw.Input(batch_shape=(None, None), dtype="int32", name="source")
    decoder_input = tw.Input(batch_shape=(None, None), dtype="int32", name="decoder_input")
    target = tw.Input(batch_shape=(None, None), dtype="int32", name="target")
    vocab = {"source_vocab_size": info["n_classes"], "target_vocab_size": info["n_classes"]}
    net = tw.models["Seq2Seq.v1"](source, decoder_input, **vocab, n_units=64)
    model = twt.Model(
        [source, decoder_input],
        net.output,
        targets=target,
        loss=tw.losses["sequence_cross_entropy.v1"](target, net.output),
        metrics={"teacher_forced": tw.metrics["sequence_exact_match.v1"](target, net.output)},
        optimizer=twt.Adam(5e-3),
    )
    model.train(data.train, epochs=epochs, batch_size=64, verbose=0)
    figures = model.evaluate(valid, batch_size=256)
    # the model writes each output from its own previous characters (no teacher)
    decoded = greedy_decode(
        net, valid["source"], start_id=START_ID, end_id=END_ID, max_length=info["target_length"]
    )
    greedy = tw.metrics["sequence_exact_match.v1"](valid["target"], decoded)
    figures["greedy_exact_match"] = round(float(greedy), 4)
    samples = zip(valid["source"][:3], decoded[:3], strict=True)
    figures["examples"] = [f"{ids_to_text(s)!r} -> {ids_to_text(d)!r}" for s, d in samples]
    return {**figures, "seconds": time.perf_counter() - start}


if __name__ == "__main__":
    print(main(*sys.argv[1:2]))
