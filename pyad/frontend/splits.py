"""Frontend, NumPy's splits: `np.split`, `np.array_split`, `np.hsplit`, `np.vsplit`,
`np.dsplit`. The parts are views of the array (as NumPy's), in a list whose length is known
when compiling: the number of sections, or the indices, must be literals (or names bound to
them); the lengths of the parts may be known at run time only."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.nodes import I64, Var, is_array, ndim_of
from .context import PyList, RangeVal

#: the axis each function splits, by the array's rank (None: refused for that rank)
_AXIS = {"hsplit": lambda nd: 1 if nd >= 2 else 0, "vsplit": lambda nd: 0 if nd >= 2 else None,
         "dsplit": lambda nd: 2 if nd >= 3 else None}


class Splits:
    """`np.<name>(...)` for the names in NAMES; one per function body."""

    NAMES = ("split", "array_split", "hsplit", "vsplit", "dsplit")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list, kw: dict) -> PyList:
        ctx = self.ctx
        extra = set(kw) - ({"axis"} if name in ("split", "array_split") else set())
        if extra or len(args) not in (2, 3) or name not in ("split", "array_split") and \
                len(args) != 2:
            what = "an array, sections and axis" if name in ("split", "array_split") \
                else "an array and sections"
            raise ctx.error(node, f"np.{name} takes {what}"
                            + (f" (unsupported keyword `{extra.pop()}`)" if extra else ""),
                            cls=PyadTypeError)
        a = self.lw.arrays.array(self.lw.arrayops.materialize(args[0]), node.args[0])
        nd = ndim_of(a.type)
        if name in _AXIS:
            axis = _AXIS[name](nd)
            if axis is None:
                raise ctx.error(node, f"np.{name} takes an array of at least "
                                f"{2 if name == 'vsplit' else 3} dimensions", cls=PyadTypeError)
        else:
            axis_node = kw.get("axis", node.args[2] if len(args) == 3 else None)
            axis = 0 if axis_node is None else self.lw.arrayops.constant_arg(
                axis_node, (int,), "axis must be an int known when compiling")
            if not -nd <= axis < nd:
                raise ctx.error(node, f"axis {axis} is out of bounds for a {nd}-D array",
                                cls=PyadTypeError)
            axis %= nd
        n = self.lw.arrays.dims(a)[axis]
        sections = self._known(args[1], node)
        if isinstance(sections, int):
            bounds = self._sections(sections, n, name != "array_split", node)
        else:
            bounds = [self._clamped(i, n) for i in sections]
            bounds = list(zip([self.ctx.b.const(0, I64)] + bounds, bounds + [n]))
        return PyList([self._part(a, axis, lo, hi) for lo, hi in bounds], ctx)

    def _known(self, v, node: ast.Call) -> int | tuple[int, ...]:
        """The number of sections, or the split indices, known when compiling."""
        known = self.ctx.literals
        if isinstance(v, Var) and not is_array(v.type) and v.name in known \
                and isinstance(known[v.name], int):
            if known[v.name] <= 0:
                raise self.ctx.error(node, "number sections must be larger than 0.",
                                     cls=PyadTypeError)
            return known[v.name]
        if isinstance(v, RangeVal):   # np.split(x, range(2, 6, 2)): its items
            v = tuple(self.lw.arrays.known_items(v, node.args[1], "a range of indices"))
        if (type(v) is tuple or isinstance(v, PyList)) and all(
                isinstance(x, Var) and x.name in known and isinstance(known[x.name], int)
                for x in v):
            return tuple(known[x.name] for x in v)
        raise self.ctx.error(node.args[1], "the number of sections, or the indices, must be "
                             "known when compiling (a literal, a tuple or list of them, or a "
                             "name bound to one)", hint="the list of parts has that length",
                             cls=PyadTypeError)

    def _sections(self, k: int, n: Var, equal: bool, node: ast.Call) -> list:
        """(start, end) of k sections of an axis of length n: NumPy's array_split puts the
        n % k longer ones first; np.split raises ValueError unless they are equal."""
        b = self.ctx.b
        q, r = b.floordiv(n, b.const(k, I64)), b.mod(n, b.const(k, I64))
        if equal:
            b.emit("raise_if", b.ne(r, b.const(0, I64)), attrs=(
                "ValueError", "array split does not result in an equal division"))
        starts = [b.add(b.mul(b.const(j, I64), q), b.min(b.const(j, I64), r))
                  for j in range(k)] + [n]
        return list(zip(starts, starts[1:]))

    def _clamped(self, i: int, n: Var) -> Var:
        """Split index `i` as a slice bound over length n (negative from the end, clamped)."""
        b = self.ctx.b
        v = b.add(b.const(i, I64), n) if i < 0 else b.const(i, I64)
        return b.min(b.max(v, b.const(0, I64)), n)

    def _part(self, a: Var, axis: int, lo: Var, hi: Var) -> Var:
        """The view a[..., lo:hi] along `axis` (empty when hi < lo, as a slice)."""
        b = self.ctx.b
        count = b.max(b.sub(hi, lo), b.const(0, I64))
        start = b.select(b.gt(count, b.const(0, I64)), lo, b.const(0, I64))
        dims = self.lw.arrays.dims(a)
        return b.emit("view", a, *self.lw.indexing.whole(dims[:axis]), start, count,
                      b.const(1, I64), attrs=("s" * (axis + 1),))
