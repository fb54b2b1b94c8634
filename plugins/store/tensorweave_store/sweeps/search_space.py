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

import difflib
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import tensorweave as tw

__all__ = ["KINDS", "SweepError", "SearchParam", "parse_param", "check_paths", "SweepSpec"]

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


def _missing(path: str, config: Any) -> str | None:
    """What is wrong with the dotted ``path`` in ``config`` (``None``: it is there)."""
    node, parts = config, path.split(".")
    done: list[str] = []
    for i, part in enumerate(parts):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            where = ".".join(done) or "the top level"
            if not isinstance(node, (Mapping, list)):
                return f"--param {path}: {where} is a value ({node!r}), not a section"
            keys = (
                [str(k) for k in node if not str(k).startswith("@")]
                if isinstance(node, Mapping)
                else [str(i) for i in range(len(node))]
            )
            kind = next((k for k in node if str(k).startswith("@") and k != "@provider"), None)
            what = f" ({node[kind]})" if isinstance(node, Mapping) and kind else ""
            text = f"--param {path}: the config has no {part!r} under {where}{what}"
            close = difflib.get_close_matches(part, keys, n=1, cutoff=0.6)
            if close:
                whole = ".".join([*done, close[0], *parts[i + 1 :]])
                near = whole if _missing(whole, config) is None else ".".join([*done, close[0]])
                return text + f"; did you mean {near}?"
            return text + (f"; there: {', '.join(keys)}" if keys else "")
        done.append(part)
    return None


def check_paths(search: Sequence[SearchParam], config: Mapping[str, Any]) -> None:
    """``SweepError`` naming every searched path that ``config`` (filled: the components'
    defaults count) lacks, with the closest path there.

    >>> cfg = {"optimizer": {"@optimizers": "Adam.v1", "learning_rate": 0.01}}
    >>> try:
    ...     check_paths([parse_param("optimizer.learnin_rate=uniform(0,1)")], cfg)
    ... except SweepError as err:
    ...     print(str(err).split("?")[0])
    --param optimizer.learnin_rate: the config has no 'learnin_rate' under optimizer \
(Adam.v1); did you mean optimizer.learning_rate
    """
    problems = [m for m in (_missing(p.path, config) for p in search) if m]
    if problems:
        raise SweepError(
            "\n".join(problems) + " Fix: search a path of the config (its components' "
            "parameters count, with their defaults); to search a value the config does not "
            "set, give it a starting value on the command line too (--PATH=VALUE)."
        )


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
    store_wait: float = 3600.0  # seconds a worker waits for a lost database

    def search(self) -> list[SearchParam]:
        """The parsed ``params``."""
        return [parse_param(p) for p in self.params]

    def url(self) -> str:
        """The store's database URL (``--store``, ``TENSORWEAVE_STORE``, or the default)."""
        if self.store:
            return self.store
        from tensorweave_store.db.urls import default_url

        return str(default_url(runs_root=self.runs_root))

    def root(self) -> Path:
        """Where trial runs go: ``ROOT/sweeps/STUDY/trial-NNNN``."""
        from tensorweave_store.db.urls import runs_root

        return Path(self.runs_root) if self.runs_root else runs_root()

    def study_name(self) -> str:
        """``--study``, or ``sweep-CONFIG-HASH`` from the command (the same on every machine).
        A study's name is a folder of the runs root (``sweeps/STUDY``): ``--study`` follows
        the store's one name pattern (``BadNameError`` otherwise), and the config's file
        name is reduced to it.

        >>> SweepSpec("../my cfg.toml", []).study_name().startswith("sweep-my-cfg-")
        True
        """
        from tensorweave_store.names import check_name

        if self.study is not None:
            return check_name(self.study, "study")
        stem = Path(self.config).stem if self.config else "digits"
        stem = re.sub(r"[^A-Za-z0-9_=+-]+", "-", stem).strip("-")[:60] or "config"
        key = json.dumps(
            [self.config, sorted(self.params), list(self.overrides), self.metric],
            sort_keys=True,
        )
        return f"sweep-{stem}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"

    def public(self) -> SweepSpec:
        """This spec without the store URL (``store=None``): what may be written down or
        handed on a command line. The study's attributes keep this; the workers get the URL
        through their environment (``TENSORWEAVE_STORE``).

        >>> SweepSpec("digits", [], store="postgresql://u:pw@h/db").public().store is None
        True
        """
        return replace(self, store=None)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> SweepSpec:
        return cls(**json.loads(text))
