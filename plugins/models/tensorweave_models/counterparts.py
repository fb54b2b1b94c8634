"""The names people know from Keras 3, and this pack's builder for each.

Read by tensorweave only when a lookup fails (``tw.models["ResNet50"]`` points at
``ResNet50.v1``) or ``tensorweave describe`` asks; declared in ``pyproject.toml``
(``tensorweave.counterparts``). ``keras=`` names the Keras application a builder's tests
compare it with (parameter count, output shape, and predictions with the same weights).
Light on purpose: no TensorFlow.

>>> [row.component for row in COUNTERPARTS if row.keras.endswith("ResNet50")]
['ResNet50.v1']
"""

from __future__ import annotations

import tensorweave as tw

__all__ = ["COUNTERPARTS"]

C = tw.Counterpart
A = "keras.applications."

COUNTERPARTS = (
    C("ResNet50.v1", keras=A + "ResNet50", kind="models"),
    C("ResNet101.v1", keras=A + "ResNet101", kind="models"),
    C("MobileNetV2.v1", keras=A + "MobileNetV2", kind="models"),
    C("VGG16.v1", keras=A + "VGG16", kind="models"),
    C("ConvNeXtTiny.v1", keras=A + "ConvNeXtTiny", kind="models"),
    C("EfficientNetV2B0.v1", keras=A + "EfficientNetV2B0", kind="models"),
    C("ResNet18.v1", also=("torchvision.models.resnet18",), kind="models"),
    C("ResNet34.v1", also=("torchvision.models.resnet34",), kind="models"),
)
