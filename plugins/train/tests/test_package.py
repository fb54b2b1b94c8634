"""The package is lazy: public names load on first use, and the modules the core imports
without loading a component (kind declarations, hook modules) import no TensorFlow and
nothing else of the pack."""

import importlib
import json
import subprocess
import sys

PACKAGE = "tensorweave_train"
LIGHT = ["tensorweave_train.kinds", "tensorweave_train.hooks", "tensorweave_train.commands"]


def test_every_public_name_resolves_lazily():
    package = importlib.import_module(PACKAGE)
    assert sorted(package.__all__) == sorted([*package._EXPORTS, "__version__"])
    for name in package.__all__:
        assert getattr(package, name) is not None, name
    assert set(package.__all__) <= set(dir(package))


def test_light_modules_import_no_tensorflow_and_no_other_module_of_the_pack():
    code = (
        f"import json, sys, {', '.join(LIGHT)}; "
        f"print(json.dumps([sorted(m for m in sys.modules if m.startswith('{PACKAGE}')), "
        "'tensorflow' in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules, tensorflow = json.loads(done.stdout)
    assert tensorflow is False
    allowed = {PACKAGE, *LIGHT, f"{PACKAGE}.contract", f"{PACKAGE}.hookspecs"}
    assert set(modules) <= allowed, set(modules) - allowed
