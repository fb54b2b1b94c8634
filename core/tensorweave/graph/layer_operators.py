"""``LayerOperators``: Python's operators on layers: ``a + b`` builds a graph node.

``Layer`` inherits them. ``+ - * / @ **``, unary ``-`` and indexing build ``Lambda`` nodes
through ``tensorweave.graph.ops`` (which registers itself here when imported: it needs
``Layer``, so ``Layer`` cannot import it). Comparisons build no node
(``tensorweave.graph.comparisons``): ``==``/``!=`` between layers keep Python's identity
meaning (layers live in sets, dicts, ``in`` tests); against numbers, arrays or tensors, and
``<``/``>`` always, they raise naming the op that builds the node.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x")
>>> (2.0 * x + 1.0).shape, x == x, len({x, x, -x})
((None, 2), True, 2)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tensorweave.graph.comparisons import compare

if TYPE_CHECKING:
    from tensorweave.graph.layer import Layer

__all__ = ["LayerOperators"]


class _Builders:
    """Where the operators find the functions that build their nodes."""

    ops: Any = None  # tensorweave.graph.ops, set by that module when it is imported


_builders = _Builders()


class LayerOperators:
    """The operators of ``Layer``: arithmetic builds nodes, comparisons keep identity."""

    # ``np_array * layer`` must reach ``__rmul__`` instead of numpy broadcasting over the
    # layer as an object; numpy defers to operands that set this to None.
    __array_ufunc__ = None

    def __add__(self, other: Any) -> Layer:
        return _builders.ops.add(self, other)

    def __radd__(self, other: Any) -> Layer:
        return _builders.ops.add(other, self)

    def __sub__(self, other: Any) -> Layer:
        return _builders.ops.subtract(self, other)

    def __rsub__(self, other: Any) -> Layer:
        return _builders.ops.subtract(other, self)

    def __mul__(self, other: Any) -> Layer:
        return _builders.ops.multiply(self, other)

    def __rmul__(self, other: Any) -> Layer:
        return _builders.ops.multiply(other, self)

    def __truediv__(self, other: Any) -> Layer:
        return _builders.ops.divide(self, other)

    def __rtruediv__(self, other: Any) -> Layer:
        return _builders.ops.divide(other, self)

    def __matmul__(self, other: Any) -> Layer:
        return _builders.ops.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Layer:
        return _builders.ops.matmul(other, self)

    def __pow__(self, other: Any) -> Layer:
        return _builders.ops.power(self, other)

    def __neg__(self) -> Layer:
        return _builders.ops.negative(self)

    def __getitem__(self, key: Any) -> Layer:
        return _builders.ops.getitem(self, key)

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
