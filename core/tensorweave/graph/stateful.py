"""``Stateful``: a ``tf.Module`` whose saved state is only what it names, so the rest of its
attributes are plain Python.

``tf.Module`` tracks every attribute it is given: lists become trackable wrappers, and any
layer or module stored on it joins its checkpoint and its ``variables``. For a layer that
keeps its inputs, options and helper objects as attributes, that is wrong (the upstream
graph is not its state) and surprising. ``Stateful`` tracks only the attributes listed in
``tracked`` (``Layer`` tracks ``state``); every other attribute is stored as on any Python
object. Subclasses write ordinary attributes and never touch TensorFlow's tracking.

>>> import tensorflow as tf
>>> class Scaler(Stateful):
...     tracked = ("scale",)
...     def __init__(self):
...         super().__init__(name="scaler")
...         self.scale = tf.Variable(2.0)   # state: checkpointed, in .variables
...         self.history = [tf.Variable(0.0)]  # plain: not state, not wrapped
>>> s = Scaler()
>>> [v.numpy() for v in s.variables], type(s.history).__name__
([np.float32(2.0)], 'list')
"""

from __future__ import annotations

from typing import Any, ClassVar

import tensorflow as tf

from tensorweave.keywords import check_keywords

__all__ = ["Stateful"]


class _AllBut(frozenset[str]):
    """A set that holds every attribute name except the tracked ones (for ``tf.Module``)."""

    tracked: frozenset[str] = frozenset()

    def __contains__(self, name: object) -> bool:
        return name not in self.tracked


class Stateful(tf.Module):
    """A ``tf.Module`` that tracks only the attributes named in ``tracked``.

    A keyword its constructor does not take raises ``tw.ArgumentError`` listing the
    parameters and the closest match (``tensorweave.keywords``), before ``__init__`` runs.

    Attributes:
        tracked: names of the attributes that hold state (variables, or objects that hold
            variables); checkpoints, SavedModels and ``variables`` see those alone.
    """

    tracked: ClassVar[tuple[str, ...]] = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # A keyword the constructor does not take fails here, naming the parameters and
        # the closest one, as the same mistake in a config file does.
        check_keywords(cls, kwargs)
        return super().__new__(cls)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        ignored = type("_Ignored", (_AllBut,), {"tracked": frozenset(cls.tracked)})
        # tf.Module skips these names when it collects variables and submodules.
        cls._TF_MODULE_IGNORED_PROPERTIES = ignored()

    def __setattr__(self, name: str, value: Any) -> None:
        if name in type(self).tracked:
            super().__setattr__(name, value)
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in type(self).tracked:
            super().__delattr__(name)
        else:
            object.__delattr__(self, name)
