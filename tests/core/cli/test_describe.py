"""tensorweave describe: read from source (no import), or from the live object with --load."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tensorweave.cli import main
from tensorweave.cli.describe import signature_from_source
from tests.fakes import LAYER_SOURCE

SOURCE = textwrap.dedent(
    '''
    class Widget:
        """Whirrs."""

        def __init__(self, x, /, n_units: int = 3, *rest, scale=1.0, name: str | None = None, **kw):
            pass

        class Inner:
            def __init__(self, *, depth: int):
                """Nested."""


    def helper(a, b=2, *, c):
        """Helps."""


    ALIAS = make_alias("Widget.v2")
    '''
)


@pytest.mark.parametrize(
    ("qualname", "signature", "doc"),
    [
        (
            "Widget",
            "Widget(x, /, n_units: int = 3, *rest, scale=1.0, name: str | None = None, **kw)",
            "Whirrs.",
        ),
        ("Widget.Inner", "Inner(*, depth: int)", ""),
        ("helper", "helper(a, b=2, *, c)", "Helps."),
        ("ALIAS", "ALIAS = make_alias('Widget.v2')", ""),
    ],
)
def test_signatures_and_docs_come_from_the_source(qualname, signature, doc):
    assert signature_from_source(SOURCE, qualname) == (signature, doc)


def test_an_unknown_name_is_none():
    assert signature_from_source(SOURCE, "Nothing") is None


def test_describe_reads_a_plugin_without_importing_it(fake_dists, capsys):
    dist = fake_dists.add(
        "described",
        entry_points={"layers": {"Thing.v1": "pkgmod:Thing"}},
        modules={"pkgmod": LAYER_SOURCE},
    )
    assert main(["describe", "Thing.v1"]) == 0
    out = capsys.readouterr().out
    assert f"Thing.v1  (layers, from {dist.name} 1.0" in out
    assert "signature: Thing(x, *, offset=1.0, name=None, share_state_with=None)" in out
    assert fake_dists.imported() == set()
    assert main(["describe", "Thing.v1", "--load"]) == 0
    assert "offset=1.0" in capsys.readouterr().out and fake_dists.imported()


def test_an_unknown_component_exits_3_with_close_matches(capsys):
    assert main(["describe", "Lineer.v1"]) == 3
    err = capsys.readouterr().err
    assert "no component 'Lineer.v1'" in err and "Close matches" in err


@pytest.mark.slow
def test_a_command_that_loads_tensorflow_prints_none_of_its_start_up_notices():
    done = subprocess.run(
        [sys.executable, "-m", "tensorweave.cli", "describe", "Lambda.v1", "--load"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "Lambda.v1" in done.stdout
    for notice in ("absl::InitializeLog", "oneDNN", "cuda drivers", "cuInit"):
        assert notice not in done.stderr
