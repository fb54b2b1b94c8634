"""Hooks the training pack publishes for third-party plugins.

A plugin module named in the ``tensorweave.plugins`` entry-point group implements::

    @tw.hookimpl
    def tensorweave_train_callbacks(model):
        return [MyCallback()]        # Callback objects or registered callback names

and every ``Model.train`` / ``Trainer`` then runs those callbacks too.

>>> hasattr(tensorweave_train_callbacks, "tensorweave_spec")
True
"""

from __future__ import annotations

from typing import Any

import tensorweave as tw

__all__ = ["tensorweave_train_callbacks"]


@tw.hookspec
def tensorweave_train_callbacks(model: Any) -> list[Any]:
    """Return callbacks (objects, names or ``(name, params)``) to add to ``model``'s training."""
    raise NotImplementedError  # a spec: never called
