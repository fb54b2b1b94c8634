"""The gallery's structured-data classifier, in Keras 3 (for the comparison): the same CSV
(examples/structured_data/make_data.py), the same preprocessing layers and model."""

import keras
import numpy as np
import pandas as pd

df = pd.read_csv("data/patients.csv")
valid = df.sample(frac=0.2, random_state=0)
train = df.drop(valid.index)
NUMBERS = ["age", "sex", "chol", "thalach"]


def features(frame):
    return {"numbers": frame[NUMBERS].to_numpy("float32"), "thal": frame["thal"].to_numpy()}


norm = keras.layers.Normalization()
norm.adapt(train[NUMBERS].to_numpy("float32"))
lookup = keras.layers.StringLookup(output_mode="one_hot")
lookup.adapt(train["thal"].to_numpy())
numbers = keras.Input(shape=(4,), name="numbers")
thal = keras.Input(shape=(1,), dtype="string", name="thal")
h = keras.layers.Concatenate()([norm(numbers), lookup(thal)])
h = keras.layers.Dense(32, activation="relu")(h)
h = keras.layers.Dropout(0.3)(h)
outputs = keras.layers.Dense(2, activation="softmax")(h)
model = keras.Model([numbers, thal], outputs)
model.compile(keras.optimizers.Adam(0.003), "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(features(train), train["target"].to_numpy(), batch_size=32, epochs=20,
          validation_data=(features(valid), valid["target"].to_numpy()))  # fmt: skip
print(np.round(model.evaluate(features(valid), valid["target"].to_numpy()), 4))
