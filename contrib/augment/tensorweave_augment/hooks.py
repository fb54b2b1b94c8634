"""This pack's hooks: the ``tensorweave augment-preview`` command, and the conformance kit's
checks of every augmenter (from this pack or any other).

Named in ``pyproject.toml`` (``tensorweave.plugins``) and imported to build every
``tensorweave`` command line, ``plugins`` included: light on purpose, no TensorFlow. The
command's work is in ``preview.py``, imported when it runs.

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> tensorweave_add_commands(sub)
>>> sorted(sub.choices)
['augment-preview']
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import tensorweave as tw

__all__ = ["tensorweave_add_commands", "tensorweave_conformance_checks"]


@tw.hookimpl
def tensorweave_add_commands(subparsers: Any) -> None:
    """Add ``augment-preview NAME [--option KEY=VALUE ...] [--seed N]``."""
    cmd = subparsers.add_parser(
        "augment-preview", help="apply an augmenter to a small batch and show what it does"
    )
    cmd.add_argument("name", help="a registered augmenter, e.g. AugmentJitter.v1")
    cmd.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the augmenter, as in a config (repeatable)",
    )
    cmd.add_argument("--seed", type=int, default=0, help="the generator's seed")
    cmd.set_defaults(func=_preview)


def _preview(args: argparse.Namespace) -> int:
    from tensorweave_augment.preview import run

    return run(args.name, args.option, seed=args.seed)


@tw.hookimpl
def tensorweave_conformance_checks(kind: str) -> dict[str, Callable[[Any], None]] | None:
    """What every augmenter must do, for ``ComponentCase(..., kind="augmenters")``."""
    if kind != "augmenters":
        return None
    from tensorweave_augment import checks

    return {
        "keeps_shape_and_dtype": checks.keeps_shape_and_dtype,
        "draws_from_the_generator": checks.draws_from_the_generator,
    }
