"""``synthetic_translation.v1``: character "translation" tasks made from a seed, for
sequence-to-sequence models (an encoder reads the source, a decoder writes the target):

- ``reverse``: a string of lowercase letters, written backwards (``"abc"`` → ``"cba"``);
- ``sort``: a string of lowercase letters, its letters in alphabetical order;
- ``dates``: a date written in one of several human formats (``"27 november 2026"``,
  ``"nov 27, 2026"``, ``"27.11.2026"``…) → the same date in ISO 8601 (``"2026-11-27"``).

Everything is generated with numpy from ``seed`` (nothing downloads), with no example twice,
so the validation examples are never seen in training. One character vocabulary serves
both sides: id 0 pads, 1 starts the decoder's input, 2 ends the target, characters follow.
The fields, int32 and padded with 0 to fixed widths:

- ``source`` ``[source_length]``: the source characters;
- ``decoder_input`` ``[target_length]``: the start id, then the target characters (what a
  decoder trained with teacher forcing reads);
- ``target`` ``[target_length]``: the target characters, then the end id (what it writes).

>>> import tensorweave as tw
>>> from tensorweave_data.translation_tasks import ids_to_text
>>> d = tw.datasets["synthetic_translation.v1"](task="dates", n_samples=50, valid_fraction=0.2)
>>> d.train["source"].shape, d.train["target"].shape, d.valid["target"].shape
((40, 18), (40, 11), (10, 11))
>>> ids_to_text(d.train["source"][0]), ids_to_text(d.train["target"][0])
('sep 12, 2013', '2013-09-12')
>>> d.train["decoder_input"][0].tolist(), d.train["target"][0].tolist()  # start 1, end 2
([1, 5, 3, 4, 6, 42, 3, 12, 42, 4, 5], [5, 3, 4, 6, 42, 3, 12, 42, 4, 5, 2])
"""

from __future__ import annotations

import datetime
import string
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_data.datasets import DataSplits, split_indices

__all__ = [
    "synthetic_translation",
    "ids_to_text",
    "text_to_ids",
    "format_date",
    "TASKS",
    "VOCAB",
    "PAD_ID",
    "START_ID",
    "END_ID",
    "MONTHS",
    "DATE_FORMATS",
]

#: id 0 pads, 1 starts the decoder's input, 2 ends the target (ASCII's start- and end-of-text
#: characters stand for them), then every character a task writes.
VOCAB = "\x00\x02\x03" + string.digits + string.ascii_lowercase + " ,.-/"
PAD_ID, START_ID, END_ID = 0, 1, 2
TASKS = ("reverse", "sort", "dates")
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
#: the written forms of a date: ``{day}`` 1..31, ``{dd}``/``{mm}`` two digits, ``{month}``
#: the English name, ``{mon}`` its first three letters, ``{year}`` four digits.
DATE_FORMATS = (
    "{day} {month} {year}",
    "{month} {day}, {year}",
    "{mon} {day}, {year}",
    "{day} {mon} {year}",
    "{dd}.{mm}.{year}",
    "{dd}/{mm}/{year}",
)
_FIRST_DAY = datetime.date(1950, 1, 1).toordinal()
_N_DAYS = datetime.date(2050, 1, 1).toordinal() - _FIRST_DAY  # 1950-01-01 .. 2049-12-31
_INDEX = {c: i for i, c in enumerate(VOCAB)}


def format_date(date: datetime.date, form: str) -> str:
    """``date`` written in ``form`` (one of ``DATE_FORMATS``), in English whatever the
    locale.

    >>> import datetime
    >>> from tensorweave_data.translation_tasks import format_date
    >>> format_date(datetime.date(2026, 11, 27), "{mon} {day}, {year}")
    'nov 27, 2026'
    """
    month = MONTHS[date.month - 1]
    return form.format(
        day=date.day,
        dd=f"{date.day:02d}",
        mm=f"{date.month:02d}",
        month=month,
        mon=month[:3],
        year=f"{date.year:04d}",
    )


def text_to_ids(texts: Sequence[str], width: int) -> np.ndarray:
    """``[len(texts), width]`` int32 ids of ``texts`` in ``VOCAB``, padded with 0.

    >>> from tensorweave_data.translation_tasks import text_to_ids
    >>> text_to_ids(["ab", "c"], 3).tolist()
    [[13, 14, 0], [15, 0, 0]]
    """
    ids = np.zeros((len(texts), width), np.int32)
    for row, text in enumerate(texts):
        ids[row, : len(text)] = [_INDEX[c] for c in text]
    return ids


def ids_to_text(ids: Any) -> str:
    """The characters of one row of ids, up to the end id (padding and the start id left
    out): a source, a target or a model's decoded output back to text.

    >>> from tensorweave_data.translation_tasks import ids_to_text
    >>> ids_to_text([1, 12, 13, 2, 5, 0])
    '9a'
    """
    out = []
    for i in np.asarray(ids).ravel().tolist():
        if i == END_ID:
            break
        if i not in (PAD_ID, START_ID):
            out.append(VOCAB[i])
    return "".join(out)


#: draw(rng, n) -> n (source, target) pairs
Draw = Callable[[np.random.Generator, int], list[tuple[str, str]]]


def _letters(task: str, min_length: int, max_length: int) -> Draw:
    def draw(rng: np.random.Generator, n: int) -> list[tuple[str, str]]:
        lengths = rng.integers(min_length, max_length + 1, n)
        letters = rng.integers(0, 26, (n, max_length))
        pairs = []
        for row, length in zip(letters, lengths, strict=True):
            text = "".join(string.ascii_lowercase[k] for k in row[:length])
            pairs.append((text, text[::-1] if task == "reverse" else "".join(sorted(text))))
        return pairs

    return draw


def _dates(rng: np.random.Generator, n: int) -> list[tuple[str, str]]:
    days = rng.integers(0, _N_DAYS, n)
    forms = rng.integers(0, len(DATE_FORMATS), n)
    dates = [datetime.date.fromordinal(_FIRST_DAY + int(day)) for day in days]
    return [
        (format_date(date, DATE_FORMATS[form]), date.isoformat())
        for date, form in zip(dates, forms, strict=True)
    ]


def _distinct(draw: Draw, n: int, rng: np.random.Generator) -> list[tuple[str, str]]:
    """``n`` pairs with distinct sources, in the order drawn (repeats drawn again)."""
    seen: dict[str, str] = {}
    for _ in range(100):
        for source, target in draw(rng, n - len(seen)):
            seen.setdefault(source, target)
        if len(seen) >= n:
            return list(seen.items())[:n]
    raise tw.ArgumentError(
        f"synthetic_translation.v1: could not draw {n} distinct examples (got {len(seen)}). "
        "Fix: lower n_samples=, or raise max_length= for reverse and sort."
    )


def synthetic_translation(
    task: str = "dates",
    n_samples: int = 10000,
    min_length: int = 3,
    max_length: int = 10,
    valid_fraction: float = 0.1,
    seed: int = 0,
) -> DataSplits:
    """A seeded character translation task: ``source``, ``decoder_input`` (start id, then
    the target: teacher forcing) and ``target`` (the target, then the end id), int32 ids in
    ``VOCAB`` padded with 0.

    Args:
        task: ``"reverse"``, ``"sort"`` (strings of lowercase letters) or ``"dates"`` (a
            written date to ISO 8601).
        n_samples: the number of distinct examples, training and validation together.
        min_length, max_length: the lengths of the letter strings of ``reverse`` and
            ``sort`` (dates have their own: ``source_length`` 18, a target of 10).
        valid_fraction: the share of examples held out (a seeded random split).
        seed: the seed of the examples and of the split.
    """
    who = "synthetic_translation.v1"
    if task not in TASKS:
        raise tw.ArgumentError(
            f"{who}: task must be one of {list(TASKS)}, got {task!r}. Fix: 'reverse' or "
            "'sort' for letter strings, 'dates' for written dates to ISO 8601."
        )
    n_samples = tw.positive_int(n_samples, "n_samples", who)
    min_length = tw.positive_int(min_length, "min_length", who)
    max_length = tw.positive_int(max_length, "max_length", who)
    if min_length > max_length:
        raise tw.ArgumentError(
            f"{who}: min_length={min_length} is above max_length={max_length}. "
            "Fix: give min_length <= max_length."
        )
    if task == "dates":
        source_length = max(len(format_date(datetime.date(2000, 9, 30), f)) for f in DATE_FORMATS)
        draw: Draw = _dates
    else:
        source_length, draw = max_length, _letters(task, min_length, max_length)
    target_length = (10 if task == "dates" else max_length) + 1  # and the end id
    rng = np.random.default_rng(seed)
    sources, targets = zip(*_distinct(draw, n_samples, rng), strict=True)
    ids = text_to_ids(targets, target_length - 1)
    data = {
        "source": text_to_ids(sources, source_length),
        "decoder_input": np.concatenate([np.full((n_samples, 1), START_ID, np.int32), ids], 1),
        "target": text_to_ids(targets, target_length),
    }
    rows = np.arange(n_samples)
    data["target"][rows, [len(t) for t in targets]] = END_ID
    train, valid = split_indices(n_samples, valid_fraction, seed)
    return DataSplits(
        train={k: v[train] for k, v in data.items()},
        valid={k: v[valid] for k, v in data.items()},
        info={
            "task": task,
            "n_classes": len(VOCAB),
            "vocab": VOCAB,
            "pad_id": PAD_ID,
            "start_id": START_ID,
            "end_id": END_ID,
            "source_length": source_length,
            "target_length": target_length,
        },
    )
