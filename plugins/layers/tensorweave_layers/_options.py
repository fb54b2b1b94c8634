"""Resolve the activation and initializer options of part-A layers (name or callable).

A name is looked up in ``tw.activations`` / ``tw.initializers`` (an unversioned name picks
the latest version); an unknown name fails at construction, naming the layer, the option
and the close matches. When another installed pack offers the same name, this pack's
own component is used (so defaults such as ``"glorot_uniform"`` never become ambiguous);
ask for another provider's with a qualified name, ``"other-dist:glorot_uniform.v1"``.

>>> fn = activation_fn("relu", "FC 'fc'")
>>> fn(tf.constant([-1.0, 1.0])).numpy().tolist()
[0.0, 1.0]
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import tensorflow as tf

import tensorweave as tw

__all__ = ["ActivationLike", "InitializerLike", "activation_fn", "initializer_fn", "init_value"]

ActivationLike: TypeAlias = str | Callable[..., Any] | None
InitializerLike: TypeAlias = str | Callable[..., Any]


DISTRIBUTION = "tensorweave-layers"


def _own_names(registry: tw.Registry[Any]) -> set[str]:
    names = set()
    for info in registry.infos():
        if info.distribution == DISTRIBUTION:
            names.add(f"{DISTRIBUTION}:{info.name}")
            names.add(f"{DISTRIBUTION}:{info.name.rsplit('.v', 1)[0]}")
    return names


def _lookup(registry: tw.Registry[Any], name: str, owner: str, option: str) -> Any:
    try:
        return registry.get(name)
    except tw.UnknownComponentError:
        pass
    except tw.ComponentConflictError:
        # Another installed pack offers the same name too: this pack's own defaults
        # ("glorot_uniform", "relu") must keep working, so prefer this distribution's.
        if ":" in name or f"{DISTRIBUTION}:{name}" not in _own_names(registry):
            raise
        return registry.get(f"{DISTRIBUTION}:{name}")
    known = registry.names()
    bases = sorted({n.rsplit(".v", 1)[0] for n in known})
    close = difflib.get_close_matches(name.rsplit(".v", 1)[0], bases, n=3, cutoff=0.5)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise tw.UnknownComponentError(
        f"{owner}: unknown {registry.kind[:-1]} {option}={name!r}.{hint}\n"
        f"  Known {registry.kind}: {', '.join(bases) or 'none (is tensorweave-layers installed?)'}."
        f"\n  Fix: use one of these names (latest version) or 'name.vN', or pass a callable."
    ) from None


def activation_fn(
    activation: ActivationLike, owner: str, option: str = "activation"
) -> Callable[..., Any]:
    """The activation function for ``activation`` (``None`` means identity)."""
    if activation is None:
        return tf.identity
    if isinstance(activation, str):
        return _lookup(tw.activations, activation, owner, option)
    if callable(activation):
        return activation
    raise TypeError(
        f"{owner}: {option} must be a registered name or a callable, "
        f"got {type(activation).__name__}."
    )


def initializer_fn(init: InitializerLike, owner: str, option: str) -> Callable[..., Any]:
    """The initializer function ``(shape, dtype) -> tensor`` for ``init``."""
    if isinstance(init, str):
        return _lookup(tw.initializers, init, owner, option)
    if callable(init):
        return init
    raise TypeError(
        f"{owner}: {option} must be a registered initializer name or a function "
        f"(shape, dtype) -> tensor, got {type(init).__name__}."
    )


def init_value(
    init: Callable[..., Any], shape: Sequence[int], dtype: tf.DType, owner: str
) -> tf.Tensor:
    """Call ``init`` and check the value it made has ``shape``."""
    value = tf.convert_to_tensor(init(tuple(int(d) for d in shape), dtype), dtype=dtype)
    if value.shape.as_list() != [int(d) for d in shape]:
        raise tw.ShapeError(
            f"{owner}: the initializer made shape {value.shape.as_list()}, needed {list(shape)}."
        )
    return value
