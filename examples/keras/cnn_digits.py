"""The gallery's CNN on the 8x8 digits, in Keras 3 (for the comparison of lines of code)."""

import keras
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
x = (digits.data / 16.0).reshape(-1, 8, 8, 1).astype("float32")
x_train, x_valid, y_train, y_valid = train_test_split(
    x, digits.target, test_size=0.2, random_state=0
)

inputs = keras.Input(shape=(8, 8, 1))
h = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(inputs)
h = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(h)
h = keras.layers.MaxPooling2D(2)(h)
h = keras.layers.Conv2D(64, 3, padding="same", activation="relu")(h)
h = keras.layers.GlobalAveragePooling2D()(h)
h = keras.layers.Dropout(0.25)(h)
outputs = keras.layers.Dense(10, activation="softmax")(h)
model = keras.Model(inputs, outputs)
model.compile(keras.optimizers.Adam(0.003), "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=32, epochs=20, validation_data=(x_valid, y_valid))
