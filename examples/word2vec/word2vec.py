"""Word2vec (Mikolov et al., 2013): skip-gram with noise-contrastive estimation on the
words of Python's standard-library source (its docstrings, comments and identifiers split
at every non-letter; read from the installed Python: no download). Each word predicts the
words up to ``WINDOW`` positions either side; ``nce.v1`` scores the true context word
against ``NEGATIVES`` sampled ones. Judged on held-out text (every tenth block of 1,000 words,
never trained on): the NCE loss, how often a true (word, context) pair outscores the word with a
random word of the same frequencies (0.5 is chance), and the nearest neighbours of a few
words by cosine.
Run it: ``python examples/word2vec/word2vec.py``.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_data import corpus

MODULES = (
    "textwrap", "argparse", "calendar", "csv", "difflib", "heapq", "json.decoder",
    "json.encoder", "pathlib", "pprint", "queue", "shutil", "string", "tarfile",
    "tempfile", "threading", "typing", "zipfile", "dataclasses", "configparser",
)  # fmt: skip
VOCAB, WINDOW, NEGATIVES, DIM, SUBSAMPLE = 2000, 3, 16, 64, 1e-3
PROBES = ("true", "read", "list", "thread", "error", "file")


def skip_gram_data(
    limit: int | None = None, subsample: float | None = SUBSAMPLE, seed: int = 0
) -> dict[str, Any]:
    """Words of ``MODULES`` (the first ``limit``), the ``VOCAB`` most frequent as ids by
    rank (0 = most frequent, as NCE's log-uniform sampler assumes; rarer words dropped), and
    (word, context) pairs within ``WINDOW``: ``valid`` from every tenth block of 1,000 words,
    ``train`` from the others, its frequent words subsampled (Mikolov's ``subsample``)."""
    words = re.findall(r"[a-z]{2,}", corpus(list(MODULES)).lower())[:limit]
    vocab = [w for w, _ in Counter(words).most_common(VOCAB)]
    index = {w: i for i, w in enumerate(vocab)}
    ids = np.array([index[w] for w in words if w in index], dtype="int64")
    held_out = (np.arange(len(ids)) // 1000) % 10 == 9
    train = ids[~held_out]
    if subsample:
        ratio = subsample / (np.bincount(train, minlength=len(vocab)) / len(train))[train]
        train = train[np.random.default_rng(seed).random(len(train)) < np.sqrt(ratio) + ratio]

    def pairs(stream: np.ndarray) -> dict[str, np.ndarray]:
        shifts = [s for s in range(-WINDOW, WINDOW + 1) if s]
        centre = np.concatenate([stream[max(0, -s) : len(stream) - max(0, s)] for s in shifts])
        context = np.concatenate([stream[max(0, s) : len(stream) - max(0, -s)] for s in shifts])
        return {"words": centre, "context": context[:, None]}

    return {"train": pairs(train), "valid": pairs(ids[held_out]), "vocab": vocab}


def pair_auc(
    table: np.ndarray, out_w: np.ndarray, out_b: np.ndarray, data: dict[str, Any]
) -> float:
    """How often a held-out (word, context) pair outscores the same word with another word
    drawn from the held-out text's words (so of the same frequencies): 0.5 is chance, and
    what word frequency alone gives. The score is the model's logit ``e_word . w_c + b_c``."""
    rng = np.random.default_rng(0)
    n = min(20_000, len(data["valid"]["words"]))
    pick, other = (rng.choice(len(data["valid"]["words"]), n, replace=False) for _ in range(2))
    words, contexts = data["valid"]["words"][pick], data["valid"]["context"][:, 0]
    true = (table[words] * out_w[contexts[pick]]).sum(axis=1) + out_b[contexts[pick]]
    random = (table[words] * out_w[contexts[other]]).sum(axis=1) + out_b[contexts[other]]
    return float((true > random).mean() + 0.5 * (true == random).mean())


def neighbours(
    table: np.ndarray, vocab: list[str], probes: tuple[str, ...] = PROBES, k: int = 5
) -> dict[str, list[str]]:
    """The ``k`` nearest words of each probe (in the vocabulary) by cosine similarity."""
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    found = {}
    for word in (p for p in probes if p in vocab):
        similarity = unit @ unit[vocab.index(word)]
        found[word] = [vocab[i] for i in np.argsort(-similarity)[1 : k + 1]]
    return found


def main(
    epochs: int = 6, batch_size: int = 512, limit: int | None = None, **data_options: Any
) -> dict[str, Any]:
    """Train; returns the held-out figures (NCE loss, pair AUC), the neighbours, the time."""
    start = time.perf_counter()
    tf.random.set_seed(0)
    data = skip_gram_data(limit, **data_options)
    vocab = len(data["vocab"])
    words = tw.Input(shape=(), dtype="int64", name="words")
    context = tw.Input(shape=(1,), dtype="int64", name="context")
    embedded = tw.layers["Lookup.v1"](words, vocab, DIM)
    out_w = tf.Variable(tf.zeros([vocab, DIM]), name="nce_w")
    out_b = tf.Variable(tf.zeros([vocab]), name="nce_b")
    loss = tw.losses["nce.v1"](
        context, embedded, weights=out_w, biases=out_b, num_sampled=NEGATIVES, num_classes=vocab
    )
    model = twt.Model(words, embedded, targets=context, loss=loss, optimizer=twt.Adam(0.02))
    model.train(data["train"], epochs=epochs, batch_size=batch_size, verbose=0)
    figures = model.evaluate(data["valid"], batch_size=4096)
    table = embedded.state.embeddings.numpy()
    return {
        "valid_nce_loss": figures["loss"],
        "valid_pair_auc": pair_auc(table, out_w.numpy(), out_b.numpy(), data),
        "neighbours": neighbours(table, data["vocab"]),
        "train_pairs": len(data["train"]["words"]),
        "seconds": time.perf_counter() - start,
    }


if __name__ == "__main__":
    result = main()
    for word, near in result.pop("neighbours").items():
        print(f"{word:>8}: {', '.join(near)}")
    print(result)
