"""tensorweave-layers: the standard layer catalogue, registered by versioned name.

Use the layers by name through the core registry, e.g. ``tw.layers["Linear.v1"]``, or
import them (``from tensorweave_layers import Linear``). This pack also declares the
``activations``, ``initializers``, ``regularizers`` and ``constraints`` kinds
(``tensorweave_layers.kinds``). Importing the package is cheap: each name's module is
imported when the name is first used.

>>> import tensorweave as tw
>>> import tensorweave_layers as twl
>>> twl.Linear is tw.layers["Linear.v1"], "Linear" in twl.__all__
(True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:  # the lazily imported names, for type checkers
    from tensorweave_layers import activations, constraints, initializers, kinds, regularizers
    from tensorweave_layers._weights import WeightOptions
    from tensorweave_layers.activation import Activation
    from tensorweave_layers.adaptive_avg_pool2d import AdaptiveAvgPool2D
    from tensorweave_layers.adaptive_max_pool2d import AdaptiveMaxPool2D
    from tensorweave_layers.add import Add, check_weights
    from tensorweave_layers.additive_attention import AdditiveAttention
    from tensorweave_layers.alpha_dropout import AlphaDropout
    from tensorweave_layers.attention import MHAttention
    from tensorweave_layers.average import Average
    from tensorweave_layers.avg_pool3d import AvgPool3D
    from tensorweave_layers.batch_norm import BatchNorm
    from tensorweave_layers.concat import Concat
    from tensorweave_layers.constant import Constant
    from tensorweave_layers.conv1d import Conv1D
    from tensorweave_layers.conv1d_transpose import Conv1DTranspose
    from tensorweave_layers.conv2d import Conv2D
    from tensorweave_layers.conv2d_transpose import Conv2DTranspose
    from tensorweave_layers.conv3d import Conv3D
    from tensorweave_layers.conv3d_transpose import Conv3DTranspose
    from tensorweave_layers.cropping1d import Cropping1D
    from tensorweave_layers.cropping2d import Cropping2D
    from tensorweave_layers.cropping3d import Cropping3D
    from tensorweave_layers.depth_to_space import DepthToSpace
    from tensorweave_layers.depthwise_conv2d import DepthwiseConv2D
    from tensorweave_layers.dot import Dot
    from tensorweave_layers.dot_product_attention import Attention
    from tensorweave_layers.drop_connect import DropConnect
    from tensorweave_layers.drop_lookup import DropLookup
    from tensorweave_layers.dropout import DropMask, Dropout
    from tensorweave_layers.einsum_dense import EinsumDense
    from tensorweave_layers.fc import FC
    from tensorweave_layers.flatten import Flatten
    from tensorweave_layers.gate import CoupledGate, Gate
    from tensorweave_layers.gaussian_dropout import GaussianDropout
    from tensorweave_layers.gaussian_noise import GaussianNoise
    from tensorweave_layers.group_norm import GroupNorm
    from tensorweave_layers.group_query_attention import GroupQueryAttention
    from tensorweave_layers.instance_norm import InstanceNorm
    from tensorweave_layers.layer_norm import LayerNorm
    from tensorweave_layers.linear import Linear, dense_matmul
    from tensorweave_layers.local_response_norm import LocalResponseNorm
    from tensorweave_layers.lookup import Lookup
    from tensorweave_layers.max_pool3d import MaxPool3D
    from tensorweave_layers.maximum import Maximum
    from tensorweave_layers.merge import Merge
    from tensorweave_layers.minimum import Minimum
    from tensorweave_layers.multiply import Multiply
    from tensorweave_layers.onehot import OneHot
    from tensorweave_layers.pad import Pad
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
    from tensorweave_layers.prelu import PReLU
    from tensorweave_layers.repeat_vector import RepeatVector
    from tensorweave_layers.reshape import Reshape
    from tensorweave_layers.residual import Residual
    from tensorweave_layers.resize import Resize
    from tensorweave_layers.reversible_embedding import ReversibleEmbedding
    from tensorweave_layers.rms_norm import RMSNorm
    from tensorweave_layers.rotary_embedding import RotaryEmbedding
    from tensorweave_layers.separable_conv1d import SeparableConv1D
    from tensorweave_layers.separable_conv2d import SeparableConv2D
    from tensorweave_layers.seq_concat import SeqConcat
    from tensorweave_layers.seq_map import SeqMap
    from tensorweave_layers.sinusoidal_position_embedding import SinusoidalPositionEmbedding
    from tensorweave_layers.sparse import ToDense, ToSparse
    from tensorweave_layers.spatial_dropout1d import SpatialDropout1D
    from tensorweave_layers.spatial_dropout2d import SpatialDropout2D
    from tensorweave_layers.spatial_dropout3d import SpatialDropout3D
    from tensorweave_layers.spectral_norm import SpectralNorm
    from tensorweave_layers.subtract import Subtract
    from tensorweave_layers.transformer_decoder_block import TransformerDecoderBlock
    from tensorweave_layers.transformer_encoder_block import TransformerEncoderBlock
    from tensorweave_layers.transpose import Transpose
    from tensorweave_layers.up_sampling1d import UpSampling1D
    from tensorweave_layers.up_sampling2d import UpSampling2D
    from tensorweave_layers.up_sampling3d import UpSampling3D
    from tensorweave_layers.zero_padding1d import ZeroPadding1D
    from tensorweave_layers.zero_padding2d import ZeroPadding2D
    from tensorweave_layers.zero_padding3d import ZeroPadding3D

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first use (PEP 562): importing
# one submodule (an entry point's target, a hook module) never imports the whole pack.
_EXPORTS = {
    "Activation": "activation",
    "PReLU": "prelu",
    "Add": "add",
    "MHAttention": "attention",
    "BatchNorm": "batch_norm",
    "Concat": "concat",
    "Constant": "constant",
    "Conv1D": "conv1d",
    "Conv2D": "conv2d",
    "Conv3D": "conv3d",
    "Conv1DTranspose": "conv1d_transpose",
    "Conv2DTranspose": "conv2d_transpose",
    "Conv3DTranspose": "conv3d_transpose",
    "DepthwiseConv2D": "depthwise_conv2d",
    "SeparableConv1D": "separable_conv1d",
    "SeparableConv2D": "separable_conv2d",
    "DropConnect": "drop_connect",
    "DropLookup": "drop_lookup",
    "SpatialDropout1D": "spatial_dropout1d",
    "SpatialDropout2D": "spatial_dropout2d",
    "SpatialDropout3D": "spatial_dropout3d",
    "GaussianNoise": "gaussian_noise",
    "GaussianDropout": "gaussian_dropout",
    "AlphaDropout": "alpha_dropout",
    "DropMask": "dropout",
    "Dropout": "dropout",
    "FC": "fc",
    "Gate": "gate",
    "CoupledGate": "gate",
    "LayerNorm": "layer_norm",
    "LocalResponseNorm": "local_response_norm",
    "GroupNorm": "group_norm",
    "InstanceNorm": "instance_norm",
    "RMSNorm": "rms_norm",
    "SpectralNorm": "spectral_norm",
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
    "MaxPool3D": "max_pool3d",
    "AvgPool3D": "avg_pool3d",
    "AdaptiveAvgPool2D": "adaptive_avg_pool2d",
    "AdaptiveMaxPool2D": "adaptive_max_pool2d",
    "GlobalMaxPool": "pooling",
    "GlobalAvgPool": "pooling",
    "Reshape": "reshape",
    "Residual": "residual",
    "SeqConcat": "seq_concat",
    "SeqMap": "seq_map",
    "ToSparse": "sparse",
    "ToDense": "sparse",
    "Transpose": "transpose",
    "Flatten": "flatten",
    "RepeatVector": "repeat_vector",
    "UpSampling1D": "up_sampling1d",
    "UpSampling2D": "up_sampling2d",
    "UpSampling3D": "up_sampling3d",
    "Resize": "resize",
    "Pad": "pad",
    "ZeroPadding1D": "zero_padding1d",
    "ZeroPadding2D": "zero_padding2d",
    "ZeroPadding3D": "zero_padding3d",
    "Cropping1D": "cropping1d",
    "Cropping2D": "cropping2d",
    "Cropping3D": "cropping3d",
    "DepthToSpace": "depth_to_space",
    "check_weights": "add",
    "dense_matmul": "linear",
    "WeightOptions": "_weights",
    "activations": "activations",
    "initializers": "initializers",
    "regularizers": "regularizers",
    "constraints": "constraints",
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
    "PReLU",
    "Add",
    "MHAttention",
    "BatchNorm",
    "Concat",
    "Constant",
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "Conv1DTranspose",
    "Conv2DTranspose",
    "Conv3DTranspose",
    "DepthwiseConv2D",
    "SeparableConv1D",
    "SeparableConv2D",
    "DropConnect",
    "DropLookup",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "SpatialDropout3D",
    "GaussianNoise",
    "GaussianDropout",
    "AlphaDropout",
    "DropMask",
    "Dropout",
    "FC",
    "Gate",
    "CoupledGate",
    "LayerNorm",
    "LocalResponseNorm",
    "GroupNorm",
    "InstanceNorm",
    "RMSNorm",
    "SpectralNorm",
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
    "MaxPool3D",
    "AvgPool3D",
    "AdaptiveAvgPool2D",
    "AdaptiveMaxPool2D",
    "GlobalMaxPool",
    "GlobalAvgPool",
    "Reshape",
    "Residual",
    "SeqConcat",
    "SeqMap",
    "ToSparse",
    "ToDense",
    "Transpose",
    "Flatten",
    "RepeatVector",
    "UpSampling1D",
    "UpSampling2D",
    "UpSampling3D",
    "Resize",
    "Pad",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "ZeroPadding3D",
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "DepthToSpace",
    "check_weights",
    "dense_matmul",
    "WeightOptions",
    "activations",
    "initializers",
    "regularizers",
    "constraints",
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
