"""The package is lazy: public names load on first use, and the modules the core imports
without loading a component (kind declarations, hook modules) import no TensorFlow and
nothing else of the pack."""

from tensorweave.testing import check_lazy_package, check_light_modules

PACKAGE = "tensorweave_layers"
LIGHT = ["tensorweave_layers.options.kinds"]


def test_every_public_name_resolves_lazily():
    check_lazy_package(PACKAGE)


def test_light_modules_import_no_tensorflow_and_no_other_module_of_the_pack():
    check_light_modules(PACKAGE, LIGHT, allowed=[f"{PACKAGE}.hookspecs", f"{PACKAGE}.options"])
