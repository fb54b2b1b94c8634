"""The attention, transformer, embedding, merging, masking and ConvLSTM part of the
catalogue (issue 22): every name is registered by its pack, documented in that pack's
README and runs its docstring example."""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

import tensorweave as tw
from tensorweave import config

ROOT = Path(__file__).resolve().parents[2]

#: registered name -> the distribution that provides it
CATALOGUE = {
    "EinsumDense.v1": "tensorweave-layers",
    "Attention.v1": "tensorweave-layers",
    "AdditiveAttention.v1": "tensorweave-layers",
    "GroupQueryAttention.v1": "tensorweave-layers",
    "MHAttention.v1": "tensorweave-layers",
    "PositionEmbedding.v1": "tensorweave-layers",
    "SinusoidalPositionEmbedding.v1": "tensorweave-layers",
    "RotaryEmbedding.v1": "tensorweave-layers",
    "ReversibleEmbedding.v1": "tensorweave-layers",
    "TransformerEncoderBlock.v1": "tensorweave-layers",
    "TransformerDecoderBlock.v1": "tensorweave-layers",
    "Dot.v1": "tensorweave-layers",
    "Subtract.v1": "tensorweave-layers",
    "Average.v1": "tensorweave-layers",
    "Maximum.v1": "tensorweave-layers",
    "Minimum.v1": "tensorweave-layers",
    "ConvLSTM2D.v1": "tensorweave-rnn",
}
README = {
    "tensorweave-layers": ROOT / "plugins/layers/README.md",
    "tensorweave-rnn": ROOT / "plugins/rnn/README.md",
}


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_every_name_is_registered_documented_and_shows_an_example(name):
    info = tw.layers.info(name)
    assert info.distribution == CATALOGUE[name], f"{name} comes from {info.distribution}"
    assert f"`{name}`" in README[CATALOGUE[name]].read_text(), f"{name} missing from the README"
    component = tw.layers[name]
    module = sys.modules[component.__module__]
    assert ">>> " in (module.__doc__ or ""), f"{name}: no docstring example"
    assert inspect.getdoc(component), f"{name}: no docstring"


def test_lookup_offers_mask_zero_and_global_pools_a_mask():
    assert "mask_zero" in inspect.signature(tw.layers["Lookup.v1"]).parameters
    for name in ("GlobalAvgPool.v1", "GlobalMaxPool.v1"):
        assert "mask" in inspect.signature(tw.layers[name]).parameters


def test_the_masks_guide_runs_as_written():
    text = (ROOT / "docs/masks.md").read_text()
    namespace: dict[str, object] = {}
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        exec(compile(block, "docs/masks.md", "exec"), namespace)
    loss = namespace["loss"]
    assert loss.inputs[-1] is namespace["emb"].padding_mask  # type: ignore[attr-defined]
    (toml,) = re.findall(r"```toml\n(.*?)```", text, flags=re.S)
    nodes = config.resolve(config.loads(toml))["model"]
    assert nodes["pooled"].inputs == (nodes["lstm"], nodes["embed"].padding_mask)


def test_the_layers_readme_states_the_defaults_of_mhattention():
    row = next(
        line
        for line in README["tensorweave-layers"].read_text().splitlines()
        if line.startswith("| `MHAttention.v1`")
    )
    defaults = inspect.signature(tw.layers["MHAttention.v1"]).parameters
    for option in ("causal", "add_bias"):
        written = re.findall(rf"`{option}=(\w+)`", row)
        assert written in ([], [repr(defaults[option].default)]), f"{option}: {written}"
    assert re.findall(r"`causal=(\w+)`", row), "the row states causal's default"
