"""The gallery's U-Net in Keras 3 (keras has no U-Net: its levels are written out) on
tensorweave's shapes_segmentation.v1 (the same images; Keras has no such set)."""

import keras

import tensorweave as tw

data = tw.datasets["shapes_segmentation.v1"](samples=2000, size=32, valid_fraction=0.2, seed=0)


def double_conv(h, filters):
    h = keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(h)
    return keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(h)


inputs = keras.Input(shape=(32, 32, 1))
h, skips = inputs, []
for filters in [8, 16, 32]:
    h = double_conv(h, filters)
    skips.append(h)
    h = keras.layers.MaxPooling2D(2)(h)
h = double_conv(h, 64)
for filters, skip in zip([32, 16, 8], reversed(skips)):
    h = keras.layers.Conv2DTranspose(filters, 2, strides=2)(h)
    h = double_conv(keras.layers.Concatenate()([skip, h]), filters)
outputs = keras.layers.Conv2D(4, 1, activation="softmax")(h)
model = keras.Model(inputs, outputs)
metrics = [keras.metrics.MeanIoU(4, sparse_y_pred=False), "accuracy"]
model.compile(keras.optimizers.Adam(0.003), "sparse_categorical_crossentropy", metrics=metrics)
model.fit(
    data.train["x"],
    data.train["y"],
    batch_size=32,
    epochs=10,
    validation_data=(data.valid["x"], data.valid["y"]),
)
