"""``GANTrainer.v1``: a job config's ``[trainer]`` that trains its model as a ``GAN``.

A recipe of the ``trainers`` kind: the config names the generator and discriminator nodes
of ``[model.nodes]`` (each usually a module node) and the GAN's settings; ``build_model``
(``runs.job``) asks it for the model. The two optimizers are ``[optimizer.generator]``
and ``[optimizer.discriminator]`` (default ``Adam(2e-4, beta_1=0.5)`` each)::

    [trainer]
    "@trainers" = "GANTrainer.v1"
    generator = "generator"          # noise -> example
    discriminator = "discriminator"  # example (the data field of its input's name) -> logit
    d_steps = 1

See ``configs/dcgan.toml`` (``tensorweave train dcgan``).

>>> GANTrainer(d_steps=2)
GANTrainer(generator='generator', discriminator='discriminator', d_steps=2, ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train.gan.losses import AdversarialLoss
from tensorweave_train.gan.model import GAN, NAMES

__all__ = ["GANTrainer"]


@dataclass(frozen=True)
class GANTrainer:
    """Train the job's model as a ``GAN`` (see the module docstring).

    Args:
        generator: the node of ``[model.nodes]`` that makes an example from noise.
        discriminator: the node that scores an example (a logit); its input node is fed
            the data field of the same name.
        d_steps: discriminator updates per generator update.
        loss: the adversarial loss (``non_saturating``, ``wasserstein``, ``hinge``,
            ``least_squares``).
        gradient_penalty: WGAN-GP's penalty weight (0: none).
    """

    generator: str = "generator"
    discriminator: str = "discriminator"
    d_steps: int = 1
    loss: AdversarialLoss = "non_saturating"
    gradient_penalty: float = 0.0

    def build_model(self, graph: Any, *, optimizer: Any, **options: Any) -> GAN:
        """The ``GAN`` of a resolved ``[model]`` graph (``tw.config.ConfigGraph``) and
        the resolved ``[optimizer]`` section (``None``, or one optimizer per network)."""
        errors = [
            (
                f"trainer.{key}",
                f"no node {name!r} in [model.nodes]; nodes: {', '.join(graph.nodes)}",
            )
            for key, name in (("generator", self.generator), ("discriminator", self.discriminator))
            if name not in graph
        ]
        if optimizer is not None and (
            not isinstance(optimizer, Mapping) or sorted(optimizer) != sorted(NAMES)
        ):
            errors.append(
                (
                    "optimizer",
                    "a GAN takes one optimizer per network: [optimizer.generator] and "
                    "[optimizer.discriminator] (or no [optimizer]: Adam(2e-4, beta_1=0.5) each)",
                )
            )
        if errors:
            raise twc.ConfigError(errors)
        try:
            return GAN(
                graph[self.generator],
                graph[self.discriminator],
                optimizer=optimizer,
                d_steps=self.d_steps,
                loss=self.loss,
                gradient_penalty=self.gradient_penalty,
                **options,
            )
        except tw.TensorweaveError as err:
            raise twc.ConfigError([("trainer", f"cannot make the GAN: {err}")]) from err
