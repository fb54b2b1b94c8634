"""``LayerState``: where a layer's variables live, apart from the layer itself.

A ``Layer`` is one node of a graph; its variables belong to its state, which ``reuse_with``
hands to the new node, so both read the very same ``tf.Variable`` objects. The state is a
``tf.Module``: checkpoints and SavedModels find the variables through it (it is the only
attribute of a layer TensorFlow tracks). It also owns the layer's random generator, so
stochastic layers draw reproducibly and resume where a checkpoint left off. Kept apart from
``layer.py``, which defines the node: its inputs, shape, names and the contract subclasses
fill in.

>>> import tensorflow as tf, tensorweave as tw
>>> a = tw.Lambda(tf.math.abs, tw.Input(n_units=3))
>>> b = a.reuse_with(tw.Input(n_units=3))
>>> type(a.state).__name__, b.state is a.state, a.variables == b.variables
('LayerState', True, True)
"""

from __future__ import annotations

import tensorflow as tf

from tensorweave.graph.naming import module_name

__all__ = ["LayerState"]


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
