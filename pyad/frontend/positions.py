"""Frontend, NumPy functions that give positions (int64 results, no gradient): `np.argmax`,
`np.argmin` (over all elements or along an int `axis`, with `keepdims`), and the indices of
the nonzero (True) elements, a length known only at run time: `np.nonzero(a)` and
`np.where(cond)` (a tuple of one index array per dimension), `np.flatnonzero(a)` (indices into
`a.ravel()`), `np.argwhere(a)` (an (n, a.ndim) array), `np.triu_indices`, `np.tril_indices`
(the nonzero positions of a triangle's mask), `np.diag_indices` (and their `_from` forms).
The nonzero functions count the nonzero elements first,
then fill the index arrays in row-major order, as boolean-mask reads do (indexing.py)."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.loops import for_range, reduce_each
from ..ir.nodes import BOOL, F64, I64, Var, elem_type, ndim_of
from .context import Lazy


class Positions:
    """See the module docstring; one per function body."""

    NAMES = ("argmax", "argmin", "nonzero", "flatnonzero", "argwhere", "triu_indices",
             "tril_indices", "triu_indices_from", "tril_indices_from", "diag_indices",
             "diag_indices_from", "unravel_index")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list, kw: dict):
        if name in ("argmax", "argmin"):
            return self.argmax(node, args, kw, smaller=name == "argmin")
        if name == "unravel_index":
            return self.unravel_index(node, args, kw)
        if "_indices" in name:
            return self.indices(name, node, args, kw)
        self.lw.numpyfuncs.check(node, args, kw, (1,), ())
        return self.nonzero(name, node, args[0])

    def unravel_index(self, node: ast.Call, args: list, kw: dict):
        """np.unravel_index(indices, shape): the row-major coordinates of flat indices (an
        int or an int array) in an array of `shape` (a tuple), a tuple of one int (array)
        per axis; an index outside 0..size-1 raises ValueError, as NumPy."""
        nf = self.lw.numpyfuncs
        nf.check(node, args, kw, (2,), ("order",))
        if "order" in kw and self.lw.arrayops.constant_arg(kw["order"], (str,), "order must "
                                                           "be a constant string") != "C":
            raise self.ctx.error(node, "np.unravel_index(order='F') is not supported",
                                 cls=PyadTypeError, hint="reverse the shape and the result")
        shape = tuple(self.lw.arrays.known_items(args[1], node))
        if not shape or not all(isinstance(d, Var) and d.type == I64 for d in shape):
            raise self.ctx.error(node, "np.unravel_index takes a shape tuple of ints",
                                 cls=PyadTypeError)
        size = nf.product(list(shape))
        ops = self.lw.arrayops
        if not ops.is_arrayish(args[0]) and getattr(args[0], "type", None) != I64 or \
                ops.is_arrayish(args[0]) and ops.lift(args[0]).elem != I64:
            raise self.ctx.error(node, "np.unravel_index takes int indices", cls=PyadTypeError)

        def coords(i: Var) -> list[Var]:
            b = self.ctx.b
            bad = b.select(b.lt(i, b.const(0, I64)), b.const(True, BOOL), b.ge(i, size))
            b.emit("raise_if", bad, attrs=("ValueError", "np.unravel_index: an index is out "
                                           "of bounds for the shape"))
            return nf.unravel(i, list(shape))
        if not ops.is_arrayish(args[0]):
            return tuple(coords(args[0]))
        lz = ops.lift(args[0])
        return tuple(ops.materialize(Lazy(I64, lz.dims, lambda idx, k=k: coords(lz.gen(idx))[k]))
                     for k in range(len(shape)))

    # ------------------------------------------------------------------ argmax, argmin
    def argmax(self, node: ast.Call, args: list, kw: dict, smaller: bool = False):
        """The index of the first largest (smallest) element: over the flattened array,
        or along the int `axis` (an int64 array); `keepdims` keeps the reduced axes with
        size 1."""
        nf = self.lw.numpyfuncs
        nf.check(node, args, kw, (1, 2), ("axis", "keepdims"))
        a = self.lw.arrays.array(args[0], node.args[0] if node.args else node)
        if len(args) == 2:
            axis = self.lw.arrayops.constant_arg(node.args[-1], (int, type(None)),
                                                 "axis must be a constant integer")
        else:
            axis = nf.const(kw, "axis", None, (int, type(None)), "a constant integer")
        keepdims = nf.const(kw, "keepdims", False, (bool,), "True or False")
        lz = self.lw.arrayops.lift(a)
        b = self.ctx.b
        nd = len(lz.dims)
        size = nf.product(lz.dims)

        def nonempty(n: Var) -> None:   # the elements scanned: all, or each lane's
            b.emit("raise_if", b.eq(n, b.const(0, I64)), attrs=(
                "ValueError", f"attempt to get {node.func.attr} of an empty sequence"))

        def scan(n: Var, at) -> Var:
            bb = self.ctx.b
            first = at(bb.const(0, I64))

            def step(b2, i, acc):
                with self.ctx.emitting(b2):
                    v = at(i)
                better = b2.lt(v, acc[0]) if smaller else b2.gt(v, acc[0])
                if v.type == F64:   # NumPy's: the first nan, if there is one
                    better = b2.select(b2.ne(acc[0], acc[0]), b2.const(False, BOOL),
                                       b2.select(b2.ne(v, v), b2.const(True, BOOL), better))
                return [b2.select(better, v, acc[0]), b2.select(better, i, acc[1])]
            return for_range(bb, n, [first, bb.const(0, I64)], step, lo=bb.const(1, I64))[1]
        if axis is None:
            nonempty(size)
            r = scan(size, lambda i: lz.gen(nf.unravel(i, lz.dims)))
            return self.lw.arrayops._keep_axes(r, nd, list(range(nd))) if keepdims else r
        if not -nd <= axis < nd:
            raise self.ctx.error(node, f"axis {axis} is out of bounds for a {nd}-D array",
                                 cls=PyadTypeError)
        axis %= nd
        nonempty(lz.dims[axis])   # no lanes (another axis of length 0) is no error, as NumPy
        others = [d for k, d in enumerate(lz.dims) if k != axis]
        if not others:
            r = scan(lz.dims[0], lambda i: lz.gen([i]))
        else:
            r = Lazy(I64, others, lambda idx: scan(
                lz.dims[axis], lambda i: lz.gen(idx[:axis] + [i] + idx[axis:])))
        if not keepdims:
            return r
        return self.lw.arrayops._keep_axes(self.lw.arrayops.materialize(r), nd, [axis])

    # ------------------------------------------------------------------ index tuples
    def indices(self, name: str, node: ast.Call, args: list, kw: dict) -> tuple:
        """np.triu_indices(n, k=0, m=None), np.tril_indices (the positions of the upper
        or lower triangle of an n x m matrix, row by row: the nonzero positions of its
        mask), their `_from(a, k=0)` forms, np.diag_indices(n, ndim=2) and
        np.diag_indices_from(a) (ndim copies of np.arange(n))."""
        nf, arrays, ctx = self.lw.numpyfuncs, self.lw.arrays, self.ctx
        b = ctx.b
        tri = name.startswith(("triu", "tril"))
        if name.endswith("_from"):
            nf.check(node, args, kw, (1, 2) if tri else (1,), ("k",) if tri else ())
            a = arrays.array(args[0], node.args[0])
            dims = arrays.dims(a)
            ndim = ndim_of(a.type)
            if tri and ndim != 2 or ndim < 2:
                raise ctx.error(node, f"np.{name} takes a 2-D array" + (
                    "" if tri else " or a 3-D one"), cls=PyadTypeError)
            n, m, rest = dims[0], dims[1], args[1:]
            for d in dims[1:] if not tri else ():
                b.emit("raise_if", b.ne(d, n), attrs=(
                    "ValueError", "All dimensions of input must be of equal length"))
        else:
            nf.check(node, args, kw, (1, 2, 3) if tri else (1, 2), ("k", "m") if tri
                     else ("ndim",))
            n = nf.integer(args[0], node)
            m = nf.integer(args[2], node) if len(args) == 3 else \
                nf.integer(self.lw.exprs.expr(kw["m"]), node) if "m" in kw else n
            rest = args[1:2]
            ndim = self.lw.arrayops.constant_arg(node.args[1], (int,), "ndim must be a "
                                                 "constant integer") if not tri and \
                len(args) == 2 else nf.const(kw, "ndim", 2, (int,), "a constant integer")
        if not tri:
            if not 1 <= ndim <= 3:
                raise ctx.error(node, "np.diag_indices: ndim must be 1 to 3",
                                cls=PyadTypeError)
            out = arrays.new_array(I64, [n])
            for_range(b, n, [], lambda bb, i, _: (bb.emit("store", out, i, i), [])[1])
            return (out,) * ndim
        k = nf.integer(rest[0], node) if rest else \
            nf.integer(self.lw.exprs.expr(kw["k"]), node) if "k" in kw else b.const(0, I64)
        upper = name.startswith("triu")

        def inside(idx):
            bb = self.ctx.b
            d = bb.sub(idx[1], idx[0])
            return bb.ge(d, k) if upper else bb.le(d, k)
        return self.nonzero("nonzero", node, Lazy(BOOL, [n, m], inside))

    # ------------------------------------------------------------------ nonzero elements
    def nonzero(self, name: str, node: ast.Call, v):
        """The positions of the nonzero elements of `v` in row-major order (see the module
        docstring for the forms)."""
        ctx, arrays = self.ctx, self.lw.arrays
        if not self.lw.arrayops.is_arrayish(v):
            raise ctx.error(node, f"np.{name} of a number (NumPy refuses 0-D arrays here)",
                            cls=PyadTypeError, hint="compare the number instead")
        a = arrays.array(v, node)
        b = ctx.b
        dims = arrays.dims(a)
        nd = ndim_of(a.type)
        one, zero = b.const(1, I64), b.const(0, I64)

        def truth(bb, idx):
            x = bb.emit("load", a, *idx)
            if elem_type(a.type) == BOOL:
                return x
            return bb.ne(x, bb.const(0, x.type))
        count = reduce_each(b, dims, [zero], lambda bb, idx, acc: [bb.add(acc[0], bb.select(
            truth(bb, idx), one, zero))])[0]
        if name == "argwhere":
            outs = [arrays.new_array(I64, [count, b.const(nd, I64)])]
        else:
            outs = [arrays.new_array(I64, [count]) for _ in range(1 if name == "flatnonzero"
                                                                  else nd)]
        nf = self.lw.numpyfuncs

        def write(k: Var, idx: list[Var]) -> Var:
            bb = ctx.b
            if name == "flatnonzero":
                bb.emit("store", outs[0], k, nf.ravel_index(idx, dims))
            elif name == "argwhere":
                for j, i in enumerate(idx):
                    bb.emit("store", outs[0], k, bb.const(j, I64), i)
            else:
                for out, i in zip(outs, idx):
                    bb.emit("store", out, k, i)
            return k

        def put(bb, idx, acc):
            keep = truth(bb, idx)
            with ctx.emitting(bb):
                self.lw.exprs.branch(keep, lambda: write(acc[0], idx), lambda: acc[0], node)
            return [bb.add(acc[0], bb.select(keep, one, zero))]
        reduce_each(b, dims, [zero], put)
        return tuple(outs) if name in ("nonzero", "where") else outs[0]
