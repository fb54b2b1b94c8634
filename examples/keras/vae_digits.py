"""The gallery's VAE on the 8x8 digits, in Keras 3 (TensorFlow backend), after keras.io's
"Variational AutoEncoder" example: a sampling layer and a custom train_step for the KL."""

import keras
import tensorflow as tf
from keras import layers, ops
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
x = (digits.data / 16.0).reshape(-1, 8, 8, 1).astype("float32")
x_train, x_valid = train_test_split(x, test_size=0.2, random_state=0)
latent_dim = 2


class Sampling(layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        eps = keras.random.normal(ops.shape(z_mean))
        return z_mean + ops.exp(0.5 * z_log_var) * eps


encoder_inputs = keras.Input(shape=(8, 8, 1))
h = layers.Conv2D(16, 3, activation="relu", strides=2, padding="same")(encoder_inputs)
h = layers.Conv2D(32, 3, activation="relu", strides=2, padding="same")(h)
h = layers.Dense(32, activation="relu")(layers.Flatten()(h))
z_mean = layers.Dense(latent_dim)(h)
z_log_var = layers.Dense(latent_dim)(h)
z = Sampling()([z_mean, z_log_var])
encoder = keras.Model(encoder_inputs, [z_mean, z_log_var, z])

latent_inputs = keras.Input(shape=(latent_dim,))
h = layers.Dense(2 * 2 * 32, activation="relu")(latent_inputs)
h = layers.Reshape((2, 2, 32))(h)
h = layers.Conv2DTranspose(32, 3, activation="relu", strides=2, padding="same")(h)
h = layers.Conv2DTranspose(16, 3, activation="relu", strides=2, padding="same")(h)
decoder_outputs = layers.Conv2DTranspose(1, 3, activation="sigmoid", padding="same")(h)
decoder = keras.Model(latent_inputs, decoder_outputs)


class VAE(keras.Model):
    def __init__(self, encoder, decoder, **kwargs):
        super().__init__(**kwargs)
        self.encoder, self.decoder = encoder, decoder
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.kl_tracker = keras.metrics.Mean(name="kl")

    @property
    def metrics(self):
        return [self.loss_tracker, self.kl_tracker]

    def losses_of(self, data):
        z_mean, z_log_var, z = self.encoder(data)
        reconstruction = self.decoder(z)
        bce = ops.mean(keras.losses.binary_crossentropy(data, reconstruction, axis=(1, 2, 3)))
        kl = -0.5 * (1 + z_log_var - ops.square(z_mean) - ops.exp(z_log_var))
        kl = ops.mean(ops.sum(kl, axis=1))
        return bce * 64.0 + kl, kl

    def train_step(self, data):
        with tf.GradientTape() as tape:
            loss, kl = self.losses_of(data)
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.loss_tracker.update_state(loss)
        self.kl_tracker.update_state(kl)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        loss, kl = self.losses_of(data)
        self.loss_tracker.update_state(loss)
        self.kl_tracker.update_state(kl)
        return {m.name: m.result() for m in self.metrics}


vae = VAE(encoder, decoder)
vae.compile(optimizer=keras.optimizers.Adam(2e-3))
vae.fit(x_train, epochs=30, batch_size=32)
print(vae.evaluate(x_valid, batch_size=256, return_dict=True))
