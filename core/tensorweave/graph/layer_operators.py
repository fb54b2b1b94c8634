"""``LayerOperators``: Python's operators on layers: ``a + b`` builds a graph node.

``Layer`` inherits them. ``+ - * / @ **``, unary ``-`` and indexing build ``Lambda`` nodes
through ``tensorweave.graph.ops``, the ``operator_nodes`` ``tensorweave.graph`` passes in
(``Layer.use``): ``ops`` builds ``Layer`` nodes, so it imports ``Layer`` and not the reverse. Comparisons build no node
(``tensorweave.graph.comparisons``): ``==``/``!=`` between layers keep Python's identity
meaning (layers live in sets, dicts, ``in`` tests); against numbers, arrays or tensors, and
``<``/``>`` always, they raise naming the op that builds the node.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> (2.0 * x + 1.0).shape, x == x, len({x, x, -x})
((None, 2), True, 2)
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from tensorweave.graph.comparisons import compare

__all__ = ["LayerOperators", "OperatorNodes"]


class OperatorNodes(Protocol):
    """What builds the operators' nodes (``tensorweave.graph.ops`` is it); each returns a
    new layer."""

    def add(self, a: Any, b: Any) -> Any: ...
    def subtract(self, a: Any, b: Any) -> Any: ...
    def multiply(self, a: Any, b: Any) -> Any: ...
    def divide(self, a: Any, b: Any) -> Any: ...
    def matmul(self, a: Any, b: Any) -> Any: ...
    def power(self, a: Any, b: Any) -> Any: ...
    def negative(self, a: Any) -> Any: ...
    def getitem(self, a: Any, key: Any) -> Any: ...


class LayerOperators:
    """The operators of ``Layer``: arithmetic builds nodes, comparisons keep identity."""

    # ``np_array * layer`` must reach ``__rmul__`` instead of numpy broadcasting over the
    # layer as an object; numpy defers to operands that set this to None.
    __array_ufunc__ = None
    #: the builders of the nodes, passed in by ``Layer.use``
    operator_nodes: ClassVar[OperatorNodes]

    def __add__(self, other: Any) -> Any:
        return self.operator_nodes.add(self, other)

    def __radd__(self, other: Any) -> Any:
        return self.operator_nodes.add(other, self)

    def __sub__(self, other: Any) -> Any:
        return self.operator_nodes.subtract(self, other)

    def __rsub__(self, other: Any) -> Any:
        return self.operator_nodes.subtract(other, self)

    def __mul__(self, other: Any) -> Any:
        return self.operator_nodes.multiply(self, other)

    def __rmul__(self, other: Any) -> Any:
        return self.operator_nodes.multiply(other, self)

    def __truediv__(self, other: Any) -> Any:
        return self.operator_nodes.divide(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return self.operator_nodes.divide(other, self)

    def __matmul__(self, other: Any) -> Any:
        return self.operator_nodes.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return self.operator_nodes.matmul(other, self)

    def __pow__(self, other: Any) -> Any:
        return self.operator_nodes.power(self, other)

    def __neg__(self) -> Any:
        return self.operator_nodes.negative(self)

    def __getitem__(self, key: Any) -> Any:
        return self.operator_nodes.getitem(self, key)

    def __eq__(self, other: object) -> bool:
        return compare(self, other, "==")

    def __ne__(self, other: object) -> bool:
        return compare(self, other, "!=")

    def __lt__(self, other: Any) -> bool:
        return compare(self, other, "<")

    def __le__(self, other: Any) -> bool:
        return compare(self, other, "<=")

    def __gt__(self, other: Any) -> bool:
        return compare(self, other, ">")

    def __ge__(self, other: Any) -> bool:
        return compare(self, other, ">=")

    __hash__ = object.__hash__  # layers are nodes: identity, not value, equality
