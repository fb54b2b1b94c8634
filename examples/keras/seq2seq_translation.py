"""The gallery's seq2seq with attention in Keras 3: LSTM encoder and decoder (its states
start from the encoder's), dot-product (Luong) attention of the decoder's outputs over the
encoder's, trained with teacher forcing, then decoded greedily for the whole-sequence exact
match (written out: Keras has no such metric). The dates come from tensorweave's
synthetic_translation.v1 (the same examples; Keras has no such set)."""

import time

import keras
import numpy as np
from keras import layers

import tensorweave as tw

UNITS, EPOCHS, BATCH = 64, 10, 64
start = time.perf_counter()
keras.utils.set_random_seed(0)
data = tw.datasets["synthetic_translation.v1"](task="dates", n_samples=10000, seed=0)
VOCAB, LENGTH = data.info["n_classes"], data.info["target_length"]

source = keras.Input(shape=(data.info["source_length"],), dtype="int32")
decoder_input = keras.Input(shape=(LENGTH,), dtype="int32")
encoded, *states = layers.LSTM(UNITS, return_sequences=True, return_state=True)(
    layers.Embedding(VOCAB, UNITS, mask_zero=True)(source)
)
decoded = layers.LSTM(UNITS, return_sequences=True)(
    layers.Embedding(VOCAB, UNITS, mask_zero=True)(decoder_input), initial_state=states
)
context = layers.Attention()([decoded, encoded])
h = layers.Dense(UNITS, activation="tanh")(layers.Concatenate()([context, decoded]))
model = keras.Model([source, decoder_input], layers.Dense(VOCAB)(h))
model.compile(
    keras.optimizers.Adam(5e-3),
    keras.losses.SparseCategoricalCrossentropy(from_logits=True),
)
model.fit(
    [data.train["source"], data.train["decoder_input"]],
    data.train["target"],
    batch_size=BATCH,
    epochs=EPOCHS,
    verbose=2,
)

# greedy decoding: each step feeds back the most likely characters so far
src = data.valid["source"]
out = np.full((len(src), 1), data.info["start_id"], "int32")
for _ in range(LENGTH):
    logits = model.predict_on_batch([src, out])
    out = np.concatenate([out, logits[:, -1].argmax(-1)[:, None].astype("int32")], axis=1)
tokens = out[:, 1:]
ended = np.cumsum(tokens == data.info["end_id"], axis=1) - (tokens == data.info["end_id"]) > 0
tokens = np.where(ended, 0, tokens)
target = data.valid["target"]
exact = np.mean(np.all((tokens == target) | (target == 0), axis=1))
print(f"greedy exact match {exact:.4f} in {time.perf_counter() - start:.1f} s")
