"""Counterparts: the names people know from Keras or TensorLayer, and what does that job here.

A user asking for ``Dense.v1``, ``Embedding.v1`` or ``DeConv2d`` should be told
``FC.v1``, ``Lookup.v1`` and ``Conv2DTranspose.v1``. The core knows no plugin, so the
packs that offer the components declare the table: an entry point in the
``tensorweave.counterparts`` group names a sequence of ``Counterpart`` rows in a light
module (no TensorFlow)::

    # pyproject.toml
    [project.entry-points."tensorweave.counterparts"]
    my_pack = "tensorweave_my_pack.counterparts:COUNTERPARTS"

    # tensorweave_my_pack/counterparts.py
    COUNTERPARTS = (
        tw.Counterpart("MyPackScale.v1", keras="keras.layers.Rescaling"),
        tw.Counterpart("RNN.v1", keras="keras.layers.LSTM", usage='cell="LSTMCell.v1"'),
    )

A row's ``keras`` is the Keras 3 API the component is tested against (``tensorweave
describe`` shows it); ``also`` lists other dotted names that mean the same
(``"tensorlayer.layers.DeConv2d"``). A component named after a Keras counterpart has
Keras's defaults, unless the row lists the option in ``differs`` (``Difference``: option,
ours, Keras's, why): those rows are the one table of deliberate differences that ``describe``
shows and ``docs/catalogue.md`` prints (``differences_table``). A row with no component
answers a Keras name that has no component yet (``note``: what to use or where it is
planned), so that every name a Keras user types gets an answer. The tables are read only when a lookup fails
(``known_as``) or ``describe`` asks (``counterparts_of``), never on a successful lookup;
a table that fails to load is recorded against its distribution and skipped.

>>> row = Counterpart("Lookup.v1", keras="keras.layers.Embedding")
>>> row.known_names, row.matches("layers", "Embedding.v1"), row.matches("layers", "embedding")
(('keras.layers.Embedding',), True, True)
>>> Counterpart("mse.v1", keras="keras.losses.MeanSquaredError", kind="losses").matches(
...     "losses", "mean_squared_error")
True
>>> row = Counterpart("Norm.v1", keras="keras.layers.LayerNormalization",
...     differs=(Difference("epsilon", "1e-5", "1e-3", "as PyTorch"),))
>>> print(differences_table([row]).splitlines()[2])
| `Norm.v1` | `epsilon` | 1e-5 | 1e-3 | as PyTorch |
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tensorweave.errors import PluginLoadError
from tensorweave.registries.discovery import COUNTERPARTS_GROUP, catalog
from tensorweave.registries.entries import LOCAL, split_qualified, split_version

__all__ = [
    "Counterpart",
    "Difference",
    "differences",
    "differences_table",
    "declare_counterparts",
    "counterparts",
    "known_as",
    "counterparts_of",
    "counterpart_failures",
    "suggestion",
]


@dataclass(frozen=True)
class Difference:
    """A default that deliberately differs from the Keras counterpart's.

    Args:
        option: our option's name (``"epsilon"``).
        ours: our default, as written in Python (``"1e-5"``).
        keras: Keras's default, as written there (``"1e-3"``).
        why: the strong reason for the difference.
    """

    option: str
    ours: str
    keras: str
    why: str


@dataclass(frozen=True)
class Counterpart:
    """A tensorweave component and the names it goes by in other libraries.

    Args:
        component: the registered name (``"FC.v1"``).
        keras: the Keras 3 API the component computes the same as, and is tested against
            (``"keras.layers.Dense"``); empty when there is none.
        also: other dotted names meaning the same (``"tensorlayer.layers.DeConv2d"``,
            ``"keras.layers.Deconvolution2D"``); the last part is the name people type.
        kind: the component's kind.
        usage: the options that give that meaning (``'cell="LSTMCell.v1"'``), if any.
        differs: the defaults that deliberately differ from the Keras counterpart's.
        note: for a row with no component (``""``): what to do instead, e.g. ``"not
            available yet: see issue #36 (preprocessing layers)"``.
    """

    component: str
    keras: str = ""
    also: tuple[str, ...] = ()
    kind: str = "layers"
    usage: str = ""
    differs: tuple[Difference, ...] = ()
    note: str = ""

    @property
    def known_names(self) -> tuple[str, ...]:
        """Every foreign dotted name of this row, Keras's first."""
        return ((self.keras,) if self.keras else ()) + tuple(self.also)

    def matches(self, kind: str, asked: str) -> bool:
        """Whether ``asked`` (``"Dense.v1"``, ``"dense"``, ``"keras.layers.Dense"``) is one
        of this row's foreign names, in ``kind``."""
        if kind != self.kind:
            return False
        wanted = _typed(split_version(split_qualified(asked)[1])[0])
        return any(_typed(name) == wanted for name in self.known_names)

    def describe(self) -> str:
        """``"FC.v1"``, ``'RNN.v1 with cell="LSTMCell.v1"'``, or the note of a row with no
        component."""
        if not self.component:
            return self.note
        return self.component + (f" with {self.usage}" if self.usage else "")


def _typed(name: str) -> str:
    """The last part of a dotted name, compared as people type it: ``CategoricalCrossentropy``
    and ``categorical_crossentropy`` are one name."""
    return name.rpartition(".")[2].replace("_", "").lower()


_lock = threading.Lock()
_loaded: tuple[int, list[tuple[str, Counterpart]]] | None = None
_local: list[Counterpart] = []
_failures: dict[str, PluginLoadError] = {}


def declare_counterparts(rows: Iterable[Counterpart]) -> None:
    """Add rows in this process (packs declare theirs with an entry point)."""
    with _lock:
        _local.extend(rows)


def counterparts() -> list[tuple[str, Counterpart]]:
    """``(declared by, row)`` for every installed table (loaded once per scan) and every
    row declared in this process."""
    global _loaded
    generation = catalog.generation
    if _loaded is None or _loaded[0] != generation:
        rows: list[tuple[str, Counterpart]] = []
        failures: dict[str, PluginLoadError] = {}
        for ref in catalog.loadable(COUNTERPARTS_GROUP):
            try:
                table = list(ref.load())
                bad = [r for r in table if not isinstance(r, Counterpart)]
                if bad:
                    raise TypeError(f"expected tw.Counterpart rows, got {type(bad[0]).__name__}")
            except KeyboardInterrupt:
                raise
            except BaseException as err:  # contained: only this table is missing
                failures[ref.distribution] = _failure(ref.distribution, ref.version, ref.value, err)
                continue
            rows += [(ref.distribution, row) for row in table]
        with _lock:
            _loaded = (generation, rows)
            _failures.clear()
            _failures.update(failures)
        for failure in failures.values():
            warnings.warn(str(failure), RuntimeWarning, stacklevel=3)
    return [*_loaded[1], *((LOCAL, row) for row in _local)]


def _failure(distribution: str, version: str, target: str, err: BaseException) -> PluginLoadError:
    failure = PluginLoadError(
        f"the counterparts table of {distribution} {version} ({target!r}) failed to load: "
        f"{type(err).__name__}: {err}. Suggestions for Keras/TensorLayer names from it are "
        f"missing; everything else works. Fix: report it to {distribution}.",
        entry_point=target,
        distribution=distribution,
        version=version,
        cause=err,
    )
    failure.__cause__ = err
    return failure


def known_as(kind: str, asked: str) -> list[Counterpart]:
    """The rows whose foreign names include ``asked``, in ``kind``."""
    return [row for _, row in counterparts() if row.matches(kind, asked)]


def counterparts_of(kind: str, component: str) -> list[Counterpart]:
    """The rows about ``component`` (``"FC.v1"`` or ``"dist:FC.v1"``), in ``kind``."""
    bare = split_qualified(component)[1]
    return [
        row
        for _, row in counterparts()
        if row.kind == kind and split_qualified(row.component)[1] == bare
    ]


def suggestion(kind: str, asked: str, available: Callable[[str], bool] | None = None) -> str:
    """One line naming the components that do what ``asked`` does elsewhere, or ``""``;
    only those ``available`` says are installed, when it is given.

    >>> suggestion("layers", "NoSuchThing.v1")
    ''
    """
    known = known_as(kind, asked)
    rows = [r for r in known if r.component and (available is None or available(r.component))]
    rows = rows or [r for r in known if not r.component]
    if not rows:
        return ""
    base = split_version(split_qualified(asked)[1])[0].rpartition(".")[2]
    where = sorted({n for r in rows for n in r.known_names if _typed(n) == _typed(base)})
    options = " or ".join(dict.fromkeys(r.describe() for r in rows))
    return f"{base} is {', '.join(where)} elsewhere; in tensorweave: {options}"


def differences(rows: Iterable[Counterpart] | None = None) -> list[tuple[Counterpart, Difference]]:
    """Every deliberate difference from Keras, ``(row, difference)``, sorted by component
    (of ``rows``, or of every installed table)."""
    rows = [row for _, row in counterparts()] if rows is None else list(rows)
    found = [(row, diff) for row in rows if row.component for diff in row.differs]
    return sorted(found, key=lambda pair: (pair[0].component.lower(), pair[1].option))


def differences_table(rows: Iterable[Counterpart] | None = None) -> str:
    """The deliberate differences from Keras as one Markdown table (component, option,
    ours, Keras's, why); what ``docs/catalogue.md`` prints under "Deliberate differences
    from Keras" and ``tensorweave describe`` shows line by line."""
    lines = ["| component | option | ours | Keras's | why |", "| --- | --- | --- | --- | --- |"]
    for row, diff in differences(rows):
        cells = (f"`{row.component}`", f"`{diff.option}`", diff.ours, diff.keras, diff.why)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def counterpart_failures() -> list[PluginLoadError]:
    """Tables that could not be loaded (after a lookup asked for them)."""
    with _lock:
        return list(_failures.values())
