"""``tensorweave train CONFIG --model.nodes.r.inputs='[a, b]'``: a list on the command line
is a list (bare node names, numbers, nested), and a node name that is not one gets the
closest name, in a real subprocess."""

from __future__ import annotations

import json
from pathlib import Path

from twtrain_helpers import tensorweave

CONFIG = """
[data]
"@datasets" = "digits.v1"
valid_fraction = 0.2

[model]
inputs = ["x"]
targets = ["y"]
outputs = ["logits"]
loss = "loss"

[model.nodes]
x = { input = [64] }
y = { input = [], dtype = "int64" }
a = { "@layers" = "Linear.v1", inputs = ["x"], n_units = 4 }
b = { "@layers" = "Linear.v1", inputs = ["x"], n_units = 4 }
r = { "@layers" = "Op.v1", function = "tf.concat", inputs = ["a"], kwargs = { axis = -1 } }
logits = { "@layers" = "Linear.v1", inputs = ["r"], n_units = 10 }
loss = { "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["y", "logits"], from_logits = true }

[optimizer]
"@optimizers" = "Adam.v1"

[train]
epochs = 1
batch_size = 512
"""


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "job.toml"
    path.write_text(CONFIG)
    return path


def test_a_list_override_of_inputs_is_a_list_of_node_names(tmp_path: Path) -> None:
    run = tmp_path / "run"
    done = tensorweave(
        "train",
        str(_config(tmp_path)),
        "--model.nodes.r.args=[[{input = 0}, {input = 1}]]",
        "--model.nodes.r.inputs=[a, b]",
        f"--run-dir={run}",
        "--quiet",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    node = json.loads((run / "config.json").read_text())["model"]["nodes"]["r"]
    assert node["inputs"] == ["a", "b"]
    assert node["args"] == [[{"input": 0}, {"input": 1}]]
    assert (run / "summary.json").exists()


def test_an_unknown_node_in_a_list_override_gets_the_closest_name(tmp_path: Path) -> None:
    done = tensorweave("train", str(_config(tmp_path)), "--model.nodes.r.inputs=[a, bb]", "--quiet")
    assert done.returncode != 0
    assert "model.nodes.r.inputs: unknown node 'bb'; did you mean 'b'?" in done.stderr


def test_an_override_into_a_node_that_does_not_exist_gets_the_closest_name(
    tmp_path: Path,
) -> None:
    done = tensorweave("train", str(_config(tmp_path)), "--model.nodes.rr.inputs=[a, b]", "--quiet")
    assert done.returncode != 0
    assert "no node 'rr' in 'model.nodes' to override. Did you mean 'r'?" in done.stderr
