"""tensorweave-template: one layer (``TemplateScale.v1``) and one loss (``template_log_cosh.v1``).

Nothing here needs importing: once the distribution is installed, tensorweave finds the
components through the entry points in ``pyproject.toml`` and imports a module only when
its component is first asked for by name. Importing the package is cheap too: a public
name's module is imported when the name is first used (``__getattr__`` below), so an entry
point's module never drags in the rest of the pack.

>>> import tensorweave as tw
>>> "tensorweave-template:TemplateScale.v1" in tw.layers
True
>>> import tensorweave_template
>>> tensorweave_template.Scale is tw.layers["tensorweave-template:TemplateScale.v1"]
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:  # the lazily imported names, for type checkers
    from tensorweave_template.losses import log_cosh
    from tensorweave_template.scale import Scale

# Public name -> the submodule that defines it, imported on first use (PEP 562).
_EXPORTS = {"Scale": "scale", "log_cosh": "losses"}

__all__ = ["Scale", "log_cosh"]


__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
