"""Pictures of graphs and their table of layers, built on the graph kernel (``tensorweave.graph``).

- ``picture``: ``draw`` (``tw.draw``), a graph as SVG, DOT, PNG or PDF, and ``DrawingError``;
- ``layout``: the layered layout of a DAG (pure geometry), which ``picture`` uses;
- ``raster``: PNG/PDF pictures drawn by matplotlib when Graphviz is not installed;
- ``summarize``: ``summary`` (``tw.summary``), the Keras-style table of layers, shapes and
  parameter counts.

The package imports nothing by itself: import its modules (``tw.draw`` and ``tw.summary``
import theirs on first use).

>>> import tensorweave as tw
>>> from tensorweave.drawing.picture import draw
>>> tw.draw is draw
True
"""

__all__: list[str] = []  # the names are in the modules
