"""Frontend, indexing beyond a[i], a[:, j] and a[lo:hi] (arrays.py): the general basic-
indexing view (slices with steps on any axis, `None`/`np.newaxis`, integers after slices),
`np.squeeze`/`np.expand_dims` (views too), and integer-array (fancy) indexing for reading:
`a[idx]`, `a[rows, cols]`, `a[:, idx]`, `a[np.arange(n), labels]`. A fancy read is an
elementwise `Lazy` that loads through the index arrays (bounds checked, negative indices
counted from the end), so it fuses with the expression around it and its gradient is the
scatter-add the loads' adjoints make."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.nodes import I64, Var, elem_type, is_array, ndim_of
from .arrayops import Lazy

class Indexing:
    """See the module docstring; one per function body."""

    NAMES = ("squeeze", "expand_dims")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def is_newaxis(self, it: ast.expr) -> bool:
        if isinstance(it, ast.Constant):
            return it.value is None
        if isinstance(it, ast.Attribute) and it.attr == "newaxis" and not self.ctx.is_local(it):
            return self.ctx.resolve_static(it).obj is None
        return False

    def general_view(self, a: Var, items: list[ast.expr], node: ast.AST) -> Var:
        """The `view` op for basic indexing: ints, slices (with steps) and new axes."""
        b, pattern, ops, arrays = self.ctx.b, "", [], self.lw.arrays
        dims, k = arrays.dims(a), 0
        for it in items:
            if self.is_newaxis(it):
                pattern += "n"
                continue
            if isinstance(it, ast.Slice):
                pattern += "s"
                ops += self.slice_triple(it, dims[k])
            else:
                pattern += "i"
                ops.append(arrays.normalize(arrays.index_value(it), dims[k], k))
            k += 1
        out = ndim_of(a.type) - pattern.count("i") + pattern.count("n")
        if not 1 <= out <= 3:
            raise self.ctx.error(node, f"indexing gives a {out}-D array: arrays have 1 to 3 "
                                 "dimensions", cls=PyadTypeError)
        return b.emit("view", a, *ops, attrs=(pattern,))

    def slice_triple(self, sl: ast.Slice, n: Var) -> list[Var]:
        """(start, count, step) of `sl` over an axis of length n, as Python's slice.indices
        gives them (start 0 for an empty slice); a step of 0 raises ValueError."""
        b = self.ctx.b
        zero, one = b.const(0, I64), b.const(1, I64)
        step = self.lw.arrays.index_value(sl.step) if sl.step is not None else one
        b.emit("raise_if", b.eq(step, zero), attrs=("ValueError", "slice step cannot be zero"))
        up = b.gt(step, zero)
        last = b.sub(n, one)

        def bound(node, if_up, if_down):
            if node is None:
                return b.select(up, if_up, if_down)
            v = self.lw.arrays.index_value(node)
            v = b.select(b.lt(v, zero), b.add(v, n), v)
            lo_clamp = b.select(up, zero, b.const(-1, I64))
            return b.min(b.max(v, lo_clamp), b.select(up, n, last))
        lo = bound(sl.lower, zero, last)
        hi = bound(sl.upper, n, b.const(-1, I64))
        span = b.select(up, b.sub(hi, lo), b.sub(lo, hi))
        mag = b.select(up, step, b.neg(step))
        count = b.select(b.gt(span, zero), b.floordiv(b.add(span, b.sub(mag, one)), mag), zero)
        start = b.select(b.gt(count, zero), lo, zero)
        return [start, count, step]

    # ------------------------------------------------------------------ shape functions
    def function(self, name: str, node: ast.Call) -> Var:
        """np.squeeze(a, axis) and np.expand_dims(a, axis), axis a constant int."""
        kw = {k.arg: k.value for k in node.keywords}
        if set(kw) - {"axis"} or len(node.args) + len(kw) != 2:
            raise self.ctx.error(node, f"np.{name} takes an array and a constant axis",
                                 cls=PyadTypeError, hint="np.squeeze needs its axis: the "
                                 "sizes are only known at run time" if name == "squeeze"
                                 else "")
        a = self.lw.arrays.array(self.lw.exprs.expr(node.args[0]), node.args[0])
        axis_node = node.args[1] if len(node.args) == 2 else kw["axis"]
        axis = self.lw.arrayops.constant_arg(axis_node, (int,), "axis must be a constant "
                                             "integer")
        nd = ndim_of(a.type)
        out_nd = nd - 1 if name == "squeeze" else nd + 1
        if not -max(nd, out_nd) <= axis < max(nd, out_nd):
            raise self.ctx.error(axis_node, f"axis {axis} is out of bounds", cls=PyadTypeError)
        axis %= max(nd, out_nd)
        if name == "expand_dims":
            return self.expand(a, axis, node)
        b = self.ctx.b
        zero, one = b.const(0, I64), b.const(1, I64)
        dims = self.lw.arrays.dims(a)
        pattern, ops = "", []
        for k in range(axis):   # the axes before, whole
            pattern += "s"
            ops += [zero, dims[k], one]
        b.emit("raise_if", b.ne(dims[axis], one), attrs=(
            "ValueError", "cannot select an axis to squeeze out which has size not equal "
            "to one"))
        if out_nd == 0:   # a 1-D array of one element: the number (NumPy: a 0-D array)
            return b.emit("load", a, zero)
        return b.emit("view", a, *ops, zero, attrs=(pattern + "i",))

    def expand(self, a: Var, axis: int, node: ast.AST) -> Var:
        """`a` with a new axis of size 1 at `axis` (np.expand_dims), a view."""
        nd = ndim_of(a.type) + 1
        if not -nd <= axis < nd or nd > 3:
            raise self.ctx.error(node, f"axis {axis} is out of bounds, or the result has more "
                                 "than 3 dimensions", cls=PyadTypeError)
        axis %= nd
        b = self.ctx.b
        dims = self.lw.arrays.dims(a)
        ops = [x for k in range(axis) for x in (b.const(0, I64), dims[k], b.const(1, I64))]
        return b.emit("view", a, *ops, attrs=("s" * axis + "n",))

    # ------------------------------------------------------------------ fancy reads
    def fancy(self, a: Var, items: list[ast.expr], values: dict, node: ast.AST) -> Lazy:
        """a[items] where some items are integer arrays (`values`: id(item) -> its value);
        the others whole slices `:` or integers. The index arrays broadcast together and
        their shape takes the place of the first of them (NumPy's rule when they are
        adjacent; they must be here)."""
        ops = self.lw.arrayops
        nd = ndim_of(a.type)
        if len(items) > nd:
            raise self.ctx.error(node, f"too many indices for a {nd}-D array",
                                 cls=PyadTypeError)
        items = list(items) + [ast.Slice()] * (nd - len(items))
        kinds = []
        for it in items:
            v = values.get(id(it))
            if isinstance(it, ast.Slice):
                if it.lower is not None or it.upper is not None or it.step is not None:
                    raise self.ctx.error(it, "a slice with bounds next to an index array is "
                                         "not supported", hint="slice first, then index")
                kinds.append("s")
            elif self.is_newaxis(it):
                raise self.ctx.error(it, "None next to an index array is not supported")
            elif isinstance(v, Var) and is_array(v.type):
                if elem_type(v.type) != I64:
                    raise self.ctx.error(it, "boolean masks are not supported yet" if
                                         elem_type(v.type) == "bool" else "index arrays must "
                                         "hold integers", cls=PyadTypeError,
                                         hint="use np.where(mask, x, 0.0) to select by a mask")
                kinds.append("a")
            else:
                kinds.append("i")
        arr = [k for k, c in enumerate(kinds) if c in "ai"]
        if arr != list(range(arr[0], arr[-1] + 1)):
            raise self.ctx.error(node, "index arrays separated by a slice are not supported",
                                 hint="index one axis at a time")
        lifted = [ops.lift(values[id(items[k])]) if kinds[k] == "a" else
                  ops.lift(self.lw.arrays.index_value(items[k])) for k in arr]
        bdims = ops.broadcast(lifted, node)
        gens = [ops._mapped(lz, bdims) for lz in lifted]
        dims = self.lw.arrays.dims(a)
        before, after = dims[:arr[0]], dims[arr[-1] + 1:]

        def gen(idx):
            b = self.ctx.b
            head, mid, tail = idx[:len(before)], idx[len(before):len(before) + len(bdims)], \
                idx[len(before) + len(bdims):]
            picked = [self.lw.arrays.normalize(g(mid), dims[k], k) for g, k in zip(gens, arr)]
            return b.emit("load", a, *head, *picked, *tail)
        out = before + bdims + after
        if not 1 <= len(out) <= 3:
            raise self.ctx.error(node, f"indexing gives a {len(out)}-D array: arrays have 1 "
                                 "to 3 dimensions", cls=PyadTypeError)
        return Lazy(elem_type(a.type), out, gen)
