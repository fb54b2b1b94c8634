"""What a sweep searches and where: ``--param PATH=DIST`` parsed, and the ``SweepSpec``.

- ``uniform(LO,HI)``, ``uniform(LO,HI,STEP)``, ``loguniform(LO,HI)``: floats;
- ``int(LO,HI)``, ``int(LO,HI,STEP)``, ``logint(LO,HI)``: integers;
- ``choice(A,B,...)``: one of the values (typed as command-line overrides are).

A spec's study name is made from the command (config, params, overrides, metric), so the
same command on another machine with the same store URL joins the same study.

>>> p = parse_param("optimizer.learning_rate=loguniform(1e-4,1e-1)")
>>> p.path, p.kind, p.args
('optimizer.learning_rate', 'loguniform', (0.0001, 0.1))
>>> parse_param("model.nodes.h1.activation=choice(relu,tanh)").args
('relu', 'tanh')
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import tensorweave as tw

__all__ = ["KINDS", "SweepError", "SearchParam", "parse_param", "SweepSpec"]

KINDS = ("uniform", "loguniform", "int", "logint", "choice")


class SweepError(tw.TensorweaveError):
    """A sweep cannot start or continue (bad ``--param``, unknown study...)."""


@dataclass(frozen=True)
class SearchParam:
    """One searched config value: ``path`` (dotted), a distribution ``kind`` and its args."""

    path: str
    kind: str
    args: tuple[Any, ...]

    def suggest(self, trial: Any) -> Any:
        """The trial's value for this parameter (Optuna's ``suggest_*``)."""
        a = self.args
        if self.kind in ("uniform", "loguniform"):
            step = a[2] if len(a) > 2 else None
            return trial.suggest_float(
                self.path, a[0], a[1], log=self.kind == "loguniform", step=step
            )
        if self.kind in ("int", "logint"):
            step = int(a[2]) if len(a) > 2 else 1
            return trial.suggest_int(
                self.path, int(a[0]), int(a[1]), log=self.kind == "logint", step=step
            )
        return trial.suggest_categorical(self.path, list(a))

    def __str__(self) -> str:
        return f"{self.path}={self.kind}({','.join(str(x) for x in self.args)})"


def _split_args(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_param(text: str) -> SearchParam:
    """``PATH=KIND(ARGS)`` as a ``SearchParam``; ``SweepError`` saying how to write it."""
    import tensorweave.config as twc

    usage = (
        "write --param PATH=DIST, DIST one of uniform(LO,HI[,STEP]), loguniform(LO,HI), "
        "int(LO,HI[,STEP]), logint(LO,HI), choice(A,B,...); e.g. "
        "--param optimizer.learning_rate=loguniform(1e-4,1e-1)"
    )
    path, sep, dist = text.partition("=")
    path = path.strip().removeprefix("--")
    dist = dist.strip()
    if not sep or not path or not dist.endswith(")") or "(" not in dist:
        raise SweepError(f"cannot read --param {text!r}: {usage}")
    kind, _, inner = dist[:-1].partition("(")
    kind = kind.strip().lower()
    if kind == "categorical":
        kind = "choice"
    if kind not in KINDS:
        raise SweepError(f"--param {text!r}: unknown distribution {kind!r}; {usage}")
    args = tuple(twc.parse_value(a) for a in _split_args(inner))
    if kind == "choice":
        if not args:
            raise SweepError(f"--param {text!r}: choice() needs at least one value")
        return SearchParam(path, kind, args)
    if len(args) not in (2, 3) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in args
    ):
        raise SweepError(f"--param {text!r}: {kind} takes numbers LO,HI[,STEP]; {usage}")
    lo, hi = args[0], args[1]
    if not lo < hi:
        raise SweepError(f"--param {text!r}: LO must be below HI (got {lo} and {hi})")
    if kind.startswith("log") and lo <= 0:
        raise SweepError(f"--param {text!r}: {kind} needs LO > 0 (got {lo})")
    if kind.startswith("log") and len(args) == 3:
        raise SweepError(f"--param {text!r}: {kind} takes no STEP")
    if kind in ("int", "logint"):
        args = tuple(int(v) for v in args)
    else:
        args = tuple(float(v) for v in args)
    return SearchParam(path, kind, args)


@dataclass
class SweepSpec:
    """Everything a worker needs: what to train, what to search, where to store."""

    config: str | None
    params: list[str]
    trials: int = 20
    workers: int = 1
    overrides: list[str] = field(default_factory=list)
    metric: str | None = None
    direction: str | None = None
    study: str | None = None
    store: str | None = None
    runs_root: str | None = None  # default: the store's (TENSORWEAVE_RUNS, else runs)
    heartbeat: float = 5.0
    max_retry: int = 2
    pruner: str = "median"

    def search(self) -> list[SearchParam]:
        """The parsed ``params``."""
        return [parse_param(p) for p in self.params]

    def url(self) -> str:
        """The store's database URL (``--store``, ``TENSORWEAVE_STORE``, or the default)."""
        if self.store:
            return self.store
        from tensorweave_store.urls import default_url

        return str(default_url(runs_root=self.runs_root))

    def root(self) -> Path:
        """Where trial runs go: ``ROOT/sweeps/STUDY/trial-NNNN``."""
        from tensorweave_store.urls import runs_root

        return Path(self.runs_root) if self.runs_root else runs_root()

    def study_name(self) -> str:
        """``--study``, or ``sweep-CONFIG-HASH`` from the command (the same on every machine)."""
        if self.study:
            return self.study
        stem = Path(self.config).stem if self.config else "digits"
        key = json.dumps(
            [self.config, sorted(self.params), list(self.overrides), self.metric],
            sort_keys=True,
        )
        return f"sweep-{stem}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> SweepSpec:
        return cls(**json.loads(text))
