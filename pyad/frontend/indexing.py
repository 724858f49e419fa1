"""Frontend, indexing beyond a[i], a[:, j] and a[lo:hi] (arrays.py): the general basic-
indexing view (slices with steps on any axis, `None`/`np.newaxis`, integers after slices),
`np.squeeze`/`np.expand_dims` (views too), and integer-array (fancy) indexing for reading:
`a[idx]`, `a[rows, cols]`, `a[:, idx]`, `a[np.arange(n), labels]`, and writing
(`a[idx] = v`, `a[idx] += v`, `np.add.at`). A fancy read is an elementwise `Lazy` that loads
through the index arrays (bounds checked, negative indices counted from the end), so it fuses
with the expression around it and its gradient is the scatter-add the loads' adjoints make.
A boolean mask read (`x[x > 0]`) counts the selected elements, then copies them (a length
known only at run time)."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.loops import reduce_each
from ..ir.nodes import BOOL, I64, Var, elem_type, is_array, ndim_of
from .context import Lazy

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
    def function(self, name: str, node: ast.Call, a: Var | None = None) -> Var:
        """np.squeeze(a, axis) and np.expand_dims(a, axis), axis a constant int or tuple;
        given `a`, the method a.squeeze(axis)."""
        kw = {k.arg: k.value for k in node.keywords}
        given = 1 if a is None else 0
        if set(kw) - {"axis"} or len(node.args) + len(kw) != 1 + given:
            spelled = f"np.{name}" if a is None else f"a.{name}()"
            raise self.ctx.error(node, f"{spelled} takes " + ("an array and " if given else "")
                                 + "a constant axis",
                                 cls=PyadTypeError, hint=f"{spelled} needs its axis: the "
                                 "sizes are only known at run time" if name == "squeeze"
                                 else "")
        if a is None:
            a = self.lw.arrays.array(self.lw.exprs.expr(node.args[0]), node.args[0])
        axis_node = node.args[given] if len(node.args) == 1 + given else kw["axis"]
        axis = self.lw.arrayops.constant_arg(axis_node, (int, tuple), "axis must be a "
                                             "constant integer or tuple of integers")
        axes = axis if isinstance(axis, tuple) else (axis,)
        nd = ndim_of(a.type)
        out_nd = nd - len(axes) if name == "squeeze" else nd + len(axes)
        top = max(nd, out_nd)
        if not all(type(k) is int and -top <= k < top for k in axes):
            raise self.ctx.error(axis_node, f"axis {axis} is out of bounds", cls=PyadTypeError)
        axes = sorted({k % top for k in axes})
        if len(axes) != (len(axis) if isinstance(axis, tuple) else 1):
            raise self.ctx.error(axis_node, "repeated axis", cls=PyadTypeError)
        if name == "expand_dims":   # inserted in increasing order: each lands where asked
            for k in axes:
                a = self.expand(a, k, node)
            return a
        for k in reversed(axes):
            a = self.squeeze(a, k)
        return a

    def squeeze(self, a: Var, axis: int):
        """`a` without its axis `axis` (normalized), which must have size 1: a view (a
        number for a 1-D array, where NumPy gives a 0-D array)."""
        b = self.ctx.b
        zero, one = b.const(0, I64), b.const(1, I64)
        dims = self.lw.arrays.dims(a)
        b.emit("raise_if", b.ne(dims[axis], one), attrs=(
            "ValueError", "cannot select an axis to squeeze out which has size not equal "
            "to one"))
        if ndim_of(a.type) == 1:
            return b.emit("load", a, zero)
        return b.emit("view", a, *self.whole(dims[:axis]), zero, attrs=("s" * axis + "i",))

    def whole(self, dims: list[Var]) -> list[Var]:
        """The `view` operands (start, count, step) of whole slices `:` over `dims`."""
        b = self.ctx.b
        zero, one = b.const(0, I64), b.const(1, I64)
        return [x for d in dims for x in (zero, d, one)]

    def expand(self, a: Var, axis: int, node: ast.AST) -> Var:
        """`a` with a new axis of size 1 at `axis` (np.expand_dims), a view."""
        nd = ndim_of(a.type) + 1
        if not -nd <= axis < nd or nd > 3:
            raise self.ctx.error(node, f"axis {axis} is out of bounds, or the result has more "
                                 "than 3 dimensions", cls=PyadTypeError)
        axis %= nd
        b = self.ctx.b
        dims = self.lw.arrays.dims(a)
        return b.emit("view", a, *self.whole(dims[:axis]), attrs=("s" * axis + "n",))

    # ------------------------------------------------------------------ fancy reads
    def fancy(self, a: Var, items: list[ast.expr], values: dict, node: ast.AST):
        """a[items] where some items are integer arrays (`values`: id(item) -> its value),
        the others whole slices `:` or integers: a Lazy gather. The index arrays broadcast
        together and their shape takes the place of the first of them (NumPy's rule when
        they are adjacent; they must be here). A boolean mask of a's shape (`x[x > 0]`)
        gives the 1-D array of the selected elements, in row-major order."""
        items = list(items)   # _mask may replace masks by index arrays
        mask = self._mask(a, items, values, node)
        if mask is not None:
            return self._compress(a, mask, node)
        dims, at = self._plan(a, items, values, node)
        return Lazy(elem_type(a.type), dims, lambda idx: self.ctx.b.emit("load", a, *at(idx)))

    def fancy_store(self, a: Var, items: list[ast.expr], values: dict, value, node: ast.AST,
                    accumulate: bool = False) -> None:
        """a[items] = value (the value broadcast to the gather's shape), index by index in
        row-major order (a repeated index keeps the last value, as in NumPy); with
        `accumulate`, a[items] += value element by element (np.add.at: repeats add up)."""
        items = list(items)   # _mask may replace masks by index arrays
        mask = self._mask(a, items, values, node)
        if mask is not None:
            return self._mask_store(a, mask, value, node)
        dims, at = self._plan(a, items, values, node)
        ops, arrays = self.lw.arrayops, self.lw.arrays
        value = ops.materialize(value)
        if isinstance(value, Var) and is_array(value.type):   # it may be a view of `a`:
            value = arrays.copy_array(value)                   # NumPy reads it first
        src = ops.broadcast_to(ops.lift(value), dims, node)
        elem = elem_type(a.type)

        def body(idx):
            b = self.ctx.b
            where = at(idx)
            v = arrays.scalar_for(src.gen(idx), elem, node)
            if accumulate:
                v = b.add(b.emit("load", a, *where), v)
            b.emit("store", a, *where, v)
        ops.each(dims, body)

    def add_at(self, node: ast.Call):
        """np.add.at(a, indices, values): a[indices] += values, repeated indices adding up.
        Returns None (the call is a statement)."""
        if node.keywords or len(node.args) != 3:
            raise self.ctx.error(node, "np.add.at takes an array, indices and values",
                                 cls=PyadTypeError)
        a = self.lw.arrays.array(self.lw.exprs.expr(node.args[0]), node.args[0])
        ix = node.args[1]
        items = list(ix.elts) if isinstance(ix, ast.Tuple) else [ix]
        values = self.lw.arrays.fancy_values(items)
        if values is None:
            values = {id(it): self.lw.exprs.expr(it) for it in items
                      if not isinstance(it, ast.Slice)}
        if self._mask(a, items, values, node) is not None:
            raise self.ctx.error(ix, "np.add.at with a boolean mask is not supported",
                                 cls=PyadTypeError, hint="a mask selects each element once: "
                                 "a[m] += v, or a += np.where(m, v, 0.0)")
        self.fancy_store(a, items, values, self.lw.exprs.expr(node.args[2]), node,
                         accumulate=True)
        return ()

    def _plan(self, a: Var, items: list[ast.expr], values: dict, node: ast.AST):
        """The shape of a[items] (integer-array indexing) and the function from an index
        into it to the index into `a`."""
        ops = self.lw.arrayops
        nd = ndim_of(a.type)
        if len(items) > nd:
            raise self.ctx.error(node, f"too many indices for a {nd}-D array",
                                 cls=PyadTypeError)
        items = list(items) + [ast.Slice()] * (nd - len(items))
        kinds, dims = [], self.lw.arrays.dims(a)
        sliced = dict(enumerate(dims))   # each sliced axis: (start, count, step) or its size
        for k, it in enumerate(items):
            v = values.get(id(it))
            if isinstance(it, ast.Slice):
                if it.lower is not None or it.upper is not None or it.step is not None:
                    sliced[k] = self.slice_triple(it, dims[k])
                kinds.append("s")
            elif self.is_newaxis(it):
                raise self.ctx.error(it, "None next to an index array is not supported")
            elif isinstance(v, Var) and is_array(v.type):
                if elem_type(v.type) != I64:
                    raise self.ctx.error(it, "a boolean mask must be the only index and have "
                                         "the array's shape" if elem_type(v.type) == "bool"
                                         else "index arrays must hold integers",
                                         cls=PyadTypeError)
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
        size = [x[1] if isinstance(x, list) else x for x in sliced.values()]
        before, after = size[:arr[0]], size[arr[-1] + 1:]
        out = before + bdims + after
        if not 1 <= len(out) <= 3:
            raise self.ctx.error(node, f"indexing gives a {len(out)}-D array: arrays have 1 "
                                 "to 3 dimensions", cls=PyadTypeError)

        def at(idx: list[Var]) -> list[Var]:
            head, mid = idx[:len(before)], idx[len(before):len(before) + len(bdims)]
            tail = idx[len(before) + len(bdims):]
            picked = [self.lw.arrays.normalize(g(mid), dims[k], k) for g, k in zip(gens, arr)]
            bb = self.ctx.b
            return [bb.add(sliced[k][0], bb.mul(sliced[k][2], i))
                    if isinstance(sliced[k], list) else i
                    for k, i in enumerate([*head, *picked, *tail])]
        return out, at

    # ------------------------------------------------------------------ boolean masks
    def _mask(self, a: Var, items: list, values: dict, node: ast.AST) -> Var | None:
        """The mask of `a[mask]` with a mask of a's shape, or None for integer-array
        indexing; other masks (of leading axes `x[m]`, next to other indices `x[:, m]`)
        become their `nonzero()` index arrays in `items` and `values`."""
        masks = [values[id(it)] for it in items if id(it) in values and isinstance(
            values[id(it)], Var) and is_array(values[id(it)].type) and
            elem_type(values[id(it)].type) == "bool"]
        if not masks:
            return None
        whole = len(items) == 1 and ndim_of(masks[0].type) == ndim_of(a.type)
        b, dims, at = self.ctx.b, self.lw.arrays.dims(a), 0
        for k, it in enumerate(list(items)):
            m = values.get(id(it))
            if not (isinstance(m, Var) and is_array(m.type) and elem_type(m.type) == BOOL):
                at += 0 if self.is_newaxis(it) else 1
                continue
            for d, e in zip(dims[at:], self.lw.arrays.dims(m)):
                b.emit("raise_if", b.ne(d, e), attrs=(
                    "IndexError", "boolean index did not match the indexed array"))
            at += ndim_of(m.type)
            if at > len(dims):
                raise self.ctx.error(it, "too many indices: the boolean mask has more "
                                     "dimensions than the axes it indexes", cls=PyadTypeError)
            if not whole:   # NumPy's rule: the mask stands for the index arrays m.nonzero()
                parts = self.lw.positions.nonzero("nonzero", node, m)
                names = [ast.copy_location(ast.Name(f".mask{k}_{j}", ast.Load()), it)
                         for j in range(len(parts))]
                items[items.index(it):items.index(it) + 1] = names
                values.update({id(n): v for n, v in zip(names, parts)})
                self.ctx.pinned.extend(names)
        return masks[0] if whole else None

    def _mask_store(self, a: Var, mask: Var, value, node: ast.AST) -> None:
        """a[mask] = value: a number into every selected element (a select per element: no
        branch), or a 1-D array with one element per selected one, in row-major order (or
        with one element, NumPy's broadcast). `a[mask] += v` arrives here as the gathered
        elements plus v."""
        ctx, arrays, ops = self.ctx, self.lw.arrays, self.lw.arrayops
        value = ops.materialize(value)
        elem, dims = elem_type(a.type), arrays.dims(a)
        if not is_array(value.type):
            v = arrays.scalar_for(value, elem, node)
            ops.each(dims, lambda idx: ctx.b.emit("store", a, *idx, ctx.b.select(
                ctx.b.emit("load", mask, *idx), v, ctx.b.emit("load", a, *idx))))
            return
        if ndim_of(value.type) != 1:
            raise ctx.error(node, "a value assigned through a boolean mask must be a number or "
                            "a 1-D array (one element per True)", cls=PyadTypeError)
        value = arrays.copy_array(value)   # it may be a view of `a`: NumPy reads it first
        b = ctx.b
        one, zero = b.const(1, I64), b.const(0, I64)
        count = reduce_each(b, dims, [zero], lambda bb, idx, acc: [bb.add(acc[0], bb.select(
            bb.emit("load", mask, *idx), one, zero))])[0]
        n = b.emit("dim", value, attrs=(0,), type=I64)
        single = b.eq(n, one)
        b.emit("raise_if", b.select(single, b.const(False, "bool"), b.ne(n, count)), attrs=(
            "ValueError", "boolean mask assignment: the value's length is not the number of "
            "True elements"))

        def put(bb, idx, acc):
            keep = bb.emit("load", mask, *idx)
            with ctx.emitting(bb):
                k = bb.select(single, bb.const(0, I64), acc[0])
                self.lw.exprs.branch(keep, lambda: (ctx.b.emit(
                    "store", a, *idx, arrays.scalar_for(ctx.b.emit("load", value, k), elem,
                                                        node)), k)[1], lambda: k, node)
            return [bb.add(acc[0], bb.select(keep, one, zero))]
        reduce_each(b, dims, [zero], put)

    def _compress(self, a: Var, mask: Var, node: ast.AST) -> Var:
        """The elements of `a` where `mask` holds, in row-major order: counted first, then
        copied (a length known only at run time)."""
        b, arrays = self.ctx.b, self.lw.arrays
        dims = arrays.dims(a)
        one, zero = b.const(1, I64), b.const(0, I64)
        count = reduce_each(b, dims, [zero], lambda bb, idx, acc: [bb.add(acc[0], bb.select(
            bb.emit("load", mask, *idx), one, zero))])[0]
        out = arrays.new_array(elem_type(a.type), [count])

        def copy(bb, idx, acc):
            keep = bb.emit("load", mask, *idx)
            with self.ctx.emitting(bb):
                k = acc[0]
                self.lw.exprs.branch(keep, lambda: (self.ctx.b.emit(
                    "store", out, k, self.ctx.b.emit("load", a, *idx)), k)[1],
                    lambda: k, node)
            return [bb.add(acc[0], bb.select(keep, one, zero))]
        reduce_each(b, dims, [zero], copy)
        return out
