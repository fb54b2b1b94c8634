"""Where a streamed epoch stands: the order of an epoch, the input position a checkpoint
saves, and the check that a resumed run reads the data as the interrupted one did.

A position is a plain dict (it goes into the checkpoint as JSON); ``Stream.position`` and
``Stream.check_position`` (``files.streaming``) are these functions applied to a stream.

>>> p = input_position("n", 0, 3, batch_size=2, shuffle=False, seed=0, files=1, skip="examples")
>>> p["examples"], p["order"]
(6, None)
>>> check_position("n", p, p)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tensorweave_data.files.errors import FileDataError

__all__ = ["epoch_seed", "input_position", "check_position"]


def epoch_seed(seed: int, epoch: int) -> int:
    """The seed of one epoch's order: depends only on ``(seed, epoch)``.

    >>> epoch_seed(0, 1) == epoch_seed(0, 1) != epoch_seed(0, 2)
    True
    """
    return int(np.random.default_rng([int(seed), int(epoch)]).integers(0, 2**31 - 1))


def input_position(
    name: str,
    epoch: int,
    batches: int,
    *,
    batch_size: int,
    shuffle: bool,
    seed: int,
    files: int,
    skip: str,
) -> dict[str, Any]:
    """The position of the stream ``name`` after ``batches`` batches of ``batch_size`` into
    ``epoch``; ``files`` is how many files it reads, ``skip`` whether a resume skips
    ``"records"`` (before decoding) or ``"examples"``."""
    return {
        "stream": name,
        "epoch": int(epoch),
        "batches": int(batches),
        "examples": int(batches) * int(batch_size),
        "batch_size": int(batch_size),
        "seed": int(seed),
        "order": epoch_seed(seed, epoch) if shuffle else None,
        "files": int(files),
        "skip": skip,
    }


def check_position(name: str, saved: Mapping[str, Any], now: Mapping[str, Any]) -> None:
    """Raise ``FileDataError`` when a checkpoint's input position ``saved`` does not fit
    the stream ``name`` read as ``now`` (``input_position``): another batch size, seed or
    set of files would resume at another example."""
    for key, what in (
        ("batch_size", "batch_size"),
        ("order", "seed (the epoch's order)"),
        ("files", "number of files"),
    ):
        if key in saved and saved[key] != now[key]:
            raise FileDataError(
                f"{name}: the checkpoint was saved reading {saved['examples']} "
                f"examples into epoch {saved['epoch'] + 1} with {what} {saved[key]!r}; "
                f"the data is now read with {now[key]!r}, so resuming would continue at "
                "another example. Fix: resume with the same data, batch_size and seed, "
                "or train anew."
            )
