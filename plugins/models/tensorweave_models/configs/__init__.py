"""This pack's built-in job (the train pack's ``jobs`` kind): ``tensorweave train
transformer-chars``, a config file shipped in this folder and named in the pack's
``[project.entry-points."tensorweave.jobs"]``.

>>> import tensorweave as tw
>>> tw.registry("jobs")["transformer-chars"].name
'transformer_chars.toml'
"""

from __future__ import annotations

from importlib import resources

__all__ = ["transformer_chars"]

transformer_chars = resources.files(__name__) / "transformer_chars.toml"
"""A character Transformer language model (TransformerLM.v1) on Python's standard library."""
