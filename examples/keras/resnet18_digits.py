"""The gallery's ResNet18 (basic blocks, an eighth of the width) on the digits upsampled to
32x32, in Keras 3: keras.applications has no ResNet18, so its blocks are written out."""

import keras
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
x = (digits.data / 16.0).reshape(-1, 8, 8, 1).astype("float32")
x_train, x_valid, y_train, y_valid = train_test_split(
    x, digits.target, test_size=0.2, random_state=0
)


def conv_bn(h, filters, kernel, strides=1, relu=True):
    h = keras.layers.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False)(h)
    h = keras.layers.BatchNormalization(momentum=0.9, epsilon=1e-5)(h)
    return keras.layers.ReLU()(h) if relu else h


def basic_block(h, filters, strides):
    shortcut = h
    if strides != 1 or h.shape[-1] != filters:
        shortcut = conv_bn(h, filters, 1, strides, relu=False)
    h = conv_bn(h, filters, 3, strides)
    h = conv_bn(h, filters, 3, relu=False)
    return keras.layers.ReLU()(keras.layers.Add()([shortcut, h]))


inputs = keras.Input(shape=(8, 8, 1))
h = keras.layers.UpSampling2D(4)(inputs)
h = conv_bn(h, 8, 7, strides=2)
h = keras.layers.MaxPooling2D(3, strides=2, padding="same")(h)
for stage, filters in enumerate([8, 16, 32, 64]):
    for block in range(2):
        h = basic_block(h, filters, 2 if stage > 0 and block == 0 else 1)
h = keras.layers.GlobalAveragePooling2D()(h)
outputs = keras.layers.Dense(10, activation="softmax")(h)
model = keras.Model(inputs, outputs)
model.compile(keras.optimizers.Adam(0.002), "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=64, epochs=5, validation_data=(x_valid, y_valid))
