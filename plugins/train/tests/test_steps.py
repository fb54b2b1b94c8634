"""The compiled train steps: under XLA the multi-step loop stays outside the XLA cluster."""

from __future__ import annotations

import numpy as np
from twtrain_helpers import regression_data, regression_model


def _xla_calls(concrete):
    """The function calls marked for XLA anywhere in ``concrete``'s function library."""
    library = concrete.graph.as_graph_def().library.function
    return [
        node.attr["f"].func.name
        for fdef in library
        for node in fdef.node_def
        if node.op.endswith("PartitionedCall") and node.attr["_XlaMustCompile"].b
    ]


def test_xla_multi_step_loop_calls_the_one_step_xla_function():
    """XLA on the CPU turns a convolution inside a while loop into a naive kernel (the
    CIFAR CNN ran 50x slower), so only the one-step function is compiled by XLA."""
    model = regression_model(seed=3, steps_per_execution=4, jit_compile=True)
    model.train(regression_data(n=32), epochs=1, batch_size=8, shuffle=False, verbose=0)
    concrete = model._many_concrete()
    assert not concrete.function_def.attr["_XlaMustCompile"].b  # the loop: not XLA
    assert _xla_calls(concrete), "the one-step XLA function is called in the loop"
    assert model.train_function.experimental_get_tracing_count() == 1


def test_without_xla_the_loop_runs_the_step_body_inline():
    model = regression_model(seed=3, steps_per_execution=4)
    model.train(regression_data(n=32), epochs=1, batch_size=8, shuffle=False, verbose=0)
    assert "train" not in model._fns
    assert np.isfinite(float(model.evaluate(regression_data(n=8))["loss"]))
