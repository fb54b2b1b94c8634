"""The adversarial losses of a GAN, on the discriminator's scores (logits) for real and
generated examples, each ``(discriminator loss, generator loss)``:

- ``non_saturating`` (DCGAN, the TensorFlow tutorial's): binary cross-entropy on logits,
  the generator maximising ``log D(G(z))``;
- ``wasserstein`` (WGAN, with a gradient penalty for WGAN-GP): ``mean(fake) - mean(real)``
  and ``-mean(fake)``;
- ``hinge``: ``mean(relu(1 - real)) + mean(relu(1 + fake))`` and ``-mean(fake)``;
- ``least_squares`` (LSGAN): ``((real - 1)^2 + fake^2) / 2`` and ``(fake - 1)^2 / 2``.

>>> import tensorflow as tf
>>> d, g = LOSSES["wasserstein"]
>>> float(d(tf.constant([1.0, 3.0]), tf.constant([0.0]))), float(g(tf.constant([0.5])))
(-2.0, -0.5)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeAlias

import tensorflow as tf

__all__ = ["LOSSES", "AdversarialLoss", "gradient_penalty"]

AdversarialLoss: TypeAlias = Literal["non_saturating", "wasserstein", "hinge", "least_squares"]
Scores: TypeAlias = tf.Tensor


def _mean(x: Scores) -> tf.Tensor:
    return tf.reduce_mean(tf.cast(x, tf.float32))


def non_saturating_d(real: Scores, fake: Scores) -> tf.Tensor:
    return _mean(tf.nn.softplus(-real)) + _mean(tf.nn.softplus(fake))


def non_saturating_g(fake: Scores) -> tf.Tensor:
    return _mean(tf.nn.softplus(-fake))


def wasserstein_d(real: Scores, fake: Scores) -> tf.Tensor:
    return _mean(fake) - _mean(real)


def wasserstein_g(fake: Scores) -> tf.Tensor:
    return -_mean(fake)


def hinge_d(real: Scores, fake: Scores) -> tf.Tensor:
    return _mean(tf.nn.relu(1.0 - real)) + _mean(tf.nn.relu(1.0 + fake))


def least_squares_d(real: Scores, fake: Scores) -> tf.Tensor:
    return 0.5 * (_mean(tf.square(real - 1.0)) + _mean(tf.square(fake)))


def least_squares_g(fake: Scores) -> tf.Tensor:
    return 0.5 * _mean(tf.square(fake - 1.0))


#: name -> (discriminator loss of (real, fake) scores, generator loss of fake scores)
LOSSES: dict[str, tuple[Callable[[Scores, Scores], tf.Tensor], Callable[[Scores], tf.Tensor]]] = {
    "non_saturating": (non_saturating_d, non_saturating_g),
    "wasserstein": (wasserstein_d, wasserstein_g),
    "hinge": (hinge_d, wasserstein_g),
    "least_squares": (least_squares_d, least_squares_g),
}


def gradient_penalty(
    critic: Callable[[tf.Tensor], tf.Tensor],
    real: tf.Tensor,
    fake: tf.Tensor,
    mix: tf.Tensor,
) -> tf.Tensor:
    """WGAN-GP's penalty: ``mean((|grad critic(x)| - 1)^2)`` at ``x = mix * real + (1 - mix)
    * fake`` (``mix``: one uniform draw per example, shaped to broadcast), by a tape inside
    the caller's tape, so the caller differentiates it again.

    >>> import tensorflow as tf
    >>> x = tf.ones([2, 3])
    >>> float(gradient_penalty(lambda v: tf.reduce_sum(v, 1), x, 0 * x, tf.ones([2, 1])))
    0.5358983...
    """
    mixed = mix * real + (1.0 - mix) * fake
    with tf.GradientTape() as tape:
        tape.watch(mixed)
        scores = critic(mixed)
    grads = tape.gradient(scores, mixed)
    axes = list(range(1, len(grads.shape)))
    norms = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=axes) + 1e-12)
    return tf.reduce_mean(tf.square(norms - 1.0))
