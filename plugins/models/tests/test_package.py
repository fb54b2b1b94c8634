"""The package is lazy: public names load on first use, and the modules the core imports
without building a model (the kind declaration, the counterparts table) import no
TensorFlow and nothing else of the pack; a lookup imports only its builder's modules (Keras weights code only when asked)."""

from __future__ import annotations

import subprocess
import sys

from tensorweave.testing import check_lazy_package, check_light_modules

PACKAGE = "tensorweave_models"


def test_every_public_name_resolves_lazily():
    check_lazy_package(PACKAGE)


def test_light_modules_import_no_tensorflow_and_no_other_module_of_the_pack():
    check_light_modules(PACKAGE, [f"{PACKAGE}.kinds", f"{PACKAGE}.counterparts"], allowed=[])


def test_a_lookup_imports_its_builder_and_not_the_other_builders():
    code = (
        "import sys, tensorweave as tw; tw.models['UNet.v1'];"
        "print(sorted(m for m in sys.modules if m.startswith('tensorweave_models')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(
        [
            "tensorweave_models",
            "tensorweave_models.build",
            "tensorweave_models.kinds",
            "tensorweave_models.unet",
        ]
    )
