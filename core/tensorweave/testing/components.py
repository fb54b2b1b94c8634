"""``ComponentCase``: the conformance kit for components that are not layers.

Callbacks, optimizers, datasets, and the components of a kind a pack introduces: anything
found by name in a registry and built by calling it with options, from Python or from a
config block. Every check runs on every case:

- ``resolves``: the name loads from its kind's registry (the kind's ``tw.Kind`` checks
  pass) and the kind is declared by some pack;
- ``builds``: calling it with the case's options returns something;
- ``builds_from_config``: ``{"@<kind>": name, **options}`` validates and builds the same
  kind of object through ``tw.config`` (what a config file does);
- ``documented``: it has a docstring, ``tensorweave describe`` reads its signature from
  source, and its kind says what it is (``tw.Kind(doc=...)``);
- ``name_is_unique``: no other installed distribution offers the name;
- and the checks the pack that declares the kind publishes for it through the
  ``tensorweave_conformance_checks`` hook, each given the built component.

>>> import tensorweave as tw
>>> from tensorweave.testing import ComponentCase, run_check
>>> with tw.registry("doc_steps").scoped() as steps:
...     _ = steps.register("double.v1", lambda: (lambda x: 2 * x))
...     run_check(ComponentCase("double.v1", kind="doc_steps"), "builds")
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import tensorweave as tw
from tensorweave.registries.kinds import declared_kinds
from tensorweave.registries.sources import signature_and_doc
from tensorweave.testing.conformance import assert_name_is_unique

__all__ = ["ComponentCase"]


@dataclass
class ComponentCase:
    """One row of the conformance table for a component that is not a layer.

    Args:
        name: the registered name (``"EarlyStopping.v1"`` or ``"dist:Name.v1"``).
        kwargs: options to build it with (plain data, so a config can give them too).
        kind: the registry it lives in (``"callbacks"``, ``"augmenters"``…).
        skip: checks to skip, each with the reason (shown in the test report).
    """

    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    kind: str = field(kw_only=True)
    skip: dict[str, str] = field(default_factory=dict, kw_only=True)

    def __str__(self) -> str:
        options = ",".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"{self.kind}:{self.name}({options})"

    def component(self) -> Any:
        """The registered component (a class or a function)."""
        return tw.resolve(self.kind, self.name)

    def build(self) -> Any:
        """The component called with the case's options."""
        return self.component()(**self.kwargs)

    def checks(self) -> dict[str, Callable[[ComponentCase], None]]:
        """The generic checks, then those the kind's pack publishes."""
        checks: dict[str, Callable[[ComponentCase], None]] = {
            "resolves": _resolves,
            "builds": _builds,
            "builds_from_config": _builds_from_config,
            "documented": _documented,
            "name_is_unique": lambda case: assert_name_is_unique(case.kind, case.name),
        }
        for published in tw.plugins.call("tensorweave_conformance_checks", kind=self.kind):
            for check_name, check in (published or {}).items():
                checks[check_name] = _published(check)
        return checks


def _published(check: Callable[[Any], None]) -> Callable[[ComponentCase], None]:
    return lambda case: check(case.build())


def _resolves(case: ComponentCase) -> None:
    assert case.component() is not None
    assert case.kind in declared_kinds(), (
        f"{case}: no installed pack declares the kind {case.kind!r}, so no check runs on its "
        f"components. Fix: declare it with a tw.Kind under "
        f'[project.entry-points."tensorweave.kinds"].'
    )


def _builds(case: ComponentCase) -> None:
    assert case.build() is not None, f"{case}: calling it returned None"


def _builds_from_config(case: ComponentCase) -> None:
    block = {"component": {f"@{case.kind}": case.name, **case.kwargs}}
    problems = tw.config.validate(block)
    assert problems == [], f"{case}: its config block does not validate: {problems}"
    built = tw.config.resolve(block)["component"]
    direct = case.build()
    component = case.component()
    expected = component if inspect.isclass(component) else type(direct)
    assert isinstance(built, expected), (
        f"{case}: from a config it built a {type(built).__name__}, not a {expected.__name__}"
    )


def _documented(case: ComponentCase) -> None:
    component = case.component()
    doc = inspect.getdoc(component) or ""
    assert doc.strip(), f"{case}: no docstring. Fix: say what it does and why, with an example."
    info = tw.registry(case.kind).info(case.name)
    assert signature_and_doc(info.target) is not None, (
        f"{case}: `tensorweave describe` cannot read {info.target!r} from source. Fix: point "
        "the entry point at the class or function itself (module:Name)."
    )
    assert tw.registry(case.kind).doc, (
        f"{case}: the kind {case.kind!r} has no description. Fix: its pack declares it with "
        f'tw.Kind("{case.kind}", doc="what these components are", ...).'
    )
