"""``Layer``: a stateful function with several inputs and one output.

A layer is built on its inputs (other layers) and knows its output ``shape`` and ``dtype``
at construction. Its variables live in a separate :class:`LayerState` (``layer_state``), so
that ``reuse_with`` can make a new node on other inputs that shares the very same
``tf.Variable`` objects. Three ways to run one:

- ``layer.compute(*tensors)`` applies this layer alone to tensors;
- ``layer()`` runs the whole graph that ends in it, reading the ``Input`` values;
- ``tw.compile(layer)`` turns that graph into one ``tf.function``.

Writing a layer means: compute the output shape, keep options as ordinary attributes,
call ``super().__init__``, create variables in ``init_state`` and do the maths in
``compute``. Only ``self.state`` is saved state; every other attribute is plain Python::

    class Scale(tw.Layer):
        def __init__(self, x, *, init=1.0, name=None, share_state_with=None):
            self.init = init                  # an option: a plain attribute
            super().__init__(x, shape=x.shape, dtype=x.dtype, name=name,
                             share_state_with=share_state_with)

        def init_state(self):
            self.state.scale = tf.Variable(tf.fill([self.n_units], self.init), name="scale")

        def compute(self, x):
            return x * self.state.scale

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> y = tw.Lambda(tf.square, x)
>>> y.shape, y.inputs == (x,)
((None, 2), True)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Protocol

import tensorflow as tf

from tensorweave.errors import ArgumentError
from tensorweave.graph.comparisons import bool_for_layer, refuse_bool_layers
from tensorweave.graph.dtypes import as_dtype
from tensorweave.graph.layer_operators import LayerOperators, OperatorNodes
from tensorweave.graph.layer_state import LayerState
from tensorweave.graph.naming import module_name, snake_case, unique_name
from tensorweave.graph.precision import reading_dtype
from tensorweave.graph.reuse import rebuilt_on
from tensorweave.graph.shapes import Shape, ShapeLike, normalize_shape
from tensorweave.graph.stateful import Stateful

__all__ = ["Layer", "LayerState", "MaskRules", "Shape", "ShapeLike", "normalize_shape"]


class MaskRules(Protocol):
    """The padding-mask rules a layer follows (``tensorweave.graph.masking`` is them)."""

    def passed_on(self, layer: Layer) -> Layer | None:
        """The mask ``layer`` inherits from its inputs."""

    def checked(self, layer: Layer, mask: Any) -> Layer | None:
        """``mask`` if it can be ``layer``'s padding mask; raises otherwise."""


class Layer(LayerOperators, Stateful):
    """Base class of every tensorweave layer; see the module docstring for the contract.

    ``self.state`` (a ``LayerState``) is the only attribute TensorFlow tracks: checkpoints,
    SavedModels and ``variables`` see the variables on it. Every other attribute a subclass
    sets is plain configuration, so a pack author never deals with TensorFlow's tracking.

    Args:
        *inputs: the layers this one reads, in the order ``compute`` receives them.
        shape: the output shape; ``None`` for dynamic dimensions (batch, sequence).
        dtype: the output dtype.
        sparse: whether the output is a ``tf.SparseTensor``.
        name: a readable name; unique names are made automatically from the class name.
        share_state_with: a layer of the same class whose state (variables) to reuse.
    """

    tracked = ("state",)
    #: whether this layer passes the padding masks of its inputs on (see ``padding_mask``)
    keeps_padding_mask: ClassVar[bool] = False
    #: the dtype this layer computes in under a mixed precision policy: ``"compute"`` (the
    #: policy's, bfloat16 under ``mixed_bfloat16``), ``"float32"`` (numerically sensitive
    #: layers) or ``"inputs"`` (no cast); a layer that decides per instance sets it in
    #: ``__init__``. See ``tensorweave.graph.precision``.
    compute_precision: str = "compute"
    #: what a layer builds with the modules built on ``Layer`` (which import this module, so
    #: it cannot import them): the graph that ends in a layer (``Graph.build``) and the
    #: padding-mask rules (``masking``); the operators' nodes are ``LayerOperators``'s
    #: ``operator_nodes``. ``tensorweave.graph`` passes all three in once, with ``Layer.use``.
    graph_builder: ClassVar[Callable[..., Any]]
    mask_rules: ClassVar[MaskRules]

    @classmethod
    def use(
        cls,
        *,
        graph_builder: Callable[..., Any],
        mask_rules: MaskRules,
        operator_nodes: OperatorNodes,
    ) -> None:
        """Pass in the builders every layer uses (``tensorweave.graph``'s ``__init__`` does,
        with ``Graph.build``, ``masking`` and ``ops``): the one place they are set."""
        Layer.graph_builder = staticmethod(graph_builder)
        Layer.mask_rules = mask_rules
        LayerOperators.operator_nodes = operator_nodes

    def __new__(cls, *args: Any, **kwargs: Any) -> Layer:
        # Record the constructor arguments so the default ``reuse_with`` can rebuild this
        # layer on new inputs (``tensorweave.graph.reuse``). Unknown keywords (Stateful)
        # and Python bools given for layers (``mask=tokens != x``) fail here, before
        # ``__init__``.
        obj: Layer = super().__new__(cls, *args, **kwargs)
        if any(type(v) is bool for v in (*args, *kwargs.values())):
            refuse_bool_layers(cls, args, kwargs)
        obj._tw_init_args = (args, kwargs)
        return obj

    def __init__(
        self,
        *inputs: Layer,
        shape: ShapeLike,
        dtype: tf.DType | str = tf.float32,
        sparse: bool = False,
        name: str | None = None,
        share_state_with: Layer | None = None,
    ) -> None:
        for position, layer in enumerate(inputs):
            if isinstance(layer, bool):
                raise ArgumentError(bool_for_layer(type(self).__name__, f"input {position}", layer))
            if not isinstance(layer, Layer):
                raise TypeError(
                    f"{type(self).__name__}: input {position} is a {type(layer).__name__}, "
                    "not a tensorweave Layer.\n  Fix: wrap values with tw.Input(...) or "
                    "tw.Lambda(fn, ...), or pass the layer that produces them."
                )
        full_name = name if name is not None else unique_name(snake_case(type(self).__name__))
        super().__init__(name=module_name(full_name.rsplit("/", 1)[-1]))
        self._tw_name = full_name
        self._tw_inputs = tuple(inputs)
        self._tw_graph: Any = None
        self._shape = normalize_shape(shape)
        self._dtype = as_dtype(dtype, "dtype", f"{type(self).__name__} {full_name!r}")
        self._sparse = bool(sparse)
        if share_state_with is not None:
            if not isinstance(share_state_with, type(self)) and not isinstance(
                self, type(share_state_with)
            ):
                raise TypeError(
                    f"{type(self).__name__} {full_name!r} cannot share the state of "
                    f"{type(share_state_with).__name__} {share_state_with.name!r}: "
                    "state is shared only between layers of the same class."
                )
            self.state: LayerState = share_state_with.state
        else:
            self.state = LayerState(full_name)
            with _variable_scope(full_name):  # variables read "linear_1/weights"
                self.init_state()
        self._tw_padding_mask = self.mask_rules.passed_on(self)

    # -- the contract subclasses fill in ------------------------------------------------
    def init_state(self) -> None:
        """Create this layer's variables on ``self.state`` (called once, when not shared)."""

    def compute(self, *tensors: Any) -> Any:
        """Apply this layer alone to input tensors, one per input, and return the output."""
        raise NotImplementedError(
            f"{type(self).__name__} does not implement compute(*tensors); "
            "every Layer subclass must."
        )

    def reuse_with(self, *inputs: Layer, **options: Any) -> Layer:
        """A new layer on ``inputs`` that shares this layer's state (the same variables).

        The default rebuilds the layer with the constructor arguments it was made with,
        the input layers swapped for ``inputs`` and ``options`` overriding keywords.
        Layers with per-use options (``training=``, ``transpose_weights=``…) accept them
        here.

        >>> import tensorflow as tf
        >>> import tensorweave as tw
        >>> x1, x2 = tw.Input(n_units=3), tw.Input(n_units=3)
        >>> a = tw.Lambda(tf.math.abs, x1)
        >>> b = a.reuse_with(x2)
        >>> b.inputs == (x2,) and b.state is a.state
        True
        """
        return rebuilt_on(self, inputs, options, node_type=Layer)

    # -- what every layer exposes -------------------------------------------------------
    @property
    def name(self) -> str:
        """The unique, readable name of this node (``scope/linear_1``)."""
        return self._tw_name

    @property
    def inputs(self) -> tuple[Layer, ...]:
        """The layers this layer reads, in ``compute`` order."""
        return self._tw_inputs

    @property
    def shape(self) -> Shape:
        """The output shape, ``None`` where a dimension is dynamic."""
        return self._shape

    @property
    def n_units(self) -> int | None:
        """The size of the last output dimension (``None`` for a scalar or unknown)."""
        return self._shape[-1] if self._shape else None

    @property
    def dtype(self) -> tf.DType:
        """The output dtype."""
        return self._dtype

    @property
    def compute_dtype(self) -> tf.DType:
        """The dtype this layer computes in now: under a mixed precision policy, inside
        ``compute``, the one its ``compute_precision`` gives (bfloat16 for most layers under
        ``mixed_bfloat16``); otherwise, and for layers of a non-float ``dtype``, ``dtype``.
        Use it for the float tensors ``compute`` makes (masks, constants)."""
        reading = reading_dtype()
        return reading if reading is not None and self._dtype.is_floating else self._dtype

    @property
    def sparse(self) -> bool:
        """Whether this layer outputs a ``tf.SparseTensor``."""
        return self._sparse

    @property
    def spec(self) -> tf.TensorSpec | tf.SparseTensorSpec:
        """The ``tf.TypeSpec`` of this layer's output."""
        if self._sparse:
            return tf.SparseTensorSpec(self._shape, self._dtype)
        return tf.TensorSpec(self._shape, self._dtype, name=module_name(self.name))

    @property
    def variables(self) -> tuple[tf.Variable, ...]:
        """This layer's own variables (its state), not those of the layers upstream."""
        return _unique(self.state.variables)

    @property
    def trainable_variables(self) -> tuple[tf.Variable, ...]:
        """This layer's own trainable variables (its state)."""
        return _unique(self.state.trainable_variables)

    @property
    def trainable(self) -> bool:
        """Whether this layer's variables train: ``False`` after ``freeze()`` (or
        ``layer.trainable = False``), as Keras's ``layer.trainable``.

        A frozen layer's variables are left out of ``trainable_variables`` here, in every
        ``Graph`` and ``Model`` that holds the layer (or a ``reuse_with`` of it: they share
        the state), so no optimizer updates them. Setting it sets every layer kept inside
        this one too (a ``Module``'s layers), as Keras does; a step compiled before the
        change must be traced again to see it (``Model.train`` does that by itself).

        >>> import tensorflow as tf, tensorweave as tw
        >>> x = tw.Input(n_units=2)
        >>> y = tw.Lambda(lambda a: a * v, x, variables=[v := tf.Variable(1.0)])
        >>> y.trainable = False
        >>> y.trainable, y.trainable_variables, len(y.variables)
        (False, (), 1)
        """
        return bool(self.state.trainable)

    @trainable.setter
    def trainable(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(
                f"{type(self).__name__} {self.name!r}: trainable must be True or False, got "
                f"{value!r}. Fix: layer.freeze() or layer.unfreeze()."
            )
        for module in (self.state, *self.state.submodules):
            if isinstance(module, LayerState):
                module.trainable = value

    def freeze(self) -> Layer:
        """Stop training this layer's variables (and those of the layers inside it);
        returns the layer, so ``tw.layers["Linear.v1"](x, 8).freeze()`` reads in one line.
        See ``trainable``.

        >>> import tensorflow as tf, tensorweave as tw
        >>> x = tw.Input(n_units=3, name="x")
        >>> w = tf.Variable(tf.ones([3, 2]))
        >>> inner = tw.Lambda(lambda a: a @ w, x, variables=[w])
        >>> body = tw.Module(x, inner).freeze()
        >>> body.trainable, inner.trainable, body.trainable_variables, len(body.variables)
        (False, False, (), 1)
        """
        self.trainable = False
        return self

    def unfreeze(self) -> Layer:
        """Train this layer's variables again (and those of the layers inside it);
        returns the layer. See ``trainable``."""
        self.trainable = True
        return self

    @property
    def padding_mask(self) -> Layer | None:
        """The node that marks the real steps of this one's output, or ``None``.

        A boolean layer shaped like this one's leading axes (``(batch, time)``), set by the
        layer that knows the padding (``self.padding_mask = node``) or passed on from the
        inputs by layers that set ``keeps_padding_mask``; layers that read padding use it
        unless given ``mask=``. See ``tensorweave.graph.masking``.
        """
        mask: Layer | None = self.__dict__.get("_tw_padding_mask")
        return mask

    @padding_mask.setter
    def padding_mask(self, mask: Layer | None) -> None:
        self._tw_padding_mask = self.mask_rules.checked(self, mask)

    def shares_state_with(self, other: Layer) -> bool:
        """Whether both layers use the same state object (made by ``reuse_with``)."""
        return self.state is other.state

    @property
    def graph(self) -> Any:
        """The ``tw.Graph`` that ends in this layer, from every ``Input`` upstream (cached)."""
        if self._tw_graph is None:
            self._tw_graph = self.graph_builder(inputs=None, outputs=self)
        return self._tw_graph

    def __call__(self, *values: Any) -> Any:
        """Run the graph that ends in this layer, eagerly.

        With no arguments the ``Input`` layers upstream supply their current ``value``;
        otherwise pass one value per input of ``self.graph.inputs``.
        """
        return self.graph.compute(*values)

    def __getattr__(self, item: str) -> Any:
        # ``layer.weights`` reads ``layer.state.weights``: the state is the layer's storage.
        if item.startswith("_") or "state" not in self.__dict__:
            raise AttributeError(item)
        try:
            return getattr(self.__dict__["state"], item)
        except AttributeError:
            raise AttributeError(
                f"{type(self).__name__} {self.__dict__['_tw_name']!r} has no attribute {item!r}"
            ) from None

    def __repr__(self) -> str:
        names = ", ".join(repr(i.name) for i in self.inputs)
        return f"{type(self).__name__}({self.name!r}, shape={self.shape}, inputs=[{names}])"


def _variable_scope(name: str) -> Any:
    """The scope of a layer's variables: ``weights`` reads ``encoder/linear_1/weights``."""
    try:
        return tf.name_scope(name + "/")
    except ValueError:
        return contextlib.nullcontext()


def _unique(variables: Iterable[tf.Variable]) -> tuple[tf.Variable, ...]:
    seen: dict[int, tf.Variable] = {}
    for v in variables:
        seen.setdefault(id(v), v)
    return tuple(seen.values())
