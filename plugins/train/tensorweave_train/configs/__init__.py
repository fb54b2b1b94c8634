"""This pack's built-in jobs: config files shipped in this folder, each registered by name
in the ``jobs`` kind (``[project.entry-points."tensorweave.jobs"]``), so ``tensorweave train
digits`` finds its file through the registry, as it finds any pack's job.

>>> import tensorweave as tw
>>> tw.registry("jobs")["digits"].name, chars.name
('digits.toml', 'chars.toml')
"""

from __future__ import annotations

from importlib import resources

__all__ = ["digits", "chars", "dcgan"]

_HERE = resources.files(__name__)

digits = _HERE / "digits.toml"
"""A small MLP classifier on scikit-learn's 8x8 handwritten digits: the default job."""

chars = _HERE / "chars.toml"
"""A character-level LSTM language model on the source of Python's standard library."""

dcgan = _HERE / "dcgan.toml"
"""A DCGAN on the 8x8 digits, trained through Model.train by the GANTrainer.v1 recipe."""
