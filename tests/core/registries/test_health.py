"""What ``tensorweave plugins`` reports, from metadata alone: clashes, undeclared kinds,
broken entry-point targets."""

from __future__ import annotations

import tensorweave as tw
from tensorweave.registries.health import broken_targets, clashes, undeclared_kinds
from tests.fakes import FUNCTION_SOURCE, LAYER_SOURCE

KIND_SOURCE = """
import tensorweave as tw

whirrers = tw.Kind.of_callables("whirrers", doc="things that whirr")
"""


def test_a_clash_names_every_provider_and_the_qualified_names(fake_dists):
    a = fake_dists.add(
        "health-a", entry_points={"layers": {"Twin.v1": "la:Thing"}}, modules={"la": LAYER_SOURCE}
    )
    b = fake_dists.add(
        "health-b",
        "2.0",
        entry_points={"layers": {"Twin.v1": "lb:Thing"}},
        modules={"lb": LAYER_SOURCE},
    )
    [clash] = [c for c in clashes() if c.name == "Twin.v1"]
    assert clash.kind == "layers" and clash.distributions == (a.name, b.name)
    assert clash.qualified_names == (f"{a.name}:Twin.v1", f"{b.name}:Twin.v1")
    assert f"offered by {a.name} 1.0, {b.name} 2.0" in clash.describe()
    tw.plugins.block(b.name)
    assert [c for c in clashes() if c.name == "Twin.v1"] == []
    assert fake_dists.imported() == set()


def test_kinds_filled_but_not_declared(fake_dists):
    filler = fake_dists.add(
        "health-filler",
        entry_points={"whirrers": {"spin.v1": "fns:double"}},
        modules={"fns": FUNCTION_SOURCE},
    )
    assert undeclared_kinds()["whirrers"] == [f"{filler.name} 1.0"]
    fake_dists.add(
        "health-declarer",
        entry_points={"kinds": {"whirrers": "kinds:whirrers"}},
        modules={"kinds": KIND_SOURCE},
    )
    assert "whirrers" not in undeclared_kinds()
    assert tw.registry("whirrers").doc == "things that whirr"


def test_a_target_missing_from_the_source_is_broken(fake_dists):
    pack = fake_dists.add(
        "health-typo",
        entry_points={"layers": {"Thing.v1": "la:Thng", "Fine.v1": "la:Thing"}},
        modules={"la": LAYER_SOURCE},
    )
    [broken] = [b for b in broken_targets() if b.ref.distribution == pack.name]
    assert broken.ref.name == "Thing.v1" and "(close matches: Thing)" in broken.problem
    assert f"Fix (author of {pack.name})" in broken.describe()
    assert fake_dists.imported() == set()
