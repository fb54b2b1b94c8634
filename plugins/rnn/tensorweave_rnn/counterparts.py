"""The names people know from Keras 3 and TensorLayer, and this pack's cell or layer for each.

Read by tensorweave only when a lookup fails (``LSTM.v1`` -> ``RNN.v1`` with
``cell="LSTMCell.v1"``) or ``tensorweave describe`` asks; declared in ``pyproject.toml``
(``tensorweave.counterparts``). ``keras=`` names the Keras 3 API a component's parity test
compares it with; ``also=`` names others that mean the same. Light on purpose: no TensorFlow.

>>> [row.usage for row in COUNTERPARTS if "keras.layers.LSTM" in row.also]
['cell="LSTMCell.v1"']
"""

from __future__ import annotations

import tensorweave as tw

__all__ = ["COUNTERPARTS"]

C = tw.Counterpart
K = "keras.layers."
TL = "tensorlayer.layers."

COUNTERPARTS = (
    C("GRUCell.v1", keras=K + "GRUCell", kind="cells"),
    C("LSTMCell.v1", keras=K + "LSTMCell", kind="cells"),
    C("RNNCell.v1", also=(K + "SimpleRNNCell",), kind="cells"),
    C("StackedCell.v1", also=(K + "StackedRNNCells",), kind="cells"),
    C("RNN.v1", also=(K + "RNN", TL + "RNN")),
    C("RNN.v1", also=(K + "LSTM", "keras.layers.CuDNNLSTM"), usage='cell="LSTMCell.v1"'),
    C("RNN.v1", also=(K + "GRU", "keras.layers.CuDNNGRU"), usage='cell="GRUCell.v1"'),
    C("RNN.v1", also=(K + "SimpleRNN",), usage='cell="RNNCell.v1"'),
    C("Bidirectional.v1", also=(K + "Bidirectional", TL + "BiRNN")),
    C("ConvLSTM2D.v1", keras=K + "ConvLSTM2D"),
)
