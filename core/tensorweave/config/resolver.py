"""The resolver: the one place a config's registered name is looked up, and the plan
validation makes of a config.

``lookup`` turns ``(kind, name)`` into the registered component, or records the problem
(unknown kind or name, with close matches and the pack that provides it) at its dotted
path; ``registered`` gives a found component's exact versioned name and its provider.
``validate`` (``resolve``) calls ``lookup`` once per block and returns a ``Plan``: every
block's dotted path, kind, component and checked parameters, which building (``build``),
filling (``fill``) and the help of a config read instead of looking anything up again.
``graphs`` and ``resolve`` both import this module; it imports neither.

>>> errors = []
>>> lookup("optimizers", "Nope.v1", "opt.@optimizers", errors) is None, errors[0][0]
(True, 'opt.@optimizers')
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tensorweave.config.errors import Problems
from tensorweave.errors import RegistryError, UnknownComponentError
from tensorweave.registries import hint_for, kinds, registry
from tensorweave.registries.counterparts import suggestion

__all__ = ["Block", "Plan", "Section", "SETTINGS", "lookup", "registered"]

SETTINGS = "settings"  # the kind of a ``Section``'s block


@dataclass(frozen=True)
class Section:
    """A top-level table of plain settings (a job's ``[train]``), checked by the resolver
    as the parameters of ``cls`` (a dataclass) and built into one: ``validate(cfg,
    sections={"train": Section(TrainSettings)})``. ``check(path, value)`` says what else is
    wrong with a value of the right type (``None`` when nothing); ``unknown(key, known)``
    words the problem of a key ``cls`` does not take."""

    cls: type
    check: Callable[[str, Any], str | None] | None = None
    unknown: Callable[[str, list[str]], str] | None = None


@dataclass(frozen=True)
class Block:
    """One component of a validated config: where it is, what it names and what it gets.

    ``params`` are the parameters as written (``null`` for one the component does not take
    dropped; node names wired into a layer node's layer-typed parameters left out: the
    graph passes those nodes); ``n_inputs`` of the positional ones are a graph node's
    inputs.
    """

    path: str
    kind: str
    name: str
    component: Any
    params: Mapping[str, Any] = field(default_factory=dict)
    n_inputs: int = 0


class CheckedStep(dict[str, Any]):
    """A step block (its kind is a step kind, ``tw.Kind(..., step=True)``) of a validated
    config, as building gives it: the block as written, kept as data, with ``block``, the
    ``Block`` its plan checked. Whoever runs the step need not check it again.

    >>> step = CheckedStep({"@doc_steps": "spin.v1"}, Block("s[0]", "doc_steps", "spin.v1", abs))
    >>> step, step.block.name
    ({'@doc_steps': 'spin.v1'}, 'spin.v1')
    """

    def __init__(self, node: Mapping[str, Any], block: Block) -> None:
        super().__init__(node)
        self.block = block


class Plan(Problems):
    """What ``validate`` found: the problems (a list: empty when the config can be built)
    and, for every block it could look up, its ``Block`` by dotted path, in the order
    checked; ``config`` is the config validated. ``build(plan)`` and ``fill(plan)`` use it
    as it is: no second lookup or validation.

    >>> plan = Plan({"a": 1}, [Block("opt", "optimizers", "SGD.v1", object)])
    >>> bool(plan), list(plan.blocks), plan.block("opt").kind
    (False, ['opt'], 'optimizers')
    """

    def __init__(
        self,
        config: Mapping[str, Any],
        blocks: Iterable[Block] = (),
        errors: Iterable[tuple[str, str]] = (),
        *,
        causes: Sequence[BaseException] = (),
    ) -> None:
        super().__init__(errors, causes=causes)
        self.config = config
        self.blocks: dict[str, Block] = {b.path: b for b in blocks}

    def block(self, path: str) -> Block:
        """The block at the dotted ``path`` (a ``KeyError`` when validation found none)."""
        return self.blocks[path]

    def with_problems(self, problems: Iterable[tuple[str, str]], *, first: bool = False) -> Plan:
        """This plan with ``problems`` added (before its own with ``first``)."""
        extra = list(problems)
        errors = [*extra, *self] if first else [*self, *extra]
        return Plan(self.config, self.blocks.values(), dict.fromkeys(errors), causes=self.causes)


def registered(kind: str, name: str) -> tuple[str, str]:
    """The exact versioned name a found component is registered as (``"Linear"`` ->
    ``"Linear.v1"``) and its provider (``"local"`` or ``"my-pack 1.0"``); reads the
    registry's index only (nothing is loaded again)."""
    reg = registry(kind)
    exact = name
    if ":" not in name and name not in reg:
        exact = reg.latest(name) or name
    info = reg.info(exact)
    provider = (
        info.distribution if info.distribution == "local" else f"{info.distribution} {info.version}"
    )
    return exact, provider


def lookup(
    kind: str,
    name: Any,
    path: str,
    errors: list[tuple[str, str]],
    *,
    recorded: str | None = None,
    causes: list[BaseException] | None = None,
) -> Any:
    """The component ``name`` of ``kind``, or ``None`` with the problem added to ``errors``.

    ``recorded`` is the ``"@provider"`` a filled config saved beside the name; when the
    component (or its whole kind) is missing, the message says which distribution (and
    version) to install. A component that failed to load adds its error to ``causes``.
    """
    if not isinstance(name, str) or not name:
        errors.append((path, f"'@{kind}' must name a registered component, got {name!r}"))
        return None
    known = set(kinds())
    if kind not in known:
        close = difflib.get_close_matches(kind, sorted(known), n=1)
        provided = hint_for(kind, name, recorded=recorded)
        hint = f" Did you mean '@{close[0]}'?" if close else ""
        hint += f" {provided}." if provided else ""
        errors.append((path, f"unknown component kind '@{kind}'.{hint} Kinds: {sorted(known)}"))
        return None
    reg = registry(kind)
    try:
        return reg.get(name)
    except UnknownComponentError:
        bare = name.split(":", 1)[-1]
        close = difflib.get_close_matches(bare, reg.names(), n=3, cutoff=0.6)
        msg = f"unknown {kind} component {name!r}"
        elsewhere = suggestion(kind, bare, reg.__contains__)  # "Dense is keras.layers.Dense…"
        if elsewhere:
            msg += f"; {elsewhere}"
        provided = hint_for(kind, name, recorded=recorded)
        if provided:
            msg += f"; {provided}"
        if close:
            msg += f"; close matches: {', '.join(close)}"
        if not provided and not close and not elsewhere:
            msg += "; `tensorweave plugins` lists what is installed"
        errors.append((path, msg))
    except RegistryError as err:
        errors.append((path, f"{kind} component {name!r} cannot be used: {err}"))
        if causes is not None:
            causes.append(err)
    return None
