"""One exception tree for tensorweave, so callers can catch by meaning.

Every error says what happened, which component (and which distribution provided it),
and how to fix it. Each class also subclasses the builtin that fits it, so code that
catches ``KeyError`` or ``ValueError`` keeps working.

>>> from tensorweave.errors import TensorweaveError, UnknownComponentError
>>> issubclass(UnknownComponentError, KeyError) and issubclass(UnknownComponentError, TensorweaveError)
True
"""

from __future__ import annotations

__all__ = [
    "TensorweaveError",
    "RegistryError",
    "UnknownComponentError",
    "ComponentConflictError",
    "PluginLoadError",
    "InvalidComponentError",
    "IncompatiblePluginError",
    "BlockedPluginError",
    "GraphError",
    "ShapeError",
    "InputValueError",
    "ArgumentError",
]


class TensorweaveError(Exception):
    """Base class of every error tensorweave raises on purpose."""

    def __str__(self) -> str:  # KeyError would otherwise quote the whole message
        return str(self.args[0]) if self.args else ""


class RegistryError(TensorweaveError, LookupError):
    """A registry lookup or registration went wrong."""


class UnknownComponentError(RegistryError, KeyError):
    """No component of that name is registered or installed."""


class ComponentConflictError(RegistryError):
    """Two providers offer the same name; the bare name is ambiguous."""


class PluginLoadError(RegistryError):
    """A plugin's entry point could not be loaded; the cause is chained.

    Attributes name the entry point, the distribution and its version so that the message
    (and tooling such as ``tensorweave plugins``) can point at the package to fix.
    """

    def __init__(
        self,
        message: str,
        *,
        entry_point: str = "",
        distribution: str = "",
        version: str = "",
        cause: BaseException | None = None,
    ) -> None:
        super().__init__(message)
        self.entry_point = entry_point
        self.distribution = distribution
        self.version = version
        self.cause = cause


class InvalidComponentError(PluginLoadError):
    """An entry point loaded, but the object is not a valid component of its kind."""


class IncompatiblePluginError(PluginLoadError):
    """A distribution declares a tensorweave version range this core is not in."""


class BlockedPluginError(PluginLoadError):
    """The distribution was blocked by ``TENSORWEAVE_BLOCK`` or ``tw.plugins.block``."""


class GraphError(TensorweaveError, ValueError):
    """A graph is malformed: missing inputs, cycles, or inputs that reach no output."""


class ShapeError(TensorweaveError, ValueError):
    """Shapes do not fit: a layer's inputs, or a value fed to an ``Input``."""


class InputValueError(TensorweaveError, TypeError):
    """A value of the wrong kind or dtype was fed to an ``Input``."""


class ArgumentError(TensorweaveError, ValueError, TypeError):
    """A component was given an argument it cannot mean (named in the message); both a
    ``ValueError`` and a ``TypeError``, so either ``except`` catches it."""
