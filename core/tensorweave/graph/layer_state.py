"""``LayerState``: where a layer's variables live, apart from the layer itself.

A ``Layer`` is one node of a graph; its variables belong to its state, which ``reuse_with``
hands to the new node, so both read the very same ``tf.Variable`` objects. The state is a
``tf.Module``: checkpoints and SavedModels find the variables through it (it is the only
attribute of a layer TensorFlow tracks). It also owns the layer's random generator, so
stochastic layers draw reproducibly and resume where a checkpoint left off, and it records
the regularizer of each variable that has one (``regularize``), so a trainer adds
``tw.regularization_loss(graph)`` to its loss for layers of any pack, and whether its
variables train (``trainable``: ``Layer.freeze`` sets it, and every layer sharing the state
is frozen with it). Under a mixed precision policy, a layer's trainable float variables read
from its state come in the dtype the layer computes in (``tensorweave.graph.precision``).
Kept apart from
``layer.py``, which defines the node: its inputs, shape, names and the contract subclasses
fill in.

>>> import tensorflow as tf, tensorweave as tw
>>> a = tw.Lambda(tf.math.abs, tw.Input(n_units=3))
>>> b = a.reuse_with(tw.Input(n_units=3))
>>> type(a.state).__name__, b.state is a.state, a.variables == b.variables
('LayerState', True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import tensorflow as tf

from tensorweave.graph.naming import module_name
from tensorweave.graph.precision import read_cast

__all__ = ["LayerState", "Penalty", "regularization_loss"]

#: a regularizer: a function of a variable's value returning a scalar penalty
Penalty: TypeAlias = Callable[[tf.Tensor], tf.Tensor]


class _Penalties:
    """The regularizers of one state's variables. A plain object (not a dict), so that
    ``tf.Module`` neither tracks nor wraps it: the variables are already the state's."""

    def __init__(self) -> None:
        self.by_variable: dict[Any, tuple[tf.Variable, Penalty]] = {}


class LayerState(tf.Module):
    """The variables of one layer, shared by every layer made from it with ``reuse_with``.

    Assign ``tf.Variable`` objects (or other layers, for composite layers) as attributes;
    ``tf.train.Checkpoint`` and SavedModel see them through ``tf.Module`` tracking.

    >>> import tensorflow as tf
    >>> state = LayerState("demo")
    >>> state.w = tf.Variable([1.0])
    >>> [v.shape.as_list() for v in state.trainable_variables]
    [[1]]
    """

    def __init__(self, name: str = "state") -> None:
        super().__init__(name=module_name(name))
        self._penalties = _Penalties()
        #: whether this state's own variables train (``Layer.freeze``/``unfreeze`` set it)
        self.trainable = True

    @property
    def trainable_variables(self) -> tuple[tf.Variable, ...]:
        """The trainable variables of this state and of the states kept inside it, less
        those of frozen states (``trainable`` is ``False``): what every optimizer sees.

        >>> import tensorflow as tf
        >>> outer, inner = LayerState("outer"), LayerState("inner")
        >>> outer.w, inner.v = tf.Variable([1.0]), tf.Variable([2.0])
        >>> outer.inner = inner
        >>> inner.trainable = False
        >>> [v.numpy().tolist() for v in outer.trainable_variables]
        [[1.0]]
        """
        every = super().trainable_variables
        frozen = {
            v.ref()
            for s in (self, *self.submodules)
            if isinstance(s, LayerState) and not s.trainable
            for v in s.variables
        }
        return tuple(v for v in every if v.ref() not in frozen) if frozen else every

    def __getattribute__(self, name: str) -> Any:
        # Under a mixed precision policy, the layer computing now reads its trainable float
        # variables in its compute dtype (``tensorweave.graph.precision``); otherwise, and
        # for everything else, an attribute is what was stored.
        return read_cast(super().__getattribute__(name))

    def regularize(self, variable: tf.Variable, penalty: Penalty | None) -> tf.Variable:
        """Record ``penalty`` as the regularizer of ``variable`` (``None``: none); returns
        ``variable``, so a layer creates and regularizes a weight in one expression.

        A layer calls this in ``init_state`` for the variables it creates; the term
        ``penalty(variable)`` is then part of ``regularization_loss`` of every graph that
        holds the layer (or a ``reuse_with`` of it), counted once. Constraints need no
        record: they are TensorFlow's own ``tf.Variable(..., constraint=fn)``.

        >>> import tensorflow as tf
        >>> state = LayerState("demo")
        >>> state.w = state.regularize(tf.Variable([3.0, 4.0]), lambda w: tf.reduce_sum(w**2))
        >>> [float(penalty(v)) for v, penalty in state.regularizers]
        [25.0]
        """
        if penalty is not None:
            if not callable(penalty):
                raise TypeError(
                    f"LayerState {self.name!r}: the regularizer of {variable.name!r} must be a "
                    f"function of the variable, got {type(penalty).__name__} {penalty!r}."
                )
            self._penalties.by_variable[variable.ref()] = (variable, penalty)
        return variable

    @property
    def regularizers(self) -> tuple[tuple[tf.Variable, Penalty], ...]:
        """``(variable, penalty)`` for each of this state's regularized variables (not
        those of layers kept inside it: ``regularization_loss`` walks those too)."""
        return tuple(self._penalties.by_variable.values())

    def generator(self) -> tf.random.Generator:
        """This state's random generator, made on first use and kept as ``self.rng``.

        Stochastic layers (dropout masks, sampled noise) draw from it rather than from
        op-level seeds: it is a variable of the state, so a checkpoint saves its position
        and a resumed run draws what an uninterrupted run would; layers made with
        ``reuse_with`` share it; it is seeded from ``tf.random``'s global seed, so
        ``tf.random.set_seed`` makes two runs draw the same.

        >>> import tensorflow as tf
        >>> tf.random.set_seed(1); a = LayerState("a").generator().uniform([2])
        >>> tf.random.set_seed(1); b = LayerState("b").generator().uniform([2])
        >>> bool(tf.reduce_all(a == b))
        True
        """
        rng: tf.random.Generator | None = getattr(self, "rng", None)
        if rng is None:
            with tf.init_scope():  # a variable: made eagerly, even when asked while tracing
                seed = tf.random.uniform([], maxval=2**31 - 1, dtype=tf.int64)
                rng = tf.random.Generator.from_seed(int(seed))
            self.rng = rng
        return rng


def regularization_loss(layers: Any) -> tf.Tensor:
    """The sum of the regularization terms of ``layers``' variables, a float32 scalar.

    ``layers`` is a layer, a ``tw.Graph`` (its nodes) or any iterable of layers. Every state
    is visited once (nodes made by ``reuse_with`` share one), with the states of layers kept
    inside it (a ``Module``'s inner graph, an ``FC``'s ``Linear``), and every variable counts
    once. This is what a trainer adds to the loss, inside its compiled step, so the terms
    follow the variables' current values; it is ``0.0`` when nothing is regularized.

    >>> import tensorflow as tf, tensorweave as tw
    >>> class Scale(tw.Layer):
    ...     def __init__(self, x, *, name=None, share_state_with=None):
    ...         super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)
    ...     def init_state(self):
    ...         l1 = lambda w: 0.1 * tf.reduce_sum(tf.abs(w))
    ...         self.state.scale = self.state.regularize(tf.Variable([2.0, -3.0]), l1)
    ...     def compute(self, x):
    ...         return x * self.state.scale
    >>> x = tw.Input(n_units=2)
    >>> y = Scale(x)
    >>> twice = y.reuse_with(y)                     # one state: counted once
    >>> round(float(tw.regularization_loss(tw.Graph.build(x, twice))), 4)
    0.5
    """
    # no annotated assignment here: AutoGraph (the function runs inside compiled steps)
    # refuses annotated names it has to carry through branches
    nodes = [layers] if hasattr(layers, "state") else getattr(layers, "nodes", layers)
    states: dict[int, LayerState] = {}
    for node in nodes:
        for module in (node.state, *node.state.submodules):
            if isinstance(module, LayerState):
                states.setdefault(id(module), module)
    terms: dict[Any, tf.Tensor] = {}
    for state in states.values():
        for variable, penalty in state.regularizers:
            if variable.ref() not in terms:
                term = tf.reduce_sum(tf.convert_to_tensor(penalty(variable)))
                terms[variable.ref()] = tf.cast(term, tf.float32)
    return tf.add_n(list(terms.values())) if terms else tf.constant(0.0)
