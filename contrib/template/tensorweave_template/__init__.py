"""tensorweave-template: one layer (``Scale.v1``) and one loss (``log_cosh.v1``).

Nothing here needs importing: once the distribution is installed, tensorweave finds the
components through the entry points in ``pyproject.toml`` and imports a module only when
its component is first asked for by name.

>>> import tensorweave as tw
>>> "tensorweave-template:Scale.v1" in tw.layers
True
"""
