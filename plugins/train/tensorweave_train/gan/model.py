"""``GAN``: a generator and a discriminator trained in turn, through ``Model.train``.

The common case of a ``Model`` with two losses and two optimizers: give the generator (a
layer or ``tw.Module`` from latent noise to an example) and the discriminator (from an
example to a score, a logit), and ``train`` on real examples alone. Each step draws fresh
noise (``LatentNoise``, resumable), updates the discriminator ``d_steps`` times on the
same real batch (as Keras's WGAN-GP example), then the generator once; each optimizer
updates only its own network (``trains``). Everything else is ``Model.train``'s:
several steps per call, progress, callbacks, checkpoints with exact resume (both
optimizers' slots, the noise generator's position), validation (``val_generator_loss``,
``val_discriminator_loss``), the store, TensorBoard. ``predict(z)`` runs the generator in
inference mode. ``gradient_penalty=10.0`` with ``loss="wasserstein"`` is WGAN-GP.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> z, x = tw.Input(n_units=2, name="z"), tw.Input(n_units=3, name="x")
>>> g = tw.Module(z, tw.layers["Linear.v1"](z, n_units=3), name="generator")
>>> d = tw.Module(x, tw.layers["Linear.v1"](x, n_units=1), name="discriminator")
>>> gan = GAN(g, d, d_steps=2)
>>> h = gan.train(np.ones((8, 3), "float32"), epochs=1, batch_size=4, verbose=0)
>>> [k for k in h[-1] if k.endswith("_loss")], int(gan.optimizers["discriminator"].iterations)
(['generator_loss', 'discriminator_loss'], 4)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_train.gan.losses import LOSSES, AdversarialLoss, gradient_penalty
from tensorweave_train.gan.noise import LatentNoise
from tensorweave_train.loop.model import Model
from tensorweave_train.loop.services import services
from tensorweave_train.optimizers import Adam, Optimizer

__all__ = ["GAN", "NAMES"]

#: the names of the two losses and optimizers (and of their figures: ``<name>_loss``)
NAMES = ("generator", "discriminator")


def _entry(net: Any, what: str) -> tw.Input:
    """The one ``Input`` a generator or discriminator reads."""
    inputs = net.inputs if isinstance(net, tw.Layer) else ()
    if len(inputs) != 1 or not isinstance(inputs[0], tw.Input):
        raise tw.ArgumentError(
            f"GAN: the {what} must be a layer (a tw.Module) on one tw.Input, got {net!r}. "
            f"Fix: tw.Module(tw.Input(...), output, name={what!r})."
        )
    return inputs[0]


def _check_fit(generator: tw.Layer, discriminator: tw.Layer, real: tw.Input) -> None:
    """Refuse, naming both parts, a generator whose examples the discriminator cannot
    read: their shapes (less the batch) must agree, and their dtypes."""
    made, read = tuple(generator.shape[1:]), tuple(real.shape[1:])
    fits = len(made) == len(read) and all(
        a is None or b is None or a == b for a, b in zip(made, read, strict=True)
    )
    if not fits:
        raise tw.ShapeError(
            f"GAN: the generator {generator.name!r} makes examples of shape {made}, but the "
            f"discriminator {discriminator.name!r} reads examples of shape {read} (its input "
            f"{real.name!r}). Fix: make the generator's output {read} (e.g. its last layer's "
            f"n_units, a Reshape.v1 to {read}), or the discriminator's input "
            f"tw.Input(shape={made})."
        )
    if generator.dtype != real.dtype:
        raise tw.ShapeError(
            f"GAN: the generator {generator.name!r} makes {generator.dtype.name} examples, the "
            f"discriminator {discriminator.name!r} reads {real.dtype.name} ({real.name!r}). "
            f"Fix: tw.Input(..., dtype={generator.dtype.name!r}) for {real.name!r}."
        )


def _optimizers(given: Mapping[str, Optimizer | str] | None) -> dict[str, Optimizer | str]:
    if given is None:  # the DCGAN paper's
        return {name: Adam(2e-4, beta_1=0.5) for name in NAMES}
    if not isinstance(given, Mapping) or sorted(given) != sorted(NAMES):
        raise tw.ArgumentError(
            f"GAN: optimizer must name one optimizer per network, {{'generator': ..., "
            f"'discriminator': ...}}, got {given!r}."
        )
    return {name: given[name] for name in NAMES}


class GAN(Model):
    """A generator and a discriminator trained in turn (see the module docstring).

    Args:
        generator: a layer (usually a ``tw.Module``) on one ``Input`` (the latent noise)
            giving an example.
        discriminator: a layer on one ``Input`` (an example: the real data's field of the
            same name) giving a score (a logit).
        optimizer: ``{"generator": ..., "discriminator": ...}`` (default ``Adam(2e-4,
            beta_1=0.5)`` each).
        d_steps: discriminator updates per generator update.
        loss: ``"non_saturating"``, ``"wasserstein"``, ``"hinge"`` or ``"least_squares"``
            (``gan.losses``).
        gradient_penalty: the weight of WGAN-GP's gradient penalty (0: none).
        **options: ``Model``'s (``metrics``, ``jit_compile``, ``steps_per_execution``,
            ``name``...).
    """

    def __init__(
        self,
        generator: tw.Layer,
        discriminator: tw.Layer,
        *,
        optimizer: Mapping[str, Optimizer | str] | None = None,
        d_steps: int = 1,
        loss: AdversarialLoss = "non_saturating",
        gradient_penalty: float = 0.0,
        name: str = "gan",
        **options: Any,
    ) -> None:
        latent, real = _entry(generator, "generator"), _entry(discriminator, "discriminator")
        if loss not in LOSSES:
            raise tw.ArgumentError(f"GAN: loss must be one of {', '.join(LOSSES)}, got {loss!r}.")
        self.d_steps = tw.positive_int(d_steps, "d_steps", "GAN")
        if not isinstance(gradient_penalty, int | float) or gradient_penalty < 0:
            raise tw.ArgumentError(
                f"GAN: gradient_penalty must be a number >= 0, got {gradient_penalty!r}."
            )
        self.penalty_weight = float(gradient_penalty)
        self.adversarial_loss = loss
        self.generator, self.discriminator = generator, discriminator
        if any(d is None for d in latent.shape[1:]):
            raise tw.ArgumentError(
                f"GAN: the generator's input {latent.name!r} has shape {latent.shape}: the "
                "noise it is fed needs every size but the batch. Fix: tw.Input(shape=...) "
                "with known sizes."
            )
        _check_fit(generator, discriminator, real)
        shape = [int(d) for d in latent.shape[1:] if d is not None]
        self.noise = LatentNoise(real, shape=shape, dtype=latent.dtype, name="noise")
        self.fake = generator.reuse_with(self.noise, name="fake")
        d_fake = discriminator.reuse_with(self.fake, name="fake_score")
        d_loss, g_loss = LOSSES[loss]
        losses = {
            "generator": tw.lift(g_loss, d_fake, name="generator_loss"),
            "discriminator": tw.lift(d_loss, discriminator, d_fake, name="discriminator_loss"),
        }
        super().__init__(
            inputs=latent,
            outputs=generator,
            targets=real,
            loss=losses,
            optimizer=_optimizers(optimizer),
            trains={"generator": generator, "discriminator": discriminator},
            name=name,
            **options,
        )
        self.feeds = (real,)  # training reads the real examples; the step draws the noise
        outputs = [losses["discriminator"], self.fake]
        self.discriminator_graph = tw.Graph.build(inputs=None, outputs=outputs)
        self.generator_graph = tw.Graph.build(inputs=None, outputs=losses["generator"])

    def get_config(self) -> dict[str, Any]:
        """The job config that rebuilds this GAN: the generator and discriminator nodes
        and a ``GANTrainer.v1`` ``[trainer]`` (``runs.saving``, through ``loop.services``)."""
        sections: dict[str, Any] = {
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            "generator": self.generator,
            "discriminator": self.discriminator,
        }
        if self.metrics:
            sections["metrics"] = dict(self.metrics)
        config = services().job_config(self, sections)
        block = config["model"]
        config["trainer"] = {
            "@trainers": "GANTrainer.v1",
            "generator": block.pop("generator"),
            "discriminator": block.pop("discriminator"),
            "d_steps": self.d_steps,
            "loss": self.adversarial_loss,
            "gradient_penalty": self.penalty_weight,
        }
        return config

    def train_step(self, batch: Sequence[tf.Tensor]) -> dict[str, tf.Tensor]:
        """``d_steps`` discriminator updates, then one generator update, each on fresh
        noise; returns both losses (the last discriminator's) and their sum as ``loss``."""
        feed = self.feed_dict(self.discriminator_graph, batch)
        d_vars = self.variables_of("discriminator")
        for _ in range(self.d_steps):
            with tf.GradientTape() as tape:
                d_loss, fake = self.discriminator_graph.compute(feed=feed)
                goal = d_loss + self._penalty(batch[0], fake)
                goal = self.replica_weighted(goal, batch)
            self.optimize(tape, goal, d_vars, "discriminator")
        g_vars = self.variables_of("generator")
        with tf.GradientTape() as tape:
            g_loss = self.replica_weighted(self.generator_graph.compute(feed=feed), batch)
        self.optimize(tape, g_loss, g_vars, "generator")
        d_loss = self.replica_weighted(d_loss, batch)
        return {"loss": d_loss + g_loss, "generator": g_loss, "discriminator": d_loss}

    def _penalty(self, real: tf.Tensor, fake: tf.Tensor) -> tf.Tensor:
        """The weighted WGAN-GP penalty at random mixes of ``real`` and ``fake`` (0 when
        ``gradient_penalty`` is 0); the mixes come from the noise node's generator."""
        if not self.penalty_weight:
            return tf.zeros([])
        shape = tf.concat([tf.shape(real)[:1], tf.ones([len(real.shape) - 1], tf.int32)], 0)
        mix = self.noise.state.generator().uniform(shape, dtype=real.dtype)
        penalty = gradient_penalty(self.discriminator.compute, real, fake, mix)
        return tf.cast(self.penalty_weight, penalty.dtype) * penalty
