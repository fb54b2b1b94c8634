"""GANs through ``Model.train``: ``GAN`` (the model: a generator and a discriminator trained
in turn), ``GANTrainer`` (the ``GANTrainer.v1`` recipe of a job config's ``[trainer]``
section), ``LatentNoise`` (resumable latent draws) and the adversarial ``losses``.
"""
