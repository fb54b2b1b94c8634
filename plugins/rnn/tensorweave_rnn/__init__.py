"""tensorweave-rnn: recurrent cells and the layers that unroll them.

Registered names: cells ``RNNCell.v1``, ``GRUCell.v1``, ``LSTMCell.v1``, ``ModuleCell.v1``,
``StackedCell.v1`` (``tw.cells``); layers ``RNN.v1``, ``Bidirectional.v1``, ``ConvLSTM2D.v1``
(``tw.layers``).

The cell contract
-----------------
Any pack may register cells under the ``tensorweave.cells`` entry-point group; ``RNN``
unrolls every cell that honours this contract, and the ``cells`` kind this pack declares
(``tensorweave_rnn.kinds``, its check in ``tensorweave_rnn.contract``) refuses cells whose
class visibly does not:

1. A cell is a ``tw.Layer`` subclass (or a factory returning one) built as
   ``Cell(x, *previous_state, n_units=..., name=None, share_state_with=None, **options)``:
   ``x`` is the step input ``(None, in)``, ``previous_state`` one layer per state
   ``(None, w)``; leaving the states out means zeros (that is how ``RNN`` builds it).
2. Its output (``shape == (None, n_units)``) is the new hidden output.
3. ``cell.state_size`` is the list of state widths (``[n]``; ``[n, n]`` for LSTM's
   ``h, c``); a state of another width is an error naming the cell and the shapes.
4. ``cell.step(x, *states) -> (output, [new_states])`` does the same maths on tensors; it
   must be traceable inside ``tf.while_loop`` (no Python side effects per step).
5. ``cell.reuse_with(x, *state, **options)`` makes a cell that shares the weights.
6. Optional: ``cell.begin(batch_size, dtype)`` returns a per-sequence context (dropout
   masks, dropped weights) that ``RNN`` passes to every step as ``step(..., context=ctx)``.
7. Optional, with ``begin``: ``cell.project_inputs(xs, ctx)`` computes the input side of
   every step at once (``(T, B, in) -> (T, B, k)``, one large matmul before the loop),
   marks ``ctx.projected`` and then receives those rows in ``step`` instead of ``x``.

A cell built from a ``tw.Module`` of other layers is a first-class cell: see
``ModuleCell`` (a minimal gated unit made of ``tw`` ops). All of this pack's cells take
variational dropout (``dropout``, ``recurrent_dropout``, ``output_dropout``, Keras's
names; one mask per sequence) and the fused cells DropConnect (``dropconnect``,
``recurrent_dropconnect``), active while training, switched off with
``reuse_with(..., training=False)``.

>>> import tensorweave as tw
>>> x, h, c = tw.Input(n_units=3), tw.Input(n_units=4), tw.Input(n_units=4)
>>> cell = tw.cells["LSTMCell.v1"](x, h, c, n_units=4)
>>> cell.shape, cell.state_size
((None, 4), [4, 4])
>>> seq = tw.Input(batch_shape=(None, None, 3))
>>> tw.layers["RNN.v1"](seq, cell="LSTMCell.v1", n_units=4, return_sequences=False).shape
(None, 4)
"""

from __future__ import annotations

import tensorweave as tw

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first use (PEP 562): importing
# one submodule (an entry point's target, a hook module) never imports the whole pack.
_EXPORTS = {
    "Cell": "cell",
    "StepContext": "cell",
    "RNNCell": "cells",
    "GRUCell": "cells",
    "LSTMCell": "cells",
    "ModuleCell": "module_cell",
    "StackedCell": "stacked",
    "RNN": "rnn",
    "FinalState": "rnn",
    "Bidirectional": "bidirectional",
    "ConvLSTM2D": "conv_lstm2d",
    "ConvLSTM2DCell": "conv_lstm_cell",
    "CellContractError": "contract",
    "check_cell": "contract",
    "kinds": "kinds",
}

__all__ = [*_EXPORTS, "__version__"]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
