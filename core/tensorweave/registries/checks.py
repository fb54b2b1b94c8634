"""Running a kind's checks on a component: every problem collected, a broken check contained.

A check returns a problem (a string) when an object is not a valid component of its kind,
``None`` when it is. A check that raises is the bug of the pack that declared it, not of
the component: it is skipped with a warning naming that pack.

>>> run_checks("doc_kind", "Thing.v1", 3, [("my-pack 1.0", lambda o: "not callable")])
'not callable (check of my-pack 1.0)'
>>> run_checks("doc_kind", "Thing.v1", abs, [("my-pack 1.0", lambda o: None)]) is None
True
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["Validator", "run_checks"]

Validator = Callable[[Any], "str | None"]


def run_checks(
    kind: str, name: str, obj: Any, checks: Sequence[tuple[str, Validator]]
) -> str | None:
    """Every problem ``checks`` (``(declared by, check)`` pairs) find in ``obj``, joined."""
    problems = []
    for label, check in checks:
        try:
            problem = check(obj)
        except KeyboardInterrupt:
            raise
        except BaseException as err:  # a broken check is its pack's bug, not the component's
            warnings.warn(
                f"the {kind} check declared by {label or 'this registry'} raised "
                f"{type(err).__name__}: {err} while checking {name!r}; the check was "
                f"skipped. Fix: report it to {label or 'its author'}, or block it with "
                f"TENSORWEAVE_BLOCK.",
                RuntimeWarning,
                stacklevel=5,
            )
            continue
        if problem:
            problems.append(f"{problem} (check of {label})" if label else problem)
    return "; ".join(problems) if problems else None
