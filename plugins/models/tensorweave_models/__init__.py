"""tensorweave-models: architectures by name (the ``models`` kind).

Each builder takes its input (a ``tw.Layer``, or one example's shape) and options and
returns a ``tw.Module``: ``tw.models["ResNet50.v1"]((224, 224, 3), classes=10)``, or a
config node ``{ "@models" = "ResNet18.v1", inputs = ["x"], classes = 10 }``. The image
classifiers match ``keras.applications`` parameter for parameter, and ``from_keras`` (or a
builder's ``weights=`` file) loads a Keras model's weights. Importing the package is
cheap: each name's module is imported when the name is first used.

>>> import tensorweave as tw
>>> import tensorweave_models as twm
>>> twm.ResNet50 is tw.models["ResNet50.v1"], "from_keras" in twm.__all__
(True, True)
"""

from __future__ import annotations

import tensorweave as tw

# Public name -> the submodule that defines it, imported on first use (PEP 562).
_EXPORTS = {
    "ResNet18": "resnet",
    "ResNet34": "resnet",
    "ResNet50": "resnet",
    "ResNet101": "resnet",
    "MobileNetV2": "mobilenet_v2",
    "VGG16": "vgg16",
    "ConvNeXtTiny": "convnext",
    "EfficientNetV2B0": "efficientnet_v2",
    "UNet": "unet",
    "TransformerLM": "transformer_lm",
    "TransformerClassifier": "transformer_classifier",
    "Seq2Seq": "seq2seq",
    "DCGANGenerator": "dcgan",
    "DCGANDiscriminator": "dcgan",
    "VAE": "vae",
    "from_keras": "keras_weights",
    "load_weights": "keras_weights",
    "WeightsError": "keras_weights",
    "models": "kinds",
    "greedy_decode": "seq2seq",
}

__all__ = [*_EXPORTS]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
