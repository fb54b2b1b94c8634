"""The ``models`` kind's check: the builder contract, for this pack's builders and others'."""

from __future__ import annotations

import pytest

import tensorweave as tw
from tensorweave_models.kinds import builder_problem, models


def test_every_builder_of_this_pack_keeps_the_contract():
    for name in tw.models.names():
        assert builder_problem(tw.models[name]) is None, name


def test_the_kind_is_declared_with_its_check():
    assert "models" in tw.kinds() and models.check is builder_problem


@pytest.mark.parametrize(
    ("builder", "problem"),
    [
        (42, "a models builder is a callable returning a tw.Module, got int"),
        (lambda *, name=None: None, "takes its input first"),
        (lambda x, classes=3: None, "takes name="),
    ],
)
def test_what_is_not_a_builder_is_refused_at_registration(builder, problem):
    with tw.models.scoped() as reg, pytest.raises(tw.InvalidComponentError, match=problem):
        reg.register("Broken.v1", builder)


def test_a_builder_of_another_pack_registers_and_builds_by_name():
    def Tiny(x, *, classes=2, name=None):
        return tw.Module(x, tw.layers["FC.v1"](x, classes, name=name, activation="relu"), name=name)

    with tw.models.scoped() as reg:
        reg.register("Tiny.v1", Tiny)
        net = tw.models["Tiny.v1"](tw.Input(n_units=3), classes=4)
        assert isinstance(net, tw.Module) and net.shape == (None, 4)
