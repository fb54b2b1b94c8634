"""The compiled training step is what a careful hand-written program is (#39).

Under ``mixed_bfloat16`` every state read is a read and a cast; a layer that read an attribute
twice (``hasattr`` then the attribute) put two of each in the step. After TensorFlow's graph
optimizer drops the unused one it costs nothing, but the step should say what it does: each
variable read and cast once, no cast undone by the next one, and the convolution's bias and
ReLU left where oneDNN fuses them with it (``_MklNativeFusedConv2D``; measured by
``benchmarks/bench_step_anatomy.py``).
"""

from __future__ import annotations

import collections

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_train import SGD, Model


def cnn(precision: str) -> Model:
    L = tw.layers
    x = tw.Input(shape=(12, 12, 3), name="images")
    y = tw.Input(shape=(), dtype="int64", name="labels")
    h = L["Conv2D.v1"](x, 8, 3, padding="same")
    h = L["Activation.v1"](h, "relu")
    h = L["MaxPool2D.v1"](h, 2, strides=2, padding="same")
    h = L["Conv2D.v1"](h, 8, 3, padding="same")
    h = L["Activation.v1"](h, "relu")
    h = L["Reshape.v1"](h, (-1,))
    h = L["FC.v1"](h, 16, activation="relu")
    logits = L["Linear.v1"](h, 10)
    loss = tw.losses["sparse_categorical_cross_entropy.v1"](y, logits, from_logits=True)
    return Model(
        inputs=x, outputs=logits, targets=y, loss=loss, optimizer=SGD(0.1), precision=precision
    )


def step_graph(model: Model) -> tf.compat.v1.GraphDef:
    rng = np.random.default_rng(0)
    batch = [rng.random((4, 12, 12, 3), dtype=np.float32), rng.integers(0, 10, 4)]
    model.train_on_batch(batch)
    (function,) = model.train_function._list_all_concrete_functions()
    return function.graph.as_graph_def()


@pytest.mark.parametrize("precision", ["float32", "mixed_bfloat16"])
def test_each_variable_is_read_once_per_step(precision: str) -> None:
    model = cnn(precision)
    graph = step_graph(model)
    reads = collections.Counter(n.input[0] for n in graph.node if n.op == "ReadVariableOp")
    assert reads, "the step reads its variables"
    assert max(reads.values()) == 1, f"a variable read more than once: {reads.most_common(2)}"
    # the 8 trainable variables, plus the optimizer's step counter
    assert len(reads) == len(model.trainable_variables) + 1


def test_no_cast_is_undone_by_the_next_one() -> None:
    graph = step_graph(cnn("mixed_bfloat16"))
    nodes = {n.name: n for n in graph.node}
    casts = [n for n in graph.node if n.op == "Cast"]
    undone = [
        n.name
        for n in casts
        if (source := nodes.get(n.input[0].split(":")[0])) is not None
        and source.op == "Cast"
        and source.attr["SrcT"].type == n.attr["DstT"].type
    ]
    assert not undone, f"cast pairs that cancel: {undone}"
    # forward: each trainable variable cast to bfloat16 once, the images once, and the
    # logits back to float32 once
    forward = [n for n in casts if not n.name.startswith("gradient_tape/")]
    to_bf16 = [n for n in forward if n.attr["DstT"].type == tf.bfloat16.as_datatype_enum]
    from_bf16 = [n for n in forward if n.attr["SrcT"].type == tf.bfloat16.as_datatype_enum]
    assert (len(to_bf16), len(from_bf16)) == (8 + 1, 1)
