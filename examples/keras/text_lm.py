"""The gallery's character GRU language model in Keras 3 (for the comparison): the same
folder of text files (examples/text_lm/make_texts.py) read line by line with tf.data,
characters to ids by TextVectorization, 64-character windows, the same model and settings."""

import glob
import os

import keras
import tensorflow as tf

EPOCHS = int(os.environ.get("EPOCHS", 6))
files = sorted(glob.glob(os.path.join(os.environ.get("DIRECTORY", "data/docstrings"), "*.txt")))
lines = tf.data.TextLineDataset(files).map(lambda line: line + "\n")
chars = keras.layers.TextVectorization(standardize=None, split="character")
chars.adapt(lines.batch(1024))
windows = lines.batch(1).map(chars).unbatch().unbatch().batch(65, drop_remainder=True)
windows = windows.map(lambda w: (w[:-1], w[1:])).enumerate()
train = windows.filter(lambda i, w: i % 10 != 9).map(lambda i, w: w).cache()
valid = windows.filter(lambda i, w: i % 10 == 9).map(lambda i, w: w).cache()

vocab = chars.vocabulary_size()
inputs = keras.Input(shape=(None,), dtype="int64")
h = keras.layers.Embedding(vocab, 32)(inputs)
h = keras.layers.GRU(192, return_sequences=True)(h)
outputs = keras.layers.Dense(vocab)(h)
model = keras.Model(inputs, outputs)
model.compile(keras.optimizers.Adam(0.005),
              keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])  # fmt: skip
history = model.fit(train.shuffle(10_000, seed=0).batch(32).prefetch(-1), epochs=EPOCHS,
                    validation_data=valid.batch(32).prefetch(-1))  # fmt: skip
print("validation perplexity", float(tf.exp(history.history["val_loss"][-1])))
