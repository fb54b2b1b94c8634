"""``GAN`` through ``Model.train``: its step equals the hand-written one, each optimizer
updates its own network, a user's own step with nested tapes (WGAN-GP) runs inside
``Model.train``, a frozen module is left untouched, and predictions are deterministic."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import dcgan, gan_images, killed_twice_and_resumed

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_train.gan.losses import LOSSES, gradient_penalty

REAL = gan_images(16)


def _weights(model):
    return [v.numpy().copy() for v in model.variables]


def _hand_steps(gan, real, steps, *, d_steps=1, loss="non_saturating", penalty=0.0):
    """The GAN step written by hand in a tf.function (the TensorFlow DCGAN tutorial's, with
    updates in turn), drawing from the model's own noise generator in the same order."""
    rng = gan.noise.state.generator()
    d_loss_of, g_loss_of = LOSSES[loss]
    g_net, d_net = gan.generator, gan.discriminator
    g_opt, d_opt = gan.optimizers["generator"], gan.optimizers["discriminator"]
    g_vars, d_vars = gan.variables_of("generator"), gan.variables_of("discriminator")

    @tf.function
    def step(x):
        shape = [tf.shape(x)[0], 1, 1, 8]
        for _ in range(d_steps):
            with tf.GradientTape() as tape:
                fake = g_net.compute(rng.normal(shape))
                d_loss = d_loss_of(d_net.compute(x), d_net.compute(fake))
                if penalty:
                    mix = rng.uniform([tf.shape(x)[0], 1, 1, 1])
                    d_loss += penalty * gradient_penalty(d_net.compute, x, fake, mix)
            d_opt.apply_gradients(zip(tape.gradient(d_loss, d_vars), d_vars))
        with tf.GradientTape() as tape:
            g_loss = g_loss_of(d_net.compute(g_net.compute(rng.normal(shape))))
        g_opt.apply_gradients(zip(tape.gradient(g_loss, g_vars), g_vars))

    for i in range(steps):
        step(tf.constant(real[i * 8 : (i + 1) * 8]))


@pytest.mark.parametrize(
    "options",
    [{}, {"d_steps": 2, "loss": "wasserstein", "gradient_penalty": 10.0, "batch_norm": False}],
)
def test_gan_step_is_the_hand_written_step(options):
    """Two steps of ``GAN.train`` (several per compiled call) give the weights of the
    hand-written ``tf.function`` step, BatchNorm statistics included; WGAN-GP's nested
    tapes inside the compiled multi-step loop too."""
    gan = dcgan(**options)
    twin = dcgan(**options)
    _hand_steps(
        twin,
        REAL,
        2,
        d_steps=options.get("d_steps", 1),
        loss=options.get("loss", "non_saturating"),
        penalty=options.get("gradient_penalty", 0.0),
    )
    history = gan.train(REAL, epochs=1, batch_size=8, shuffle=False, verbose=0)
    assert gan.steps.train_many.trace_count == 1  # the steps ran two per call
    for mine, hand in zip(_weights(gan), _weights(twin), strict=True):
        np.testing.assert_allclose(mine, hand, rtol=2e-6, atol=1e-6)
    steps = [int(gan.optimizers[n].iterations) for n in ("generator", "discriminator")]
    assert steps == [2, 2 * options.get("d_steps", 1)]
    assert set(history[-1]) >= {"generator_loss", "discriminator_loss", "loss"}


class WGANGP(twt.Model):
    """A user's own step, as Keras's WGAN-GP example: ``d_steps`` critic updates with a
    gradient penalty (a tape inside the tape), then one generator update."""

    def __init__(self, gan, **kw):
        self.gan = gan
        super().__init__(
            inputs=gan.inputs,
            outputs=gan.outputs,
            targets=gan.targets,
            loss=gan.named_losses,
            optimizer={n: twt.Adam(2e-3, beta_1=0.5) for n in ("generator", "discriminator")},
            trains={"generator": gan.generator, "discriminator": gan.discriminator},
            **kw,
        )
        self.feeds = gan.feeds

    def train_step(self, batch):
        real = batch[0]
        critic = self.gan.discriminator
        for _ in range(2):
            with tf.GradientTape() as tape:
                d_loss, fake = self.gan.discriminator_graph.compute(feed={self.feeds[0]: real})
                mix = self.gan.noise.state.generator().uniform([tf.shape(real)[0], 1, 1, 1])
                d_goal = d_loss + 10.0 * gradient_penalty(critic.compute, real, fake, mix)
            variables = self.variables_of("discriminator")
            grads = tape.gradient(d_goal, variables)
            self.optimizers["discriminator"].apply_gradients(zip(grads, variables))
        with tf.GradientTape() as tape:
            g_loss = self.compute_losses(batch)["generator"]
        variables = self.variables_of("generator")
        self.optimizers["generator"].apply_gradients(
            zip(tape.gradient(g_loss, variables), variables)
        )
        return {"loss": d_loss + g_loss, "generator": g_loss, "discriminator": d_loss}


def test_a_users_own_step_with_a_gradient_penalty_trains_as_the_built_in_one(tmp_path):
    """A ``Model`` subclass writing its own ``train_step`` (nested tapes, two optimizers)
    keeps what ``Model.train`` does: several steps per call, figures, checkpoints."""
    options = {"d_steps": 2, "loss": "wasserstein", "gradient_penalty": 10.0}
    built_in = dcgan(batch_norm=False, **options)
    own = WGANGP(dcgan(batch_norm=False, **options))
    ckpt = twt.CheckpointCallback(tmp_path, every_epochs=1)
    history = own.train(REAL, epochs=2, batch_size=8, shuffle=False, callbacks=[ckpt], verbose=0)
    built_in.train(REAL, epochs=2, batch_size=8, shuffle=False, verbose=0)
    for mine, theirs in zip(_weights(own), _weights(built_in), strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=2e-6, atol=1e-6)
    assert history[-1]["generator_loss"] != 0 and len(twt.Checkpointer(tmp_path).checkpoints())


def test_each_optimizer_updates_only_its_network_and_a_frozen_one_stays():
    gan = dcgan()
    generator = [v.numpy().copy() for v in gan.generator.trainable_variables]
    gan.optimizers["generator"].learning_rate.assign(0.0)
    gan.train(REAL, epochs=1, batch_size=8, verbose=0)
    for before, v in zip(generator, gan.generator.trainable_variables, strict=True):
        np.testing.assert_array_equal(before, v.numpy())  # lr 0: the D step moved none
    gan.optimizers["generator"].learning_rate.assign(2e-3)
    gan.discriminator.freeze()
    frozen = [v.numpy().copy() for v in gan.discriminator.variables]
    gan.train(REAL, epochs=2, batch_size=8, verbose=0)
    for before, v in zip(frozen, gan.discriminator.variables, strict=True):
        np.testing.assert_array_equal(before, v.numpy())
    assert any(
        not np.array_equal(b, v.numpy())
        for b, v in zip(generator, gan.generator.trainable_variables, strict=True)
    )


def test_predict_generates_deterministically_and_evaluation_leaves_training_alone():
    gan = dcgan()
    z = np.random.default_rng(0).normal(size=(4, 1, 1, 8)).astype("float32")
    images = gan.predict(z)
    assert images.shape == (4, 8, 8, 1) and np.abs(images).max() <= 1.0
    np.testing.assert_array_equal(images, gan.predict(z))
    state = gan.noise.state.generator().state.numpy().copy()
    first, second = gan.evaluate(REAL), gan.evaluate(REAL)
    assert first == second and set(first) == {"loss", "generator_loss", "discriminator_loss"}
    np.testing.assert_array_equal(state, gan.noise.state.generator().state.numpy())


def test_gan_mistakes_are_argument_errors():
    g, d = dcgan().generator, dcgan().discriminator
    cases = [
        (dict(generator=g.output, discriminator=d), "the generator must be a layer"),
        (dict(generator=g, discriminator=d, loss="minimax"), "loss must be one of"),
        (dict(generator=g, discriminator=d, d_steps=0), "d_steps must be a positive"),
        (dict(generator=g, discriminator=d, optimizer={"g": twt.SGD(0.1)}), "one optimizer per"),
        (dict(generator=g, discriminator=d, gradient_penalty=-1), "gradient_penalty must"),
    ]
    for kw, match in cases:
        with pytest.raises(tw.ArgumentError, match=match):
            twt.GAN(**kw)


@pytest.mark.slow
def test_a_dcgan_killed_mid_epoch_resumes_bit_identical(tmp_path):
    """A DCGAN (two optimizers, BatchNorm, fresh noise every step) trained through
    ``Model.train`` by a real process, SIGKILLed twice mid-epoch and resumed, ends with the
    weights of an uninterrupted run, bit for bit: both optimizers' slots and step counts,
    the BatchNorm statistics and the noise generator's position are in the checkpoint."""
    a, b = killed_twice_and_resumed(tmp_path, "dcgan")
    assert len(a.files) == len(b.files) > 15
    for k in a.files:
        np.testing.assert_array_equal(a[k], b[k])
