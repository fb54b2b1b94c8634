"""tensorweave-layers: the standard layer catalogue, registered by versioned name.

Use the layers by name through the core registry, e.g. ``tw.layers["Linear.v1"]``, or
import them (``from tensorweave_layers import Linear``). This pack also declares the
``activations`` and ``initializers`` kinds (``tensorweave_layers.kinds``). Importing the
package is cheap: each name's module is imported when the name is first used.

>>> import tensorweave as tw
>>> import tensorweave_layers as twl
>>> twl.Linear is tw.layers["Linear.v1"], "Linear" in twl.__all__
(True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:  # the lazily imported names, for type checkers
    from tensorweave_layers import activations, initializers, kinds
    from tensorweave_layers.activation import Activation
    from tensorweave_layers.add import Add, check_weights
    from tensorweave_layers.additive_attention import AdditiveAttention
    from tensorweave_layers.attention import MHAttention
    from tensorweave_layers.average import Average
    from tensorweave_layers.batch_norm import BatchNorm
    from tensorweave_layers.concat import Concat
    from tensorweave_layers.constant import Constant
    from tensorweave_layers.conv1d import Conv1D
    from tensorweave_layers.conv2d import Conv2D
    from tensorweave_layers.dot import Dot
    from tensorweave_layers.dot_product_attention import Attention
    from tensorweave_layers.drop_connect import DropConnect
    from tensorweave_layers.drop_lookup import DropLookup
    from tensorweave_layers.dropout import DropMask, Dropout
    from tensorweave_layers.einsum_dense import EinsumDense
    from tensorweave_layers.fc import FC
    from tensorweave_layers.gate import CoupledGate, Gate
    from tensorweave_layers.group_query_attention import GroupQueryAttention
    from tensorweave_layers.layer_norm import LayerNorm
    from tensorweave_layers.linear import Linear, dense_matmul
    from tensorweave_layers.lookup import Lookup
    from tensorweave_layers.maximum import Maximum
    from tensorweave_layers.merge import Merge
    from tensorweave_layers.minimum import Minimum
    from tensorweave_layers.multiply import Multiply
    from tensorweave_layers.onehot import OneHot
    from tensorweave_layers.param import Param
    from tensorweave_layers.pooling import (
        AvgPool1D,
        AvgPool2D,
        GlobalAvgPool,
        GlobalMaxPool,
        MaxPool1D,
        MaxPool2D,
        Pool,
    )
    from tensorweave_layers.position_embedding import PositionEmbedding
    from tensorweave_layers.reshape import Reshape
    from tensorweave_layers.residual import Residual
    from tensorweave_layers.reversible_embedding import ReversibleEmbedding
    from tensorweave_layers.rotary_embedding import RotaryEmbedding
    from tensorweave_layers.seq_concat import SeqConcat
    from tensorweave_layers.seq_map import SeqMap
    from tensorweave_layers.sinusoidal_position_embedding import SinusoidalPositionEmbedding
    from tensorweave_layers.sparse import ToDense, ToSparse
    from tensorweave_layers.subtract import Subtract
    from tensorweave_layers.transformer_decoder_block import TransformerDecoderBlock
    from tensorweave_layers.transformer_encoder_block import TransformerEncoderBlock
    from tensorweave_layers.transpose import Transpose

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first use (PEP 562): importing
# one submodule (an entry point's target, a hook module) never imports the whole pack.
_EXPORTS = {
    "Activation": "activation",
    "Add": "add",
    "MHAttention": "attention",
    "BatchNorm": "batch_norm",
    "Concat": "concat",
    "Constant": "constant",
    "Conv1D": "conv1d",
    "Conv2D": "conv2d",
    "DropConnect": "drop_connect",
    "DropLookup": "drop_lookup",
    "DropMask": "dropout",
    "Dropout": "dropout",
    "FC": "fc",
    "Gate": "gate",
    "CoupledGate": "gate",
    "LayerNorm": "layer_norm",
    "Linear": "linear",
    "Lookup": "lookup",
    "Merge": "merge",
    "Multiply": "multiply",
    "OneHot": "onehot",
    "Param": "param",
    "Pool": "pooling",
    "MaxPool1D": "pooling",
    "AvgPool1D": "pooling",
    "MaxPool2D": "pooling",
    "AvgPool2D": "pooling",
    "GlobalMaxPool": "pooling",
    "GlobalAvgPool": "pooling",
    "Reshape": "reshape",
    "Residual": "residual",
    "SeqConcat": "seq_concat",
    "SeqMap": "seq_map",
    "ToSparse": "sparse",
    "ToDense": "sparse",
    "Transpose": "transpose",
    "check_weights": "add",
    "dense_matmul": "linear",
    "activations": "activations",
    "initializers": "initializers",
    "kinds": "kinds",
    "AdditiveAttention": "additive_attention",
    "Attention": "dot_product_attention",
    "Average": "average",
    "Dot": "dot",
    "EinsumDense": "einsum_dense",
    "GroupQueryAttention": "group_query_attention",
    "Maximum": "maximum",
    "Minimum": "minimum",
    "PositionEmbedding": "position_embedding",
    "ReversibleEmbedding": "reversible_embedding",
    "RotaryEmbedding": "rotary_embedding",
    "SinusoidalPositionEmbedding": "sinusoidal_position_embedding",
    "Subtract": "subtract",
    "TransformerDecoderBlock": "transformer_decoder_block",
    "TransformerEncoderBlock": "transformer_encoder_block",
}

__all__ = [
    "Activation",
    "Add",
    "MHAttention",
    "BatchNorm",
    "Concat",
    "Constant",
    "Conv1D",
    "Conv2D",
    "DropConnect",
    "DropLookup",
    "DropMask",
    "Dropout",
    "FC",
    "Gate",
    "CoupledGate",
    "LayerNorm",
    "Linear",
    "Lookup",
    "Merge",
    "Multiply",
    "OneHot",
    "Param",
    "Pool",
    "MaxPool1D",
    "AvgPool1D",
    "MaxPool2D",
    "AvgPool2D",
    "GlobalMaxPool",
    "GlobalAvgPool",
    "Reshape",
    "Residual",
    "SeqConcat",
    "SeqMap",
    "ToSparse",
    "ToDense",
    "Transpose",
    "check_weights",
    "dense_matmul",
    "activations",
    "initializers",
    "kinds",
    "AdditiveAttention",
    "Attention",
    "Average",
    "Dot",
    "EinsumDense",
    "GroupQueryAttention",
    "Maximum",
    "Minimum",
    "PositionEmbedding",
    "ReversibleEmbedding",
    "RotaryEmbedding",
    "SinusoidalPositionEmbedding",
    "Subtract",
    "TransformerDecoderBlock",
    "TransformerEncoderBlock",
    "__version__",
]


__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
