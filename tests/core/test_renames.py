"""tw.renamed_arguments: old argument names keep working, warn, and never reach a signature."""

from __future__ import annotations

import inspect
import warnings

import pytest

import tensorweave as tw
from tensorweave.config import fill, resolve, validate


@tw.renamed_arguments({"n_classes": "num_classes", "p": "rate"})
def _count(ids: list[int], num_classes: int = 2, rate: float = 0.0) -> tuple[int, float]:
    return num_classes, rate


def test_old_name_runs_as_the_new_one_and_warns_naming_it():
    with pytest.warns(tw.RenamedArgumentWarning, match=r"'n_classes' is renamed 'num_classes'"):
        assert _count([1], n_classes=5) == (5, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _count([1], num_classes=3, rate=0.5) == (3, 0.5)  # new names: silent


def test_both_names_is_an_error_and_the_signature_shows_new_names_only():
    with pytest.raises(TypeError, match=r"both 'num_classes' and its deprecated alias 'n_classes'"):
        _count([1], n_classes=5, num_classes=5)
    assert list(inspect.signature(_count).parameters) == ["ids", "num_classes", "rate"]
    assert tw.renames_of(_count) == {"n_classes": "num_classes", "p": "rate"}
    assert issubclass(tw.RenamedArgumentWarning, FutureWarning)  # shown to users by default


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="old"):
        tw.renamed_arguments({"same": "same"})


def test_a_layer_records_the_new_names_so_reuse_does_not_warn_again():
    import tensorflow as tf

    @tw.renamed_arguments({"factor": "scale"})
    class Scale(tw.Layer):
        def __init__(self, x, *, scale=1.0, name=None, share_state_with=None):
            self.scale = scale
            super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

        def compute(self, x):
            return x * self.scale

    class Twice(Scale):  # a subclass inherits the aliases of its bases' constructors
        pass

    x = tw.Input(n_units=2)
    with pytest.warns(tw.RenamedArgumentWarning, match="Scale: the argument 'factor'"):
        layer = Scale(x, factor=3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = layer.reuse_with(tw.Input(n_units=2))
    assert again.scale == 3.0 and again.shares_state_with(layer)
    assert float(tf.reduce_sum(again.compute(tf.ones([1, 2])))) == 6.0
    assert tw.renames_of(Twice) == {"factor": "scale"}
    with pytest.warns(tw.RenamedArgumentWarning):
        assert Twice(x, factor=2.0).scale == 2.0


def test_config_files_accept_old_names_with_a_warning_and_fill_writes_new_ones():
    with tw.registry("demo_renames").scoped() as reg:
        reg.register("Count.v1")(_count)
        cfg = {"c": {"@demo_renames": "Count.v1", "ids": [1], "n_classes": 4}}
        with pytest.warns(tw.RenamedArgumentWarning, match=r"c\.n_classes \(Count\.v1\)"):
            assert validate(cfg) == []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tw.RenamedArgumentWarning)
            assert resolve(cfg) == {"c": (4, 0.0)}
            filled = fill(cfg)["c"]
        assert filled["num_classes"] == 4 and "n_classes" not in filled
        both = {"c": {"@demo_renames": "Count.v1", "ids": [1], "n_classes": 4, "num_classes": 4}}
        assert any("deprecated name of 'num_classes'" in m for _, m in validate(both))
        typo = {"c": {"@demo_renames": "Count.v1", "ids": [1], "n_classes": "four"}}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tw.RenamedArgumentWarning)
            assert [p for p, _ in validate(typo)] == ["c.n_classes"]  # typed as the new one
