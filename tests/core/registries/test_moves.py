"""moves: what a fixture pack declares moved (an alias entry point, a superseded version kept)
is found, followed to the end of its chain, without a warning; cycles and unknown names are
errors; a move is not inherited."""

from __future__ import annotations

import warnings

import pytest

import tensorweave as tw
from tensorweave.registries import Move, MoveCycleError, moved_to

MOVES = """
import tensorweave as tw
from tensorweave.registries import supersede

OLD_SCALE = tw.alias("twmv_scale.v2", reason="v2 takes the factor by keyword")


def scale(x, factor=2):
    return factor * x


@supersede("twmv_shift.v2", reason="v2 shifts by any amount")
def shift_v1(x):
    return x + 1


def shift_v2(x, by=1):
    return x + by


class Norm:
    def __call__(self, x):
        return x

Norm.superseded_by = "twmv_norm.v2"


class NormV2(Norm):
    pass

NormV2.superseded_by = "twmv_norm.v2"


class NormV3(Norm):
    pass
"""


@pytest.fixture
def pack(fake_dists):
    return fake_dists.add(
        "twmv-pack",
        "0.2",
        entry_points={
            "activations": {
                "twmv_scale.v1": "moves:OLD_SCALE",
                "twmv_scale.v2": "moves:scale",
                "twmv_shift.v1": "moves:shift_v1",
                "twmv_shift.v2": "moves:shift_v2",
                "twmv_norm.v1": "moves:Norm",
                "twmv_norm.v2": "moves:NormV2",
                "twmv_norm.v3": "moves:NormV3",
            }
        },
        modules={"moves": MOVES},
    )


def test_an_alias_and_a_superseded_version_are_moves_found_without_a_warning(pack):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading a move warns nothing
        alias = moved_to("activations", "twmv_scale.v1")
        kept = moved_to("activations", "twmv_shift.v1")
    assert alias == Move(
        "activations",
        "twmv_scale.v1",
        "twmv_scale.v2",
        "v2 takes the factor by keyword",
        f"{pack.name} 0.2",
    )
    assert kept is not None and (kept.new, kept.reason) == (
        "twmv_shift.v2",
        "v2 shifts by any amount",
    )
    assert kept.describe() == (
        f"activations twmv_shift.v1 -> twmv_shift.v2 (declared by {pack.name} 0.2): "
        "v2 shifts by any amount"
    )


def test_a_qualified_name_keeps_its_distribution(pack):
    moved = moved_to("activations", f"{pack.name}:twmv_shift.v1")
    assert moved is not None and moved.new == f"{pack.name}:twmv_shift.v2"


def test_what_is_current_did_not_move_and_a_subclass_does_not_inherit_a_move(pack):
    assert moved_to("activations", "twmv_scale.v2") is None
    assert moved_to("activations", "twmv_shift.v2") is None
    assert moved_to("activations", "twmv_norm.v2") is None  # declares itself: no move
    assert moved_to("activations", "twmv_norm.v3") is None  # Norm's declaration is Norm's
    assert moved_to("activations", "twmv_norm.v1").new == "twmv_norm.v2"  # type: ignore[union-attr]


def test_a_chain_is_followed_to_its_end_and_a_cycle_is_refused():
    with tw.registry("twmv_kind").scoped() as reg:
        reg.register("a.v3", lambda x: x)
        reg.deprecate("a.v1", "a.v2", reason="first")
        reg.register("a.v2", tw.registries.supersede("a.v3", reason="second")(lambda x: x))
        moved = moved_to("twmv_kind", "a.v1")
        assert moved == Move("twmv_kind", "a.v1", "a.v3", "first; second", "local")

        reg.register("b.v1", tw.registries.supersede("b.v2")(lambda x: x))
        reg.register("b.v2", tw.registries.supersede("b.v1")(lambda x: x))
        with pytest.raises(MoveCycleError, match=r"cycle: b.v1 -> b.v2 -> b.v1"):
            moved_to("twmv_kind", "b.v1")


def test_an_unknown_name_raises_with_the_closest_match(pack):
    with pytest.raises(tw.UnknownComponentError, match=r"Close matches: twmv_shift.v2"):
        moved_to("activations", "twmv_shfit.v2")
