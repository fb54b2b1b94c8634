"""VAE: the Keras example's parameter counts, the KL node against numpy, sampling (the
mean at inference), the decoder as a generator sharing the weights, training through
the parts."""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from twmodels_helpers import count, predict

import tensorweave as tw
from tensorweave_models.vae import GaussianSample, gaussian_kl


def test_encoder_and_decoder_have_the_keras_examples_counts():
    vae = tw.models["VAE.v1"]((28, 28, 1), latent_dim=2)
    encoder = count(vae.encoder) + count(vae.z_mean) + count(vae.z_log_var)
    assert (encoder, count(vae.decoder)) == (69_076, 65_089)  # keras.io's VAE example
    assert count(vae) == 69_076 + 65_089 and vae.shape == (None, 28, 28, 1)


def test_the_kl_node_is_the_gaussians_divergence_from_the_standard_normal():
    rng = np.random.default_rng(0)
    mean, log_var = rng.standard_normal((2, 5, 3)).astype("float32")
    m = tw.Input(n_units=3, value=mean)
    v = tw.Input(n_units=3, value=log_var)
    want = np.mean(-0.5 * np.sum(1 + log_var - mean**2 - np.exp(log_var), axis=-1))
    np.testing.assert_allclose(float(gaussian_kl(m, v)()), want, rtol=1e-5)


def test_sampling_draws_around_the_mean_and_returns_it_at_inference():
    mean = tw.Input(n_units=2, value=np.full((4000, 2), 3.0, "float32"))
    log_var = tw.Input(n_units=2, value=np.full((4000, 2), np.log(4.0), "float32"))
    z = GaussianSample(mean, log_var)
    draws = z().numpy()
    assert abs(draws.mean() - 3.0) < 0.1 and abs(draws.std() - 2.0) < 0.1
    assert np.all(z.reuse_with(mean, log_var, training=False)().numpy() == 3.0)


def test_the_decoder_generates_from_latent_vectors_with_the_same_weights():
    vae = tw.models["VAE.v1"]((8, 8, 1), latent_dim=2, width=0.25)
    generator = vae.decoder.reuse_with(tw.Input(n_units=2, name="latent"))
    assert {id(v) for v in generator.variables} == {id(v) for v in vae.decoder.variables}
    images = predict(generator, np.zeros((3, 2), "float32"))
    assert images.shape == (3, 8, 8, 1) and images.min() >= 0 and images.max() <= 1


def test_a_training_step_on_the_parts_lowers_the_loss_and_reaches_every_weight():
    tf.random.set_seed(0)
    vae = tw.models["VAE.v1"]((8, 8, 1), latent_dim=2, width=0.25)
    (x,) = vae.inputs
    bce = tw.losses["tensorweave-losses:binary_cross_entropy.v1"](x, vae.output, from_logits=False)
    loss = tw.compile(tw.Graph.build(x, bce + vae.kl))
    images = np.random.default_rng(0).uniform(0, 1, (16, 8, 8, 1)).astype("float32")
    optimizer = tf.keras.optimizers.Adam(0.01)
    first = None
    for _ in range(8):
        with tf.GradientTape() as tape:
            value = loss(images)
        grads = tape.gradient(value, vae.trainable_variables)
        assert all(g is not None for g in grads)
        optimizer.apply_gradients(zip(grads, vae.trainable_variables, strict=True))
        first = float(value) if first is None else first
    assert float(value) < first
