"""The conformance kit on every component of this pack: one row per configuration.

Names are qualified with this distribution (``"tensorweave-template:TemplateScale.v1"``) so the
checks test this pack's component even when another installed pack offers the same name.
"""

from tensorweave.testing import Case, test_conformance  # noqa: F401

PACK = "tensorweave-template"

TENSORWEAVE_CASES = [
    Case(f"{PACK}:TemplateScale.v1", inputs=[(None, 3)]),
    Case(f"{PACK}:TemplateScale.v1", {"initial": 0.5}, inputs=[(None, None, 4)]),
    Case(f"{PACK}:template_log_cosh.v1", kind="losses", inputs=[(None, 3), (None, 3)]),
]
