"""Pictures of graphs and their table of layers, built on the graph kernel (``tensorweave.graph``).

- ``drawing``: ``draw`` (``tw.draw``), a graph as SVG, DOT, PNG or PDF, and ``DrawingError``;
- ``layout``: the layered layout of a DAG (pure geometry), which ``drawing`` uses;
- ``raster``: PNG/PDF pictures drawn by matplotlib when Graphviz is not installed;
- ``summarize``: ``summary`` (``tw.summary``), the Keras-style table of layers, shapes and
  parameter counts.

The package imports nothing by itself (``import tensorweave`` loads it, cheaply, so that
``tw.draw`` stays the function): import its modules.

>>> import tensorweave as tw
>>> from tensorweave.draw.drawing import draw
>>> tw.draw is draw
True
"""

__all__: list[str] = []  # the names are in the modules
