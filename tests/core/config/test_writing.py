"""``config.writing``: graphs built in Python written back as config blocks that rebuild
them through the registries (nodes, shared states, modules, frozen layers, configurable
objects), and every part without a config form named at once."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave import config
from tensorweave.config import ConfigError, Configurable, graph_block, promise_of
from tests.core.config.test_resolve import Scale  # a tiny layer with an option and a variable


class Decay(Configurable):
    def __init__(self, rate: float, *, floor: float = 0.0) -> None:
        self.rate, self.floor = rate, floor


@pytest.fixture
def regs() -> Iterator[None]:
    with tw.layers.scoped(), tw.registry("cfgtest_decays").scoped() as decays:
        tw.layers.register("CfgScale.v1", Scale)
        decays.register("Decay.v1", Decay)
        yield


def test_a_graph_round_trips_through_its_config(regs: None) -> None:
    tw.reset_names()
    x = tw.Input(n_units=3, name="x")
    a = Scale(x, 4, init=0.5, name="a")
    inner = tw.Input(n_units=4, name="h")
    block = tw.Module(inner, Scale(inner, 2, name="s"), name="block").freeze()
    twice = Scale(a, 4, name="sq")
    tied = twice.reuse_with(twice, name="tied")  # the same weights twice
    out = block.reuse_with(tied, name="b2")
    written = graph_block({"inputs": [x], "outputs": [out, block]})
    nodes = written["nodes"]
    assert nodes["x"] == {"input": [3], "dtype": "float32"}
    assert nodes["a"] == {"@layers": "CfgScale.v1", "n_units": 4, "init": 0.5, "inputs": ["x"]}
    assert nodes["tied"] == {"reuse": "sq", "inputs": ["sq"]}
    assert nodes["block"]["trainable"] is False
    assert nodes["block"]["module"]["nodes"]["s"]["@layers"] == "CfgScale.v1"
    built = config.resolve_graph(written, "model")
    rebuilt = tw.Graph.build(inputs=None, outputs=built[written["outputs"][0]])
    feed = np.ones((2, 3), "float32")
    original = tw.Graph.build(inputs=None, outputs=out)
    np.testing.assert_array_equal(rebuilt.run(feed), original.run(feed))
    assert not built[written["outputs"][1]].trainable


def test_a_configurable_object_is_written_as_its_promise(regs: None) -> None:
    assert promise_of(Decay(0.1, floor=0.01)) == {
        "@cfgtest_decays": "Decay.v1",
        "rate": 0.1,
        "floor": 0.01,
    }
    assert config.resolve({"d": promise_of(Decay(0.3))})["d"].rate == 0.3


def test_parts_without_a_config_form_are_all_named(regs: None) -> None:
    class Mine(Scale):
        """Registered nowhere."""

    x = tw.Input(n_units=2, name="x")
    mine = Mine(x, 2, name="mine")
    odd = Scale(mine, 2, init=np.array(0.5), name="odd")  # type: ignore[arg-type]
    lam = tw.Lambda(lambda t: tf.square(t), odd, name="sq")
    with pytest.raises(ConfigError) as info:
        graph_block({"outputs": lam})
    errors = dict(info.value.errors)
    assert errors["model.nodes.mine"].startswith("Mine 'mine' is a class no installed pack")
    assert errors["model.nodes.odd.init"].startswith("ndarray array(0.5)")
    assert errors["model.nodes.sq"].startswith("Lambda 'sq' applies <lambda>")
    assert all("Fix:" in message for message in errors.values())


def test_an_unregistered_configurable_is_an_error() -> None:
    with pytest.raises(ConfigError, match="Decay is a class no installed pack registers"):
        promise_of(Decay(1.0))


class Masked(tw.Layer):
    """``x`` times ``mask`` (a layer by keyword); ``scale`` takes anything."""

    def __init__(
        self,
        x: tw.Layer,
        *,
        mask: tw.Layer | None = None,
        scale: object = 1.0,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        extra = [v for v in (mask, scale) if isinstance(v, tw.Layer)]
        super().__init__(x, *extra, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x: tf.Tensor, *rest: tf.Tensor) -> tf.Tensor:
        return x * rest[0] if rest else x


def test_a_layer_typed_keyword_is_written_as_a_node_name(regs: None) -> None:
    with tw.layers.scoped():
        tw.layers.register("CfgMasked.v1", Masked)
        x, m = tw.Input(n_units=2, name="x"), tw.Input(n_units=2, name="m")
        out = Masked(x, mask=m, name="out")
        written = graph_block({"outputs": out})
        assert written["nodes"]["out"] == {"@layers": "CfgMasked.v1", "mask": "m", "inputs": ["x"]}
        built = config.resolve_graph(written, "model")
        feed = {"x": np.ones((1, 2), "float32"), "m": np.zeros((1, 2), "float32")}
        rebuilt = tw.Graph.build(inputs=None, outputs=built["out"])
        np.testing.assert_array_equal(rebuilt.run(*(feed[i.name] for i in rebuilt.inputs)), 0.0)
        with pytest.raises(ConfigError, match="'scale', a parameter not typed as a layer"):
            graph_block({"outputs": Masked(x, scale=m, name="odd")})
