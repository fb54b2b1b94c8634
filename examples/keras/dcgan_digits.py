"""The gallery's DCGAN on the 8x8 digits, in Keras 3 (TensorFlow backend), after keras.io's
"DCGAN to generate face images": a GAN model with a custom train_step and two optimizers.
The grid and the score use the numpy helpers of the tensorweave example (not the model)."""

import sys
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf
from keras import layers, ops
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dcgan_digits"))
from dcgan_digits import save_grid, score

digits = load_digits()
x = (digits.data / 16.0).reshape(-1, 8, 8, 1).astype("float32")
x_train, x_valid, y_train, y_valid = train_test_split(
    x, digits.target, test_size=0.2, random_state=0
)
latent_dim = 16


generator = keras.Sequential(
    [
        keras.Input(shape=(latent_dim,)),
        layers.Dense(2 * 2 * 64, use_bias=False),
        layers.BatchNormalization(momentum=0.9),
        layers.LeakyReLU(0.2),
        layers.Reshape((2, 2, 64)),
        layers.Conv2DTranspose(32, 5, padding="same", use_bias=False),
        layers.BatchNormalization(momentum=0.9),
        layers.LeakyReLU(0.2),
        layers.Conv2DTranspose(16, 5, strides=2, padding="same", use_bias=False),
        layers.BatchNormalization(momentum=0.9),
        layers.LeakyReLU(0.2),
        layers.Conv2DTranspose(1, 5, strides=2, padding="same", use_bias=False, activation="tanh"),
    ]
)
discriminator = keras.Sequential(
    [
        keras.Input(shape=(8, 8, 1)),
        layers.Conv2D(16, 5, strides=2, padding="same"),
        layers.LeakyReLU(0.2),
        layers.Dropout(0.3),
        layers.Conv2D(32, 5, strides=2, padding="same"),
        layers.LeakyReLU(0.2),
        layers.Dropout(0.3),
        layers.Flatten(),
        layers.Dense(1),
    ]
)


class GAN(keras.Model):
    def __init__(self, discriminator, generator):
        super().__init__()
        self.discriminator, self.generator = discriminator, generator
        self.seed_generator = keras.random.SeedGenerator(0)
        self.d_loss_metric = keras.metrics.Mean(name="d_loss")
        self.g_loss_metric = keras.metrics.Mean(name="g_loss")

    def compile(self, d_optimizer, g_optimizer):
        super().compile()
        self.d_optimizer, self.g_optimizer = d_optimizer, g_optimizer

    @property
    def metrics(self):
        return [self.d_loss_metric, self.g_loss_metric]

    def fake_logits(self, n):
        z = keras.random.normal((n, latent_dim), seed=self.seed_generator)
        return self.discriminator(self.generator(z, training=True), training=True)

    def train_step(self, real_images):
        n = ops.shape(real_images)[0]
        with tf.GradientTape() as tape:
            real = self.discriminator(real_images, training=True)
            fake = self.fake_logits(n)
            d_loss = ops.mean(ops.softplus(-real)) + ops.mean(ops.softplus(fake))
        d_vars = self.discriminator.trainable_weights
        self.d_optimizer.apply_gradients(zip(tape.gradient(d_loss, d_vars), d_vars))
        with tf.GradientTape() as tape:
            g_loss = ops.mean(ops.softplus(-self.fake_logits(n)))
        g_vars = self.generator.trainable_weights
        self.g_optimizer.apply_gradients(zip(tape.gradient(g_loss, g_vars), g_vars))
        self.d_loss_metric.update_state(d_loss)
        self.g_loss_metric.update_state(g_loss)
        return {m.name: m.result() for m in self.metrics}


gan = GAN(discriminator, generator)
gan.compile(keras.optimizers.Adam(5e-4, beta_1=0.5), keras.optimizers.Adam(5e-4, beta_1=0.5))
gan.fit(x_train * 2.0 - 1.0, epochs=60, batch_size=16)
z = np.random.default_rng(0).normal(size=(1000, latent_dim)).astype("float32")
fakes = (generator.predict(z) + 1.0) / 2.0
save_grid(fakes, "dcgan_digits_keras.png")

judge = keras.Sequential(
    [
        keras.Input(shape=(8, 8, 1)),
        layers.Conv2D(32, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(2),
        layers.Flatten(),
        layers.Dense(10, activation="softmax"),
    ]
)
judge.compile(keras.optimizers.Adam(3e-3), "sparse_categorical_crossentropy")
judge.fit(x_train, y_train, batch_size=32, epochs=15)
print("generated", score(judge.predict(fakes)), "real", score(judge.predict(x_valid)))
