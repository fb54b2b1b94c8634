"""Text files streamed through tf.data: ``text_folder.v1`` and ``text_lines.v1``.

``text_folder.v1`` is Keras's ``text_dataset_from_directory``: one ``.txt`` file per
example, one subfolder per class (sorted class names, Keras's split for the same seed);
``x`` is the file's text (a string field, read in the graph), ``y`` its class id.

``text_lines.v1`` cuts large text files into windows for a language model, streamed: each
file is read line by line (``tf.data.TextLineDataset``), tokenized inside the graph by the
data pack's tokenizers (``tokenizer = "chars"``: each character's index in ``vocab``, as
``tokenize_chars.v1``; ``"words"``: whitespace-separated words, the ``vocab_size`` most
frequent words of a sample, 0 for any other) and cut into windows of ``seq_len + 1`` tokens
every ``strides`` (windows never cross files); ``x`` is a window's first ``seq_len`` tokens,
``y`` the same shifted one ahead (``shift_targets.v1``). Windows are held out for validation
in blocks of 64 consecutive windows by a seeded hash (``validation_split``), or are the
windows of the ``valid`` files.

>>> import tempfile, pathlib
>>> f = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
>>> _ = f.write_text("abcabc\\nabc\\n")
>>> d = text_lines(f, seq_len=4, strides=2, vocab="\\nabc", validation_split=0.0)
>>> [w.tolist() for w in next(d.train.batches(["x", "y"], batch_size=1))[0].numpy()]
[[1, 2, 3, 1]]
>>> len(d.train), d.info["vocab_size"]
(4, 4)
"""

from __future__ import annotations

import collections
import itertools
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_data.datasets import VOCAB, DataSplits
from tensorweave_data.files.errors import FileDataError, check_choice
from tensorweave_data.files.image_folder import keras_split, scan_folder
from tensorweave_data.files.paths import expand_paths
from tensorweave_data.files.sources import file_dataset, held_out
from tensorweave_data.files.streaming import Stream
from tensorweave_data.graph_forms import with_steps

__all__ = ["text_folder", "text_lines", "TOKENIZERS"]

TOKENIZERS = ("chars", "words")
_BLOCK = 64  # consecutive windows held out together


def text_folder(
    directory: str | os.PathLike[str],
    labels: str | None = "inferred",
    validation_split: float = 0.2,
    seed: int = 0,
    max_length: int | None = None,
    rename: Mapping[str, str] | None = None,
    cache: str | None = None,
    steps: Sequence[Mapping[str, Any]] = (),
) -> DataSplits:
    """Text files of class subfolders, streamed: ``x`` the text (string), ``y`` the class
    id (int64) or one-hot (``labels = "categorical"``).

    Args:
        directory: the folder, one subfolder of ``.txt`` files per class.
        labels: ``"inferred"``/``"int"``, ``"categorical"`` or ``None``/``"none"``.
        validation_split: the share of files held out (Keras's split for the same seed).
        seed: the split's seed.
        max_length: keep only the first ``max_length`` characters of each text.
        rename: fields renamed, e.g. ``{x = "text"}``.
        cache: ``"memory"`` or a file path: keep the texts after the first epoch.
        steps: processing steps run in the tf.data graph (``docs/data.md``).
    """
    name = "text_folder.v1"
    labels = None if labels in (None, "none") else labels
    check_choice(name, "labels", labels, ("inferred", "int", "categorical", None))
    if not 0.0 <= float(validation_split) < 1.0:
        raise tw.ArgumentError(
            f"{name}: validation_split must be in [0, 1), got {validation_split!r}."
        )
    root = os.fspath(directory)
    paths, ids, class_names, _ = scan_folder(
        root, labels, formats=(".txt",), what="text files", name=name, check=False
    )
    n_classes = len(class_names)
    fields = {"x": "x", "y": "y", **dict(rename or {})}
    train_rows, valid_rows = keras_split(len(paths), float(validation_split), seed)
    all_paths = np.asarray(paths, dtype=object)

    def example(path: tf.Tensor, label: tf.Tensor) -> dict[str, tf.Tensor]:
        text = tf.io.read_file(path)
        if max_length is not None:
            text = tf.strings.substr(text, 0, int(max_length), unit="UTF8_CHAR")
        out = {fields["x"]: text}
        if labels == "categorical":
            out[fields["y"]] = tf.one_hot(label, n_classes, dtype=tf.float32)
        elif labels is not None:
            out[fields["y"]] = label
        return out

    def stream(split: str, rows: np.ndarray) -> Stream:
        split_paths, split_ids = all_paths[rows].astype(str), ids[rows]

        def examples(order: int | None) -> tf.data.Dataset:
            p, y = split_paths, split_ids
            if order is not None:
                perm = np.random.default_rng(order).permutation(len(p))
                p, y = p[perm], y[perm]
            ds = tf.data.Dataset.from_tensor_slices(
                (
                    tf.constant(p, tf.string, shape=[len(p)]),
                    tf.constant(y, tf.int64, shape=[len(y)]),
                )
            )
            return ds  # (path, label) records: the stream decodes them (decode=example)

        return Stream(
            f"{name} {split}",
            examples,
            length=len(rows),
            cache=cache,
            files=split_paths.tolist(),
            subset=lambda idx: stream(split, rows[np.asarray(idx, dtype=np.int64)]),
            decode=example,
        )

    info: dict[str, Any] = {"directory": root, "files": len(paths)}
    post: list[dict[str, Any]] = []
    if labels is not None:
        info.update(class_names=list(class_names), n_classes=n_classes)
        post = [{"@processors": "argmax.v1"}, {"@processors": "labels.v1", "names": class_names}]
    data = DataSplits(
        train=stream("train", train_rows),  # type: ignore[arg-type]  # a Stream for arrays
        valid=stream("valid", valid_rows),  # type: ignore[arg-type]
        info=info,
        postprocess=post,
    )
    return with_steps(data, steps, "text_folder.v1")


def _word_vocab(files: Sequence[str], size: int, sample_bytes: int) -> list[str]:
    """``[""]`` (id 0: any other word) and the ``size - 1`` most frequent words of the first
    ``sample_bytes`` of ``files``."""
    counts: collections.Counter[str] = collections.Counter()
    left = sample_bytes
    for path in files:
        if left <= 0:
            break
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(left)
        left -= len(text)
        counts.update(text.split())
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ["", *(w for w, _ in itertools.islice(ranked, max(size - 1, 0)))]


def text_lines(
    paths: str | os.PathLike[str] | Sequence[Any],
    seq_len: int = 64,
    strides: int | None = None,
    tokenizer: str = "chars",
    vocab: str | Sequence[str] | None = None,
    vocab_size: int = 10_000,
    validation_split: float = 0.1,
    valid: str | os.PathLike[str] | Sequence[Any] | None = None,
    seed: int = 0,
    shuffle_buffer: int = 10_000,
    sample_bytes: int = 1 << 20,
    cache: str | None = None,
    steps: Sequence[Mapping[str, Any]] = (),
) -> DataSplits:
    """Windows of tokens of large text files, streamed: ``x`` and ``y`` int32
    ``[seq_len]``, ``y`` one token ahead of ``x``.

    Args:
        paths: the text files: a file, a folder, a glob or a list of these.
        seq_len: tokens per window.
        strides: tokens between window starts (default ``seq_len``: no overlap).
        tokenizer: ``"chars"`` or ``"words"``.
        vocab: the characters (a string; default ``stdlib_chars.v1``'s, id 0 for any other)
            or the words (a list; id 0 for any other; default: built from a sample).
        vocab_size: the words kept when the vocabulary is built (id 0 included).
        validation_split: the share of windows held out (in blocks, by a seeded hash).
        valid: validation files instead.
        seed: the hash's seed.
        shuffle_buffer: windows shuffled together when training (seeded per epoch).
        sample_bytes: how much text the word vocabulary is built from.
        cache: ``"memory"`` or a file path: keep the windows after the first epoch.
        steps: processing steps run in the tf.data graph (``docs/data.md``).
    """
    name = "text_lines.v1"
    check_choice(name, "tokenizer", tokenizer, TOKENIZERS)
    if not 0.0 <= float(validation_split) < 1.0:
        raise tw.ArgumentError(
            f"{name}: validation_split must be in [0, 1), got {validation_split!r}."
        )
    tw.positive_int(seq_len, "seq_len", name)
    step = int(strides or seq_len)
    size = int(seq_len) + 1
    files = expand_paths(name, paths)
    valid_files = expand_paths(name, valid) if valid is not None else []
    if not any(os.path.getsize(f) for f in files):
        raise FileDataError(f"{name}: {files[0]!r} and the others are empty. Fix: give text files.")
    if tokenizer == "chars":
        chars = VOCAB if vocab is None else str(vocab) if isinstance(vocab, str) else "".join(vocab)
        keys = tf.constant([ord(c) for c in chars], tf.int32)
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(keys, tf.range(len(chars), dtype=tf.int32)), 0
        )
        words: list[str] = []
        n_vocab = len(chars)

        def tokenize(line: tf.Tensor) -> tf.Tensor:
            codes = tf.strings.unicode_decode(line + "\n", "UTF-8", errors="replace")
            return table.lookup(codes)

    else:
        words = list(vocab) if vocab is not None else _word_vocab(files, vocab_size, sample_bytes)
        if isinstance(vocab, str):
            raise tw.ArgumentError(f"{name}: tokenizer = 'words' takes vocab as a list of words.")
        table_w = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant(words, tf.string), tf.range(len(words), dtype=tf.int32)
            ),
            0,
        )
        n_vocab = len(words)

        def tokenize(line: tf.Tensor) -> tf.Tensor:
            return table_w.lookup(tf.strings.split(line))

    def windows(path: tf.Tensor) -> tf.data.Dataset:
        tokens = tf.data.TextLineDataset(path).map(tokenize).unbatch()
        cut = tokens.window(size, shift=step, drop_remainder=True).flat_map(
            lambda w: w.batch(size, drop_remainder=True)
        )
        return cut.enumerate().map(lambda i, w: (path, i, w))

    def in_valid(path: tf.Tensor, i: tf.Tensor) -> tf.Tensor:
        return held_out(path, i // _BLOCK, seed=seed, validation_split=validation_split)

    def stream(split: str, split_files: list[str], keep: str | None) -> Stream:
        def examples(order: int | None) -> tf.data.Dataset:
            ds = file_dataset(split_files, order, windows)
            if keep is not None:
                ds = ds.filter(lambda p, i, w: in_valid(p, i) == (keep == "valid"))
            return ds.map(lambda p, i, w: {"x": w[:-1], "y": w[1:]})

        return Stream(
            f"{name} {split}",
            examples,
            shuffle_buffer=shuffle_buffer,
            cache=cache,
            files=split_files,
            length=0 if not split_files else None,
            subset=lambda idx: stream(split, [split_files[j] for j in idx], keep),
        )

    if valid_files:
        train, valid_stream = stream("train", files, None), stream("valid", valid_files, None)
    elif validation_split:
        train, valid_stream = stream("train", files, "train"), stream("valid", files, "valid")
    else:
        train, valid_stream = stream("train", files, None), stream("valid", [], None)
    info: dict[str, Any] = {
        "files": len(files),
        "seq_len": int(seq_len),
        "strides": step,
        "tokenizer": tokenizer,
        "vocab_size": n_vocab,
        "n_classes": n_vocab,
    }
    pre: list[dict[str, Any]]
    post: list[dict[str, Any]]
    if tokenizer == "chars":
        info["vocab"] = chars
        pre = [{"@processors": "tokenize_chars.v1", "vocab": chars}]
        post = [
            {"@processors": "argmax.v1"},
            {"@processors": "detokenize_chars.v1", "vocab": chars},
        ]
    else:
        info["vocab"] = words
        pre = []
        post = [{"@processors": "argmax.v1"}, {"@processors": "labels.v1", "names": words}]
    data = DataSplits(
        train=train,  # type: ignore[arg-type]  # a Stream stands for arrays
        valid=valid_stream,  # type: ignore[arg-type]
        info=info,
        preprocess=pre,
        postprocess=post,
    )
    return with_steps(data, steps, "text_lines.v1")
