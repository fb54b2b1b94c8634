"""The graph kernel: layers as stateful functions, wired into graphs, compiled to one function.

- ``layer``: ``Layer`` (several inputs, one output, state shared by ``reuse_with``);
  ``layer_state``: ``LayerState``, where its variables (and their regularizers) live, and
  ``regularization_loss``; ``stateful``: ``Stateful``, the tracking rule they follow;
  ``reuse``: the default ``reuse_with`` (a layer rebuilt from its constructor arguments);
  ``layer_operators``: ``a + b`` on layers builds a node, ``==`` keeps identity;
  ``shapes``: ``Shape`` and ``normalize_shape``;
- ``input``: ``Input``; ``lambda_layer``: ``Lambda``; ``module``: ``Module``;
- ``graph``: ``Graph`` (validated, dependency-ordered, with the one executor ``run``);
- ``compile``: ``compile``, one ``tf.function`` over ``Graph.run``;
- ``lift``: ``lift``, the one way a function of tensors becomes a node (``Lifted``);
- ``ops``: operators on layers and any public TensorFlow op by name;
- ``masking``: padding masks, the nodes that mark a sequence's real steps
  (``Layer.padding_mask``), made, passed on and used without wiring them by hand;
- ``transform``: ``with_options``, a graph with a per-use option (``training=False``) set
  on every layer that takes it (how a training graph gives its inference graph);
- ``precision``: ``Precision``, mixed precision policies (float32 variables, layers
  computing in bfloat16 or float16, the layers that declare it in float32);
- ``naming``: scoped automatic names (pictures of graphs and the table of layers are in
  ``tensorweave.drawing``);
- ``kinds``: the ``layers`` kind the core declares.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> tw.compile(x * 3.0)([[1.0, 2.0]]).numpy().tolist()
[[3.0, 6.0]]
"""

from tensorweave.graph import masking, ops
from tensorweave.graph.compile import CompiledGraph, compile
from tensorweave.graph.graph import Graph
from tensorweave.graph.input import Input
from tensorweave.graph.lambda_layer import Lambda
from tensorweave.graph.layer import Layer, LayerState, normalize_shape
from tensorweave.graph.layer_state import Penalty, regularization_loss
from tensorweave.graph.lift import Lifted, lift
from tensorweave.graph.module import Module
from tensorweave.graph.naming import name_scope, reset_names
from tensorweave.graph.ops import op
from tensorweave.graph.precision import Precision
from tensorweave.graph.stateful import Stateful
from tensorweave.graph.transform import takes_option, with_options

__all__ = [
    "CompiledGraph",
    "Graph",
    "Input",
    "Lambda",
    "Layer",
    "LayerState",
    "Lifted",
    "Module",
    "Stateful",
    "compile",
    "lift",
    "masking",
    "name_scope",
    "normalize_shape",
    "op",
    "ops",
    "Penalty",
    "Precision",
    "regularization_loss",
    "reset_names",
    "takes_option",
    "with_options",
]

# What every layer builds with the modules built on it (they import Layer, so it cannot
# import them): passed in here, once, explicitly.
Layer.use(graph_builder=Graph.build, mask_rules=masking, operator_nodes=ops)
