"""The end of an image classifier, as keras.applications make it: with ``include_top`` a
global average pool and a dense layer of ``classes`` (``classifier_activation`` on top,
Keras's ``"softmax"`` by default; ``None`` gives logits), else the feature map itself or
its global ``pooling`` (``"avg"``/``"max"``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tensorweave as tw
from tensorweave_models.build import Scope, check_pooling, layer

__all__ = ["Head", "image_head", "keras_application"]


@dataclass(frozen=True)
class Head:
    """The classifier options every image builder takes, checked."""

    include_top: bool
    pooling: str | None
    classes: int
    classifier_activation: Any

    @classmethod
    def checked(
        cls, who: str, include_top: bool, pooling: str | None, classes: int, activation: Any
    ) -> Head:
        if not isinstance(include_top, bool):
            raise tw.ArgumentError(
                f"{who}: include_top must be True or False, got {include_top!r}."
            )
        return cls(
            include_top,
            check_pooling(pooling, who),
            tw.positive_int(classes, "classes", who),
            activation,
        )

    def dense(self, x: tw.Layer, names: Scope, leaf: str = "predictions") -> tw.Layer:
        """The classifier layer: ``classes`` units, ``classifier_activation`` on top."""
        return layer("FC.v1")(
            x, self.classes, activation=self.classifier_activation, name=names(leaf)
        )


def image_head(
    x: tw.Layer,
    names: Scope,
    head: Head,
    *,
    before_dense: Callable[[tw.Layer], tw.Layer] | None = None,
    avg_name: str = "avg_pool",
    max_name: str = "max_pool",
) -> tw.Layer:
    """The top of ResNet, MobileNetV2 and EfficientNetV2 (``before_dense``: their dropout)."""
    if head.include_top:
        pooled = layer("GlobalAvgPool.v1")(x, name=names(avg_name))
        if before_dense is not None:
            pooled = before_dense(pooled)
        return head.dense(pooled, names)
    if head.pooling == "avg":
        return layer("GlobalAvgPool.v1")(x, name=names(avg_name))
    if head.pooling == "max":
        return layer("GlobalMaxPool.v1")(x, name=names(max_name))
    return x


def keras_application(
    builder: str, image: tw.Layer, head: Head, **options: Any
) -> Callable[[], Any]:
    """A function building ``keras.applications.<builder>`` with ``weights=None`` and the
    options of a module built on ``image`` with ``head`` (for ``load_weights``)."""

    def build() -> Any:
        import keras

        return getattr(keras.applications, builder)(
            weights=None,
            include_top=head.include_top,
            input_shape=tuple(image.shape[1:]),
            pooling=head.pooling,
            classes=head.classes,
            classifier_activation=head.classifier_activation,
            **options,
        )

    return build
