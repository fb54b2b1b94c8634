"""The names people know from Keras 3 and TensorLayer, and this pack's component for each.

Read by tensorweave only when a lookup fails (``Dense.v1`` -> ``FC.v1``) or ``tensorweave
describe`` asks; declared in ``pyproject.toml`` (``tensorweave.counterparts``). ``keras=``
names the Keras 3 API a component's parity test compares it with; ``also=`` names others
that mean the same (not tested side by side). Light on purpose: no TensorFlow.

>>> sum(1 for row in COUNTERPARTS if row.component == "Conv2DTranspose.v1")
1
"""

from __future__ import annotations

import tensorweave as tw
from tensorweave.registries.counterparts import Difference

__all__ = ["COUNTERPARTS", "PREPROCESSING"]

C = tw.Counterpart
K = "keras.layers."
TL = "tensorlayer.layers."


def _keras(component: str, keras_name: str, *also: str) -> tw.Counterpart:
    return C(component, keras=K + keras_name, also=also)


def _also(component: str, *names: str, kind: str = "layers", usage: str = "") -> tw.Counterpart:
    return C(component, also=names, kind=kind, usage=usage)


#: what ``describe MixUp`` and the other preprocessing layers not built yet answer
PREPROCESSING_NOTE = "not available yet: see issue #36 (preprocessing layers)"
#: Keras's preprocessing and augmentation layers that are not components yet (issue #36)
PREPROCESSING = (
    "AugMix", "AutoContrast",
    "ContrastLimitedAdaptiveHistogramEqualization", "CutMix", "Equalization",
    "HashedCrossing", "MaxNumBoundingBoxes", "MelSpectrogram",
    "MixUp", "RandAugment", "RandomColorDegeneration",
    "RandomColorJitter", "RandomElasticTransform",
    "RandomErasing", "RandomGaussianBlur", "RandomGrayscale", "RandomHue",
    "RandomInvert", "RandomPerspective", "RandomPosterization",
    "RandomSaturation", "RandomSharpness", "RandomShear",
    "STFTSpectrogram", "Solarization",
)  # fmt: skip

COUNTERPARTS = (
    # dense, merge, structure, embedding
    _keras("FC.v1", "Dense", TL + "Dense"),
    _also("Linear.v1", K + "Dense", TL + "Dense"),
    _also("Activation.v1", K + "Activation"),
    _also("Add.v1", K + "Add", TL + "Elementwise"),
    _also("Multiply.v1", K + "Multiply"),
    _also("Concat.v1", K + "Concatenate", TL + "Concat"),
    _also("Reshape.v1", K + "Reshape", TL + "Reshape"),
    _also("Transpose.v1", K + "Permute", TL + "Transpose"),
    _also("OneHot.v1", TL + "OneHot"),
    _also("Lookup.v1", K + "Embedding", TL + "Embedding"),
    _also("Lambda.v1", K + "Lambda", TL + "Lambda"),
    _also("SeqMap.v1", K + "TimeDistributed"),
    _also("Dropout.v1", K + "Dropout", TL + "Dropout"),
    # convolution and pooling
    _keras("Conv1D.v1", "Conv1D", K + "Convolution1D", TL + "Conv1d"),
    _keras("Conv2D.v1", "Conv2D", K + "Convolution2D", TL + "Conv2d"),
    _keras("MaxPool1D.v1", "MaxPooling1D", K + "MaxPool1D", TL + "MaxPool1d"),
    _keras("MaxPool2D.v1", "MaxPooling2D", K + "MaxPool2D", TL + "MaxPool2d"),
    _keras("AvgPool1D.v1", "AveragePooling1D", K + "AvgPool1D", TL + "MeanPool1d"),
    _keras("AvgPool2D.v1", "AveragePooling2D", K + "AvgPool2D", TL + "MeanPool2d"),
    _also(
        "GlobalMaxPool.v1",
        K + "GlobalMaxPooling1D",
        K + "GlobalMaxPooling2D",
        K + "GlobalMaxPool1D",
        K + "GlobalMaxPool2D",
        TL + "GlobalMaxPool1d",
        TL + "GlobalMaxPool2d",
    ),
    _also(
        "GlobalAvgPool.v1",
        K + "GlobalAveragePooling1D",
        K + "GlobalAveragePooling2D",
        K + "GlobalAvgPool1D",
        K + "GlobalAvgPool2D",
        TL + "GlobalMeanPool1d",
        TL + "GlobalMeanPool2d",
    ),
    # normalization, attention
    _keras("BatchNorm.v1", "BatchNormalization", TL + "BatchNorm"),
    _keras("LayerNorm.v1", "LayerNormalization", TL + "LayerNorm"),
    _keras("MHAttention.v1", "MultiHeadAttention", TL + "MultiHeadAttention"),
    # 3D, transposed, depthwise and separable convolutions
    _keras("Conv3D.v1", "Conv3D", K + "Convolution3D", TL + "Conv3dLayer"),
    _keras(
        "Conv1DTranspose.v1", "Conv1DTranspose", K + "Convolution1DTranspose", TL + "DeConv1dLayer"
    ),
    _keras("Conv2DTranspose.v1", "Conv2DTranspose", K + "Convolution2DTranspose", TL + "DeConv2d"),
    _keras("Conv3DTranspose.v1", "Conv3DTranspose", K + "Convolution3DTranspose", TL + "DeConv3d"),
    _keras("DepthwiseConv2D.v1", "DepthwiseConv2D", TL + "DepthwiseConv2d"),
    _keras(
        "SeparableConv1D.v1",
        "SeparableConv1D",
        K + "SeparableConvolution1D",
        TL + "SeparableConv1d",
    ),
    _keras(
        "SeparableConv2D.v1",
        "SeparableConv2D",
        K + "SeparableConvolution2D",
        TL + "SeparableConv2d",
    ),
    # pooling
    _keras("MaxPool3D.v1", "MaxPooling3D", K + "MaxPool3D", TL + "MaxPool3d"),
    _keras("AvgPool3D.v1", "AveragePooling3D", K + "AvgPool3D", TL + "MeanPool3d"),
    _keras("AdaptiveAvgPool2D.v1", "AdaptiveAveragePooling2D", "torch.nn.AdaptiveAvgPool2d"),
    _keras("AdaptiveMaxPool2D.v1", "AdaptiveMaxPooling2D", "torch.nn.AdaptiveMaxPool2d"),
    # shape and resampling
    _keras("Flatten.v1", "Flatten", TL + "Flatten"),
    _keras("RepeatVector.v1", "RepeatVector"),
    _keras("UpSampling1D.v1", "UpSampling1D"),
    _keras("UpSampling2D.v1", "UpSampling2D", TL + "UpSampling2d"),
    _keras("UpSampling3D.v1", "UpSampling3D"),
    _keras("ZeroPadding1D.v1", "ZeroPadding1D", TL + "ZeroPad1d"),
    _keras("ZeroPadding2D.v1", "ZeroPadding2D", TL + "ZeroPad2d"),
    _keras("ZeroPadding3D.v1", "ZeroPadding3D", TL + "ZeroPad3d"),
    _also("Pad.v1", TL + "PadLayer", "tensorflow.pad"),
    _keras("Cropping1D.v1", "Cropping1D"),
    _keras("Cropping2D.v1", "Cropping2D"),
    _keras("Cropping3D.v1", "Cropping3D"),
    _also(
        "DepthToSpace.v1",
        TL + "SubpixelConv2d",
        TL + "SubpixelConv1d",
        "tensorflow.nn.depth_to_space",
    ),
    # normalization
    _keras("GroupNorm.v1", "GroupNormalization", TL + "GroupNorm"),
    _also("InstanceNorm.v1", TL + "InstanceNorm", TL + "InstanceNorm2d"),
    _keras("RMSNorm.v1", "RMSNormalization"),
    _keras("SpectralNorm.v1", "SpectralNormalization"),
    _also("LocalResponseNorm.v1", TL + "LocalResponseNormLayer", TL + "LocalResponseNorm"),
    # noise and dropout
    _keras("SpatialDropout1D.v1", "SpatialDropout1D"),
    _keras("SpatialDropout2D.v1", "SpatialDropout2D"),
    _keras("SpatialDropout3D.v1", "SpatialDropout3D"),
    _keras("GaussianNoise.v1", "GaussianNoise", TL + "GaussianNoise"),
    _keras("GaussianDropout.v1", "GaussianDropout"),
    _keras("AlphaDropout.v1", "AlphaDropout"),
    _keras("PReLU.v1", "PReLU", TL + "PRelu"),
    # attention, embeddings, transformers
    _keras("EinsumDense.v1", "EinsumDense"),
    _keras("Attention.v1", "Attention"),
    _keras("AdditiveAttention.v1", "AdditiveAttention"),
    _keras("GroupQueryAttention.v1", "GroupQueryAttention"),
    _also("PositionEmbedding.v1", "keras_hub.layers.PositionEmbedding"),
    _also("SinusoidalPositionEmbedding.v1", "keras_hub.layers.SinePositionEncoding"),
    _also("RotaryEmbedding.v1", "keras_hub.layers.RotaryEmbedding"),
    _also("ReversibleEmbedding.v1", "keras_hub.layers.ReversibleEmbedding"),
    _also("TransformerEncoderBlock.v1", "keras_hub.layers.TransformerEncoder"),
    _also("TransformerDecoderBlock.v1", "keras_hub.layers.TransformerDecoder"),
    # merging
    _keras("Dot.v1", "Dot"),
    _keras("Subtract.v1", "Subtract"),
    _keras("Average.v1", "Average"),
    _keras("Maximum.v1", "Maximum"),
    _keras("Minimum.v1", "Minimum"),
    # activations: Keras's names where they differ from ours, and the new ones
    _also("identity.v1", "keras.activations.linear", kind="activations"),
    _also("swish.v1", "keras.activations.silu", kind="activations"),
    *(
        C(f"{name}.v1", keras=f"keras.activations.{name}", kind="activations")
        for name in ("mish", "silu", "hard_swish", "glu", "log_sigmoid", "hard_tanh", "celu")
    ),
    # initializers
    _also("normal.v1", "keras.initializers.RandomNormal", kind="initializers"),
    _also("uniform.v1", "keras.initializers.RandomUniform", kind="initializers"),
    _also("identity.v1", "keras.initializers.Identity", kind="initializers"),
    C("truncated_normal.v1", keras="keras.initializers.TruncatedNormal", kind="initializers"),
    C("lecun_normal.v1", keras="keras.initializers.LecunNormal", kind="initializers"),
    C("lecun_uniform.v1", keras="keras.initializers.LecunUniform", kind="initializers"),
    C("variance_scaling.v1", keras="keras.initializers.VarianceScaling", kind="initializers"),
    # regularizers and constraints
    C("l1.v1", keras="keras.regularizers.L1", kind="regularizers"),
    C("l2.v1", keras="keras.regularizers.L2", kind="regularizers"),
    C(
        "l1_l2.v1",
        keras="keras.regularizers.L1L2",
        kind="regularizers",
        differs=(
            Difference(
                "l1, l2",
                "0.01, 0.01",
                "0.0, 0.0",
                'as Keras\'s `"l1_l2"` string and `keras.regularizers.l1_l2()` (0.01 each): '
                "a regularizer named without options regularizes",
            ),
        ),
    ),
    C("orthogonal.v1", keras="keras.regularizers.OrthogonalRegularizer", kind="regularizers"),
    C("max_norm.v1", keras="keras.constraints.MaxNorm", kind="constraints"),
    C("min_max_norm.v1", keras="keras.constraints.MinMaxNorm", kind="constraints"),
    C("non_neg.v1", keras="keras.constraints.NonNeg", kind="constraints"),
    C("unit_norm.v1", keras="keras.constraints.UnitNorm", kind="constraints"),
    # Keras layers that are an activation here
    *(
        C("Activation.v1", also=(K + name,), usage=f'activation="{act}"')
        for name, act in (
            ("ReLU", "relu"),
            ("LeakyReLU", "leaky_relu"),
            ("ELU", "elu"),
            ("Softmax", "softmax"),
        )
    ),
    _also("GlobalAvgPool.v1", K + "GlobalAveragePooling3D", K + "GlobalAvgPool3D"),
    _also("GlobalMaxPool.v1", K + "GlobalMaxPooling3D", K + "GlobalMaxPool3D"),
    *(
        C("KerasLayer.v1", also=(K + name,), usage=f"layer=keras.layers.{name}(...)")
        for name in ("TFSMLayer", "JaxLayer", "FlaxLayer", "TorchModuleWrapper", "Wrapper")
    ),
    # Keras names with no component: what to write instead
    *(
        C("", also=(K + name,), note=note)
        for name, note in (
            ("Input", "tw.Input(shape=...) (one example's shape, as keras.Input)"),
            ("InputLayer", "tw.Input(shape=...) (one example's shape, as keras.Input)"),
            ("InputSpec", "not needed: tw.Input(shape=...) carries the shape"),
            ("Layer", "subclass tw.Layer (see CONTRIBUTING.md) or wrap it: KerasLayer.v1"),
            ("Masking", "Lookup.v1 with mask_zero=True, or RNN.v1 with lengths= or mask="),
            ("ActivityRegularization", "not available yet: add the penalty as a loss node"),
            ("UnitNormalization", "not available yet: tw.Lambda.v1 of tf.math.l2_normalize"),
            ("DepthwiseConv1D", "not available yet: DepthwiseConv2D.v1 is the 2-d one"),
            ("ConvLSTM1D", "not available yet: ConvLSTM2D.v1 is the 2-d one"),
            ("ConvLSTM3D", "not available yet: ConvLSTM2D.v1 is the 2-d one"),
            ("AdaptiveAveragePooling1D", "not available yet: AdaptiveAvgPool2D.v1 is the 2-d one"),
            ("AdaptiveAveragePooling3D", "not available yet: AdaptiveAvgPool2D.v1 is the 2-d one"),
            ("AdaptiveMaxPooling1D", "not available yet: AdaptiveMaxPool2D.v1 is the 2-d one"),
            ("AdaptiveMaxPooling3D", "not available yet: AdaptiveMaxPool2D.v1 is the 2-d one"),
        )
    ),
    # preprocessing (issue #36)
    _keras("Normalization.v1", "Normalization"),
    _keras("Rescaling.v1", "Rescaling"),
    _keras("Discretization.v1", "Discretization"),
    _keras("StringLookup.v1", "StringLookup"),
    _keras("IntegerLookup.v1", "IntegerLookup"),
    _keras("CategoryEncoding.v1", "CategoryEncoding"),
    _keras("Hashing.v1", "Hashing"),
    _keras("RandomFlip.v1", "RandomFlip"),
    _keras("RandomContrast.v1", "RandomContrast"),
    _keras("RandomBrightness.v1", "RandomBrightness"),
    _keras("Resizing.v1", "Resizing"),
    _keras("CenterCrop.v1", "CenterCrop"),
    _keras("RandomRotation.v1", "RandomRotation"),
    _keras("RandomZoom.v1", "RandomZoom"),
    _keras("RandomTranslation.v1", "RandomTranslation"),
    _keras("RandomCrop.v1", "RandomCrop"),
    _keras("TextVectorization.v1", "TextVectorization"),
    *(C("", also=(K + name,), note=PREPROCESSING_NOTE) for name in PREPROCESSING),
)
