"""Reading entry-point targets from source: definitions, re-exports, kinds' docs and
what is wrong with a target, without importing anything."""

from __future__ import annotations

import sys

from tensorweave.registries.sources import (
    find,
    kind_doc,
    signature_and_doc,
    target_problem,
)

PACKAGE = {
    "__init__.py": "from .impl import Widget as Widget\n",
    "impl.py": (
        "import tensorweave as tw\n\n"
        "class Widget:\n"
        '    """Whirrs."""\n\n'
        "    def __init__(self, rate=1.0):\n        pass\n\n"
        'gadgets = tw.Kind.of_callables("gadgets", doc="things that whirr")\n'
    ),
    "lazy.py": "def __getattr__(name):\n    raise AttributeError(name)\n",
    "values.py": (
        'digits = "digits.toml"\n"""The default job:\n  a classifier."""\n\n'
        'chars = "chars.toml"\n\nx = 1\n"""Not chars\'s."""\n'
    ),
}


def _package(tmp_path, monkeypatch, name):
    root = tmp_path / name
    root.mkdir()
    for file, text in PACKAGE.items():
        (root / file).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_a_definition_is_found_through_a_re_export(tmp_path, monkeypatch):
    pkg = _package(tmp_path, monkeypatch, "srcpkg_reexport")
    found = find(f"{pkg}:Widget")
    assert found is not None and found.module == f"{pkg}.impl"
    assert signature_and_doc(f"{pkg}:Widget") == ("Widget(rate=1.0)", "Whirrs.")
    assert pkg not in sys.modules  # nothing was imported


def test_kind_docs_are_read_from_the_source(tmp_path, monkeypatch):
    pkg = _package(tmp_path, monkeypatch, "srcpkg_meta")
    assert kind_doc(f"{pkg}.impl:gadgets") == "things that whirr"
    assert kind_doc(f"{pkg}.impl:Widget") == ""


def test_target_problems_name_what_is_missing_and_the_close_matches(tmp_path, monkeypatch):
    pkg = _package(tmp_path, monkeypatch, "srcpkg_problems")
    assert target_problem(f"{pkg}.impl:Widget") is None
    assert target_problem(f"{pkg}.impl:Widgit") == (
        f"{pkg}.impl does not define 'Widgit' (close matches: Widget)"
    )
    assert "close matches: impl" in target_problem(f"{pkg}.imp:Widget")
    assert (
        target_problem("srcpkg_not_installed.x:Y")
        == "no module 'srcpkg_not_installed.x' is installed"
    )
    assert target_problem(f"{pkg}.lazy:Anything") is None  # __getattr__: cannot tell


def test_a_value_is_documented_by_the_string_after_it(tmp_path, monkeypatch):
    pkg = _package(tmp_path, monkeypatch, "srcpkg_values")
    assert signature_and_doc(f"{pkg}.values:digits") == (
        "digits = 'digits.toml'",
        "The default job:\na classifier.",
    )
    assert signature_and_doc(f"{pkg}.values:chars") == ("chars = 'chars.toml'", "")
    assert f"{pkg}.values" not in sys.modules
