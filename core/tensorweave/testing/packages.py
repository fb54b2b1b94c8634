"""Checks a pack runs on itself: its public door is lazy, its light modules stay light.

A lookup must import its provider's module and nothing else, and ``tensorweave plugins``
must not import TensorFlow, so a pack's ``__init__`` loads names on first use and its kind
declarations and hook modules import no TensorFlow. A pack's test module says::

    from tensorweave.testing import check_lazy_package, check_light_modules

    def test_package_is_lazy():
        check_lazy_package("my_pack")

    def test_light_modules():
        check_light_modules("my_pack", ["my_pack.kinds", "my_pack.hooks"])

>>> check_lazy_package("tensorweave_doc_missing")
Traceback (most recent call last):
...
ModuleNotFoundError: No module named 'tensorweave_doc_missing'
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Sequence

__all__ = ["check_lazy_package", "check_light_modules"]


def check_lazy_package(package: str) -> None:
    """Every name in ``package.__all__`` resolves, and ``dir(package)`` lists them."""
    module = importlib.import_module(package)
    names = list(getattr(module, "__all__", []))
    assert names, f"{package} has no __all__: list its public names"
    for name in names:
        assert getattr(module, name) is not None, f"{package}.{name} does not resolve"
    missing = set(names) - set(dir(module))
    assert not missing, f"dir({package}) lacks {sorted(missing)}"


def check_light_modules(
    package: str, modules: Sequence[str], *, allowed: Sequence[str] = ()
) -> None:
    """Importing ``modules`` in a fresh interpreter imports no TensorFlow and, of
    ``package``, only the package itself, those modules and ``allowed``."""
    code = (
        f"import json, sys, {', '.join(modules)}; "
        f"print(json.dumps([sorted(m for m in sys.modules if m == {package!r} "
        f"or m.startswith({package + '.'!r})), 'tensorflow' in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    imported, tensorflow = json.loads(done.stdout.strip().splitlines()[-1])
    assert tensorflow is False, f"importing {list(modules)} imported TensorFlow"
    extra = set(imported) - {package, *modules, *allowed}
    assert not extra, f"importing {list(modules)} also imported {sorted(extra)}"
