"""Which distribution provides a name: metadata, qualified names and recorded provenance."""

from __future__ import annotations

from tensorweave.registries.provenance import hint_for, library_versions, provider_of
from tests.fakes import FUNCTION_SOURCE


def test_installed_metadata_names_the_provider_without_importing(fake_dists):
    dist = fake_dists.add(
        "fns",
        entry_points={"activations": {"Doubler.v1": "fns:double"}},
        modules={"fns": FUNCTION_SOURCE},
    )
    assert provider_of("activations", "Doubler.v1") == dist.name
    assert fake_dists.imported() == set()


def test_a_qualified_name_or_a_record_names_what_to_install():
    assert provider_of("layers", "Some_Pack:Thing.v1") == "some-pack"
    assert provider_of("layers", "Thing.v1", recorded="gone-pack 2.0") == "gone-pack"
    hint = hint_for("layers", "Thing.v1", recorded="gone-pack 2.0")
    assert hint == (
        "Thing.v1 was provided by gone-pack 2.0 when the config was saved: "
        "pip install 'gone-pack==2.0'"
    )
    assert "pip install gone-pack" in hint_for("layers", "gone-pack:Thing.v1")
    assert hint_for("layers", "Thing.v1") is None


def test_library_versions_name_every_plugin():
    versions = library_versions()
    assert versions["tensorweave"] and versions["tensorflow"] != "not installed"
    assert "tensorweave" in versions["plugins"]


def test_a_qualified_name_of_an_uninstalled_pack_says_what_to_install():
    import pytest

    import tensorweave as tw

    with pytest.raises(tw.UnknownComponentError, match="pip install tensorweave-nowhere"):
        tw.layers["tensorweave-nowhere:Thing.v1"]
