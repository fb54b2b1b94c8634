"""The gallery's CNN on an image folder, in Keras 3 (for the comparison): the same folder
(examples/image_folder/make_images.py), Keras's loader, the same CNN and settings."""

import os

import keras

EPOCHS = int(os.environ.get("EPOCHS", 20))
train, valid = keras.utils.image_dataset_from_directory(
    os.environ.get("DIRECTORY", "data/shapes"), image_size=(32, 32), batch_size=32,
    validation_split=0.2, subset="both", seed=0,
)  # fmt: skip
inputs = keras.Input(shape=(32, 32, 3))
h = keras.layers.BatchNormalization()(inputs)
h = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(h)
h = keras.layers.MaxPooling2D(2)(h)
h = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(h)
h = keras.layers.GlobalAveragePooling2D()(h)
outputs = keras.layers.Dense(len(train.class_names), activation="softmax")(h)
model = keras.Model(inputs, outputs)
model.compile(keras.optimizers.Adam(0.003), "sparse_categorical_crossentropy", metrics=["accuracy"])
history = model.fit(train.prefetch(-1), epochs=EPOCHS, validation_data=valid.prefetch(-1))
