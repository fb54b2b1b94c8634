"""Discovery: scanning installed distributions' metadata without importing plugin code."""

from __future__ import annotations

import pytest

import tensorweave as tw
from tensorweave.registries.discovery import (
    BLOCK_ENV,
    CORE_VERSION,
    DistributionInfo,
    catalog,
    normalize,
)
from tests.fakes import FUNCTION_SOURCE, LAYER_SOURCE


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("Tensorweave_Layers", "tensorweave-layers"), ("a.b--c", "a-b-c"), ("plain", "plain")],
)
def test_normalize_follows_pep_503(raw, expected):
    assert normalize(raw) == expected


def test_a_fake_distribution_is_found_with_its_metadata(fake_dists):
    dist = fake_dists.add(
        "My_Pack",
        "2.3.1",
        entry_points={
            "layers": {"Thing.v1": "mod:Thing"},
            "activations": {"double.v1": "fns:double"},
        },
        modules={"mod": LAYER_SOURCE, "fns": FUNCTION_SOURCE},
        requires=["tensorweave>=0.1,<2", "numpy>=1"],
    )
    assert dist.name.startswith("my-pack-")
    info = tw.plugins.distributions()[dist.name]
    assert isinstance(info, DistributionInfo)
    assert (info.name, info.version) == (dist.name, "2.3.1")
    assert info.requires_core in ("<2,>=0.1", ">=0.1,<2")
    assert info.compatible
    groups = {ep.group: ep for ep in info.entry_points}
    assert set(groups) == {"tensorweave.layers", "tensorweave.activations"}
    layer_ep = groups["tensorweave.layers"]
    assert (layer_ep.name, layer_ep.value) == ("Thing.v1", f"{dist.module('mod')}:Thing")
    assert layer_ep.distribution == dist.name and layer_ep.version == "2.3.1"
    assert layer_ep in catalog.entry_points("tensorweave.layers")
    assert layer_ep in catalog.groups()["tensorweave.layers"]
    assert fake_dists.imported() == set()
    assert layer_ep.load().__name__ == "Thing"  # load() is where plugin code runs


def test_distributions_without_tensorweave_entry_points_are_ignored(fake_dists):
    other = fake_dists.add("unrelated", entry_points={"otherapp.plugins": {"tool": "mod:main"}})
    assert other.name not in tw.plugins.distributions()


def test_the_same_distribution_twice_on_the_path_first_wins(fake_dists):
    first = fake_dists.add(
        "twice",
        "1.0",
        entry_points={"layers": {"A.v1": "mod:Thing"}},
        modules={"mod": LAYER_SOURCE},
        exact_name=True,
    )
    fake_dists.add("twice", "9.0", entry_points={"layers": {"B.v1": "mod:Thing"}}, exact_name=True)
    info = tw.plugins.distributions()[first.name]
    assert info.version == "1.0" and [ep.name for ep in info.entry_points] == ["A.v1"]
    assert "B.v1" not in tw.layers


@pytest.mark.parametrize(
    ("requires", "compatible"),
    [
        ([], True),
        (["tensorweave"], True),
        (["tensorweave>=0.1"], True),
        (["tensorweave<0.1"], False),
        (["tensorweave>=1.0,<2"], False),
        (["Tensorweave==0.1.*"], True),
        (["tensorweave<0.1; python_version < '3'"], True),  # markers: not a core requirement
        (["tensorweave-layers<0.1"], True),  # another distribution
    ],
)
def test_declared_core_range(fake_dists, requires, compatible):
    dist = fake_dists.add(
        "ranged", entry_points={"layers": {"R.v1": "mod:Thing"}}, requires=requires
    )
    assert tw.plugins.distributions()[dist.name].compatible is compatible


def test_core_version_is_the_package_version():
    assert tw.__version__ == CORE_VERSION
    assert DistributionInfo("x", "1", "<0.1").compatible is False
    assert DistributionInfo("x", "1", "not a range").compatible is True


def test_refresh_rescans_and_bumps_the_generation(fake_dists):
    before = catalog.generation
    dist = fake_dists.add("late", entry_points={"layers": {"Late.v1": "mod:Thing"}})
    assert catalog.generation > before
    assert "Late.v1" in tw.layers and dist.name in tw.plugins.distributions()


def test_blocked_reads_the_environment_each_time(monkeypatch):
    monkeypatch.setenv(BLOCK_ENV, "Some_Pack, other.pack,,")
    assert {"some-pack", "other-pack"} <= catalog.blocked()
    assert catalog.is_blocked("SOME-PACK") and not catalog.is_blocked("third")
    monkeypatch.delenv(BLOCK_ENV)
    assert not catalog.is_blocked("some-pack")


def test_block_and_unblock_bump_the_generation():
    before = catalog.generation
    tw.plugins.block("Demo_Pack")
    try:
        assert "demo-pack" in tw.plugins.blocked() and catalog.generation > before
    finally:
        tw.plugins.unblock("demo-pack")
    assert "demo-pack" not in tw.plugins.blocked()
