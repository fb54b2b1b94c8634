"""The gallery's image classifier with augmentation, in Keras 3 (for the comparison)."""

import keras
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
x = digits.data.astype("float32")
x_train, x_valid, y_train, y_valid = train_test_split(
    x, digits.target, test_size=0.2, random_state=0
)

inputs = keras.Input(shape=(64,))
h = keras.layers.Reshape((8, 8, 1))(inputs)
h = keras.layers.Rescaling(1 / 16)(h)
h = keras.layers.RandomRotation(0.04, fill_mode="constant")(h)
h = keras.layers.RandomZoom(0.1, fill_mode="constant")(h)
h = keras.layers.RandomTranslation(0.1, 0.1, fill_mode="constant")(h)
h = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(h)
h = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(h)
h = keras.layers.MaxPooling2D(2)(h)
h = keras.layers.Conv2D(64, 3, padding="same", activation="relu")(h)
h = keras.layers.GlobalAveragePooling2D()(h)
outputs = keras.layers.Dense(10, activation="softmax")(h)
model = keras.Model(inputs, outputs)
model.compile(keras.optimizers.Adam(0.003), "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=32, epochs=30, validation_data=(x_valid, y_valid))
