"""The gallery's word2vec in Keras 3 (TensorFlow backend): the same skip-gram pairs and
held-out figures (``skip_gram_data``, ``pair_auc``, ``neighbours``, imported from the
tensorweave example: they are not the model), a Keras ``Embedding`` and, as Keras has no
NCE loss, a layer that owns the output embedding and returns ``tf.nn.nce_loss``."""

import sys
import time
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "word2vec"))
from word2vec import DIM, NEGATIVES, neighbours, pair_auc, skip_gram_data


class NCE(keras.layers.Layer):
    """The output embedding and bias; returns each example's NCE loss."""

    def __init__(self, vocab, **kwargs):
        super().__init__(**kwargs)
        self.vocab = vocab

    def build(self, input_shape):
        self.w = self.add_weight(shape=(self.vocab, DIM), initializer="zeros", name="nce_w")
        self.b = self.add_weight(shape=(self.vocab,), initializer="zeros", name="nce_b")

    def call(self, inputs):
        embedded, context = inputs
        return tf.nn.nce_loss(self.w, self.b, context, embedded, NEGATIVES, self.vocab)


start = time.perf_counter()
keras.utils.set_random_seed(0)
data = skip_gram_data()
vocab = len(data["vocab"])
words = keras.Input((), dtype="int64", name="words")
context = keras.Input((1,), dtype="int64", name="context")
embedding = keras.layers.Embedding(vocab, DIM)
nce = NCE(vocab)
model = keras.Model([words, context], nce([embedding(words), context]))
model.compile(keras.optimizers.Adam(0.02), loss=lambda _, per_example: per_example)
train, valid = data["train"], data["valid"]
dummy = np.zeros(len(train["words"]), "float32")
model.fit([train["words"], train["context"]], dummy, batch_size=512, epochs=6, verbose=0)
loss = model.evaluate([valid["words"], valid["context"]], np.zeros(len(valid["words"])), 4096, 0)
table = embedding.embeddings.numpy()
for word, near in neighbours(table, data["vocab"]).items():
    print(f"{word:>8}: {', '.join(near)}")
auc = pair_auc(table, nce.w.numpy(), nce.b.numpy(), data)
print(f"valid NCE loss {loss:.4f}, pair AUC {auc:.4f}, {time.perf_counter() - start:.1f} s")
