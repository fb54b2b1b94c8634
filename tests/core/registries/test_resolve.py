"""tw.resolve: the one rule from an option value to a component."""

from __future__ import annotations

import pytest

import tensorweave as tw


@pytest.fixture
def steps():
    reg = tw.registry("test_steps")
    with reg.scoped():
        reg.register("double.v1", lambda x: 2 * x)
        reg.register("double.v2", lambda x: 20 * x)
        yield reg


def test_a_callable_is_used_as_it_is(steps):
    assert tw.resolve("test_steps", abs) is abs


def test_a_bare_name_picks_the_latest_version_and_an_exact_one_that_version(steps):
    assert tw.resolve("test_steps", "double")(1) == 20
    assert tw.resolve("test_steps", "double.v1")(1) == 2
    assert tw.resolve("test_steps", "local:double.v1")(1) == 2


def test_none_means_the_default_name_or_nothing(steps):
    assert tw.resolve("test_steps", None) is None
    assert tw.resolve("test_steps", None, default="double.v1")(1) == 2


def test_an_unknown_name_says_who_asked_and_close_matches(steps):
    with pytest.raises(tw.UnknownComponentError) as err:
        tw.resolve("test_steps", "dubble", owner="Linear 'linear'", option="w_init")
    message = str(err.value)
    assert message.startswith("Linear 'linear': w_init='dubble'")
    assert "double.v1" in message


@pytest.mark.parametrize("bad", [3, "", [1], 2.5])
def test_anything_else_is_refused(steps, bad):
    with pytest.raises(TypeError, match="must be a registered test_steps name or a callable"):
        tw.resolve("test_steps", bad)


def test_a_typo_of_the_base_name_gets_close_matches(steps):
    with pytest.raises(tw.UnknownComponentError, match=r"Close matches: double\.v[12]"):
        tw.resolve("test_steps", "duoble")
    with pytest.raises(tw.UnknownComponentError, match=r"Close matches: double\.v[12]"):
        tw.resolve("test_steps", "doub")
