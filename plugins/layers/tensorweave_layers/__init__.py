"""tensorweave-layers: the standard layer catalogue, registered by versioned name.

Use the layers by name through the core registry, e.g. ``tw.layers["Linear.v1"]``, or
import them (``from tensorweave_layers import Linear``). This pack also declares the
``activations``, ``initializers``, ``regularizers`` and ``constraints`` kinds
(``tensorweave_layers.options.kinds``). Importing the package is cheap: each name's module is
imported when the name is first used.

>>> import tensorweave as tw
>>> import tensorweave_layers as twl
>>> twl.Linear is tw.layers["Linear.v1"], "Linear" in twl.__all__
(True, True)
"""

from __future__ import annotations

import tensorweave as tw

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first use (PEP 562): importing
# one submodule (an entry point's target, a hook module) never imports the whole pack.
_EXPORTS = {
    # dense
    "FC": "dense.fc",
    "Linear": "dense.linear",
    "dense_matmul": "dense.linear",
    "EinsumDense": "dense.einsum_dense",
    # core
    "Activation": "core.activation",
    "PReLU": "core.prelu",
    "Constant": "core.constant",
    "OneHot": "core.onehot",
    "Param": "core.param",
    "ToSparse": "core.sparse",
    "ToDense": "core.sparse",
    # merge
    "Add": "merge.add",
    "Concat": "merge.concat",
    "Gate": "merge.gate",
    "CoupledGate": "merge.gate",
    "Merge": "merge.merge",
    "Multiply": "merge.elementwise",
    "Residual": "merge.residual",
    "check_weights": "merge.add",
    "Average": "merge.elementwise",
    "Dot": "merge.dot",
    "Maximum": "merge.elementwise",
    "Minimum": "merge.elementwise",
    "Subtract": "merge.elementwise",
    # conv
    "Conv1D": "conv.conv",
    "Conv2D": "conv.conv",
    "Conv3D": "conv.conv",
    "Conv1DTranspose": "conv.transposed",
    "Conv2DTranspose": "conv.transposed",
    "Conv3DTranspose": "conv.transposed",
    "DepthwiseConv2D": "conv.depthwise",
    "SeparableConv1D": "conv.separable",
    "SeparableConv2D": "conv.separable",
    # pooling
    "Pool": "pooling.pool",
    "MaxPool1D": "pooling.pool",
    "AvgPool1D": "pooling.pool",
    "MaxPool2D": "pooling.pool",
    "AvgPool2D": "pooling.pool",
    "MaxPool3D": "pooling.pool",
    "AvgPool3D": "pooling.pool",
    "AdaptiveAvgPool2D": "pooling.adaptive",
    "AdaptiveMaxPool2D": "pooling.adaptive",
    "GlobalMaxPool": "pooling.pool",
    "GlobalAvgPool": "pooling.pool",
    # preprocessing (issue #36)
    "AdaptError": "preprocessing._adapt",
    "Normalization": "preprocessing.normalization",
    "Rescaling": "preprocessing.rescaling",
    "Discretization": "preprocessing.discretization",
    "StringLookup": "preprocessing.lookup",
    "IntegerLookup": "preprocessing.lookup",
    "CategoryEncoding": "preprocessing.category_encoding",
    "Hashing": "preprocessing.hashing",
    "RandomFlip": "preprocessing.augment",
    "RandomContrast": "preprocessing.augment",
    "RandomBrightness": "preprocessing.augment",
    "Resizing": "preprocessing.image",
    "CenterCrop": "preprocessing.image",
    "RandomRotation": "preprocessing.geometric",
    "RandomZoom": "preprocessing.geometric",
    "RandomTranslation": "preprocessing.geometric",
    "RandomCrop": "preprocessing.geometric",
    "TextVectorization": "preprocessing.text",
    # norm
    "BatchNorm": "norm.batch_norm",
    "LayerNorm": "norm.layer_norm",
    "LocalResponseNorm": "norm.local_response_norm",
    "GroupNorm": "norm.group_norm",
    "InstanceNorm": "norm.group_norm",
    "RMSNorm": "norm.rms_norm",
    "SpectralNorm": "norm.spectral_norm",
    # dropout
    "DropConnect": "dropout.drop_connect",
    "DropLookup": "dropout.drop_lookup",
    "SpatialDropout1D": "dropout.spatial",
    "SpatialDropout2D": "dropout.spatial",
    "SpatialDropout3D": "dropout.spatial",
    "GaussianNoise": "dropout.noise",
    "GaussianDropout": "dropout.noise",
    "AlphaDropout": "dropout.noise",
    "DropMask": "dropout.dropout",
    "Dropout": "dropout.dropout",
    # attention
    "MHAttention": "attention.multi_head",
    "AdditiveAttention": "attention.additive",
    "Attention": "attention.dot_product",
    "GroupQueryAttention": "attention.group_query",
    "TransformerDecoderBlock": "attention.transformer",
    "TransformerEncoderBlock": "attention.transformer",
    # embedding
    "Lookup": "embedding.lookup",
    "PositionEmbedding": "embedding.position",
    "ReversibleEmbedding": "embedding.reversible",
    "RotaryEmbedding": "embedding.rotary",
    "SinusoidalPositionEmbedding": "embedding.sinusoidal",
    # reshape
    "Reshape": "reshape.reshape",
    "Transpose": "reshape.transpose",
    "Flatten": "reshape.flatten",
    "RepeatVector": "reshape.repeat_vector",
    "UpSampling1D": "reshape.up_sampling",
    "UpSampling2D": "reshape.up_sampling",
    "UpSampling3D": "reshape.up_sampling",
    "Pad": "reshape.pad",
    "ZeroPadding1D": "reshape.zero_padding",
    "ZeroPadding2D": "reshape.zero_padding",
    "ZeroPadding3D": "reshape.zero_padding",
    "Cropping1D": "reshape.cropping",
    "Cropping2D": "reshape.cropping",
    "Cropping3D": "reshape.cropping",
    "DepthToSpace": "reshape.depth_to_space",
    # sequence
    "SeqConcat": "sequence.seq_concat",
    "SeqMap": "sequence.seq_map",
    # options
    "WeightOptions": "options.weights",
    "activations": "options.activations",
    "initializers": "options.initializers",
    "regularizers": "options.regularizers",
    "constraints": "options.constraints",
    "kinds": "options.kinds",
}

__all__ = [*_EXPORTS, "__version__"]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
