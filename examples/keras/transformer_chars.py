"""The gallery's character Transformer LM in Keras 3: token + position embeddings, 2
pre-norm causal decoder blocks, logits by the transposed (tied) embedding table. The
windows come from tensorweave's stdlib_chars.v1 (the same text; Keras has no such set)."""

import keras
from keras import layers, ops

import tensorweave as tw

VOCAB, SEQ_LEN, WIDTH, HEADS, LAYERS, DROPOUT = 101, 64, 64, 4, 2, 0.1
data = tw.datasets["stdlib_chars.v1"](seq_len=SEQ_LEN, valid_fraction=0.1, seed=0)


class TiedLogits(layers.Layer):
    def __init__(self, embedding, **kwargs):
        super().__init__(**kwargs)
        self.embedding = embedding

    def call(self, h):
        return ops.matmul(h, ops.transpose(self.embedding.embeddings))


class PositionEmbedding(layers.Layer):
    def build(self, input_shape):
        self.positions = self.add_weight(shape=(SEQ_LEN, WIDTH), initializer="glorot_uniform")

    def call(self, h):
        return h + self.positions[: ops.shape(h)[1]]


def decoder_block(h):
    a = layers.LayerNormalization(epsilon=1e-5)(h)
    a = layers.MultiHeadAttention(HEADS, WIDTH // HEADS, dropout=DROPOUT)(
        a, a, use_causal_mask=True
    )
    h = layers.Add()([h, layers.Dropout(DROPOUT)(a)])
    f = layers.LayerNormalization(epsilon=1e-5)(h)
    f = layers.Dense(4 * WIDTH, activation="gelu")(f)
    f = layers.Dense(WIDTH)(f)
    return layers.Add()([h, layers.Dropout(DROPOUT)(f)])


ids = keras.Input(shape=(SEQ_LEN,), dtype="int32")
embedding = layers.Embedding(VOCAB, WIDTH)
h = layers.Dropout(DROPOUT)(PositionEmbedding()(embedding(ids)))
for _ in range(LAYERS):
    h = decoder_block(h)
logits = TiedLogits(embedding)(layers.LayerNormalization(epsilon=1e-5)(h))
model = keras.Model(ids, logits)
loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
model.compile(keras.optimizers.Adam(0.002), loss)
model.fit(
    data.train["x"],
    data.train["y"],
    batch_size=32,
    epochs=8,
    validation_data=(data.valid["x"], data.valid["y"]),
)
