"""tensorweave describe: read from source (no import), or from the live object with --load."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tensorweave.cli import main
from tensorweave.registries.sources import signature_from_source
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


KNOB_SOURCE = """
import tensorweave as tw


class Knob(tw.Layer):
    \"\"\"Turns.\"\"\"

    def __init__(self, x, *, rate=0.5, activation=None, name=None, share_state_with=None):
        super().__init__(x, shape=x.shape, dtype=x.dtype, name=name)


def onehot(x, num_classes=2):
    return x
"""

TABLE_SOURCE = """
import tensorweave as tw

COUNTERPARTS = (
    tw.Counterpart("Knob.v1", keras="keras.layers.Dropout", also=("tensorlayer.layers.Drop",)),
    tw.Counterpart("Knob.v1", keras="keras.layers.KnobRNN", usage='cell="KnobCell.v1"'),
)
"""


@pytest.fixture
def knob(fake_dists):
    return fake_dists.add(
        "knobs",
        entry_points={
            "layers": {"Knob.v1": "knob:Knob"},
            "processors": {"onehot.v1": "knob:onehot"},
            "counterparts": {"knobs": "table:COUNTERPARTS"},
        },
        modules={"knob": KNOB_SOURCE, "table": TABLE_SOURCE},
    )


def test_describe_shows_the_same_signature_from_source_and_loaded(knob, capsys):
    assert main(["describe", "Knob.v1"]) == 0
    from_source = capsys.readouterr().out
    assert "rate=0.5, activation=None" in from_source
    assert main(["describe", "onehot.v1"]) == 0
    assert "num_classes=2" in capsys.readouterr().out
    assert knob.module("knob") not in sys.modules  # read from source
    assert main(["describe", "Knob.v1", "--load"]) == 0
    assert "rate=0.5, activation=None" in capsys.readouterr().out


def test_describe_shows_the_keras_counterpart_and_other_names(knob, capsys):
    assert main(["describe", "Knob.v1"]) == 0
    out = capsys.readouterr().out
    assert "Keras counterpart: keras.layers.Dropout, same outputs and gradients (tested)" in out
    assert 'Keras counterpart: keras.layers.KnobRNN (with cell="KnobCell.v1")' in out
    assert "also known as: tensorlayer.layers.Drop" in out


def test_an_unknown_name_known_elsewhere_is_told_what_does_its_job(knob, capsys):
    assert main(["describe", "Drop.v1"]) == 3
    err = capsys.readouterr().err
    assert "Drop is tensorlayer.layers.Drop elsewhere; in tensorweave: Knob.v1" in err


def test_describe_lists_every_provider_of_a_clashing_name(fake_dists, capsys):
    a = fake_dists.add(
        "twin-a", entry_points={"layers": {"Twin.v1": "ta:Thing"}}, modules={"ta": LAYER_SOURCE}
    )
    b = fake_dists.add(
        "twin-b", entry_points={"layers": {"Twin.v1": "tb:Thing"}}, modules={"tb": LAYER_SOURCE}
    )
    assert main(["describe", "Twin.v1"]) == 0
    out = capsys.readouterr().out
    assert f"ask for {a.name}:Twin.v1 or {b.name}:Twin.v1" in out
    assert f"{a.name}:Twin.v1  (layers, from {a.name} 1.0" in out
    assert f"{b.name}:Twin.v1  (layers, from {b.name} 1.0" in out
    assert main(["describe", f"{b.name}:Twin.v1"]) == 0
    out = capsys.readouterr().out
    assert a.name not in out and f"Twin.v1  (layers, from {b.name} 1.0" in out
