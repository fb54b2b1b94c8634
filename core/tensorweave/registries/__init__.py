"""The registry: components found by name in installed plugin packs, with no TensorFlow.

- ``discovery``: one scan of installed metadata (entry points, versions, blocking);
- ``registry``: ``Registry``, the components of one kind by versioned name, loaded lazily;
  ``loading``: how one entry point is loaded (checked, contained, its failure recorded);
- ``kinds``: kinds declared by the packs that introduce them (``tw.Kind``), one registry each;
- ``resolve``: the one rule that turns an option (``"relu"``, a callable, ``None``) into a
  component;
- ``moves``: how a pack declares that a name moved (``tw.alias``, ``supersede``) and where a
  name moved to (``moved_to``, what ``tensorweave upgrade`` rewrites);
- ``plugins``: the pluggy hooks (commands, pack-defined hooks), with every plugin contained;
- ``provenance``: which distribution provides a name (metadata, qualified names, records);
- ``counterparts``: the Keras/TensorLayer names the packs map to their components;
- ``sources``: a component's signature, docs and entry-point problems, read from source;
- ``health``: what ``tensorweave plugins`` reports: clashes, kinds filled but not declared.

Nothing here imports TensorFlow or any plugin: listing, describing and checking installed
packs work from metadata alone, and a lookup imports only its provider's module.

>>> import tensorweave.registries as twr
>>> isinstance(twr.kinds(), dict)
True
"""

from tensorweave.registries.counterparts import (
    Counterpart,
    counterparts_of,
    declare_counterparts,
    known_as,
)
from tensorweave.registries.discovery import CORE_VERSION, catalog
from tensorweave.registries.entries import Alias, ComponentInfo, alias
from tensorweave.registries.hookspecs import hookimpl, hookspec
from tensorweave.registries.kinds import Kind, declare_kind, is_step_kind, kinds, registry
from tensorweave.registries.moves import Move, MoveCycleError, moved_to, supersede
from tensorweave.registries.plugins import plugins
from tensorweave.registries.provenance import hint_for, library_versions, provider_of
from tensorweave.registries.registry import Registry
from tensorweave.registries.resolve import resolve

__all__ = [
    "CORE_VERSION",
    "Alias",
    "ComponentInfo",
    "Counterpart",
    "Kind",
    "Move",
    "MoveCycleError",
    "Registry",
    "alias",
    "catalog",
    "counterparts_of",
    "declare_counterparts",
    "declare_kind",
    "hint_for",
    "hookimpl",
    "hookspec",
    "is_step_kind",
    "kinds",
    "known_as",
    "library_versions",
    "moved_to",
    "plugins",
    "provider_of",
    "registry",
    "resolve",
    "supersede",
]
