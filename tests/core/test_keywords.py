"""tensorweave.keywords: a wrong keyword, from Python or a config, names the parameters and
the closest one, through one check."""

from __future__ import annotations

import warnings

import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave import config
from tensorweave.keywords import check_keywords, component_label, keywords_of, unknown_keyword


class Scale(tw.Layer):
    def __init__(
        self,
        x: tw.Layer,
        *,
        factor: float = 1.0,
        activation: str | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        self.factor = factor
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x: tf.Tensor) -> tf.Tensor:
        return x * self.factor


def test_a_python_keyword_mistake_lists_the_parameters_and_the_closest_one():
    x = tw.Input(n_units=2)
    with pytest.raises(tw.ArgumentError) as err:
        Scale(x, activaton="relu")
    text = str(err.value)
    assert text.startswith("Scale: 'activaton' is not a parameter of Scale.")
    assert "Did you mean 'activation'?" in text
    assert "Parameters: x, factor, activation, name, share_state_with." in text
    assert isinstance(err.value, TypeError)  # what Python would have raised, still caught


def test_a_registered_layer_names_its_distribution():
    x = tw.Input(n_units=2)
    with pytest.raises(tw.ArgumentError, match=r"^FC \(tensorweave-layers [\d.]+\): 'activaton'"):
        tw.layers["tensorweave-layers:FC.v1"](x, n_units=3, activaton="relu")


def test_a_config_gets_the_same_words_as_python():
    with tw.layers.scoped():
        tw.layers.register("KwScale.v1", Scale)
        cfg = {"nodes": {"x": {"input": [2]}, "s": {"@layers": "KwScale.v1", "inputs": ["x"]}}}
        cfg["nodes"]["s"]["activaton"] = "relu"
        (path, message), *_ = config.validate({"model": cfg})
        x = tw.Input(n_units=2)
        with pytest.raises(tw.ArgumentError) as err:
            tw.layers["KwScale.v1"](x, activaton="relu")
    assert path == "model.nodes.s.activaton"
    expected = unknown_keyword("activaton", "KwScale.v1", ["factor", "activation"])
    assert message == expected
    assert "Did you mean 'activation'?" in message and "Did you mean 'activation'?" in str(
        err.value
    )


def test_every_stateful_is_checked_not_only_layers():
    class Counter(tw.Stateful):
        def __init__(self, start: int = 0) -> None:
            super().__init__(name="counter")
            self.start = start

    assert Counter(start=2).start == 2
    with pytest.raises(
        tw.ArgumentError, match=r"'strat' is not a parameter of Counter\. Did you mean 'start'"
    ):
        Counter(strat=2)


def test_var_keywords_are_accepted():
    x = tw.Input(n_units=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tw.Lambda(tf.reduce_sum, x, axis=-1).shape == (None,)  # **fn_kwargs: open
    assert keywords_of(tw.Lambda).open and not keywords_of(Scale).open


def test_functions_and_the_message_helpers():
    def loss(labels, predictions, *, from_logits=False):
        return labels

    check_keywords(loss, {"from_logits": True})
    with pytest.raises(
        tw.ArgumentError,
        match=r"'form_logits' is not a parameter of loss\. Did you mean 'from_logits'",
    ):
        check_keywords(loss, {"form_logits": True})
    assert keywords_of(loss).names == ("labels", "predictions", "from_logits")
    assert unknown_keyword("zzz", "f", []) == "'zzz' is not a parameter of f. Parameters: none."
    assert component_label(loss).startswith("test_functions_and_the_message_helpers.<locals>.loss")
