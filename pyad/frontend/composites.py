"""Frontend, NumPy functions that are compositions of others: `np.average` (weights, axis),
`np.ptp`, `np.nansum`, `np.nanmean`, `np.nanmax`, `np.nanmin`, `np.cov`, `np.corrcoef`,
`np.pad` (a constant), `np.vdot`, `np.cross` (3-vectors along the last axis), `np.meshgrid`
(2 or 3 vectors, `indexing="xy"` or `"ij"`), `np.tile` and `np.repeat` (an int count). Each
is an elementwise `Lazy` or a reduction of one, so it fuses and differentiates like the
expression it stands for; `tile`, `repeat`, `meshgrid` and `pad` make new arrays where
NumPy may return views or broadcasts."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.nodes import BOOL, F64, I64, Var, elem_type, is_array, ndim_of
from .context import Lazy, PyList, arith, unify

#: np.pad's modes other than 'constant' (composites.Composites._padded)
_PAD_MODES = ("edge", "wrap", "reflect", "symmetric")


def _tuples(v):
    """`v` with its lists known when compiling (PyList) as tuples, nested ones too."""
    if isinstance(v, PyList) or type(v) is tuple:
        return tuple(_tuples(x) for x in v)
    return v


class Composites:
    """`np.<name>(...)` for the names in NAMES; one per function body."""

    NAMES = ("average", "ptp", "nansum", "nanmean", "vdot", "cross", "meshgrid", "tile",
             "repeat", "cov", "corrcoef", "nanmax", "nanmin", "pad")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list, kw: dict):
        return getattr(self, name)(node, args, kw)

    def _kw(self, node: ast.Call, kw: dict, allowed: tuple) -> None:
        extra = set(kw) - set(allowed)
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")

    def _lazy(self, v, node: ast.AST) -> Lazy:
        ops = self.lw.arrayops
        return ops.lift(self.lw.arrays.array(ops.materialize(v), node))

    # ------------------------------------------------------------------ reductions
    def average(self, node: ast.Call, args: list, kw: dict):
        """np.average(a, axis=None, weights=None): the mean, or sum(w * a) / sum(w) with
        weights of a's shape, or 1-D weights along the one `axis`."""
        self._kw(node, kw, ("axis", "weights"))
        ops = self.lw.arrayops
        if len(args) != 1:
            raise self.ctx.error(node, "np.average takes an array (axis and weights as "
                                 "keywords)", cls=PyadTypeError)
        axes, _ = ops._axis({k: v for k, v in kw.items() if k == "axis"}, node, args)
        if "weights" not in kw:
            return ops.reduce("mean", args[0], axes, node)
        a = self._lazy(args[0], node)
        w = self._lazy(self.lw.exprs.expr(kw["weights"]), kw["weights"])
        nd = len(a.dims)
        if len(w.dims) != nd:
            if len(w.dims) != 1 or axes is None or len(axes) != 1:
                raise self.ctx.error(kw["weights"], "np.average: weights must have the "
                                     "array's shape, or be 1-D along the one axis",
                                     cls=PyadTypeError)
            k = axes[0] % nd
            b = self.ctx.b
            b.emit("raise_if", b.ne(w.dims[0], a.dims[k]), attrs=(
                "ValueError", "np.average: the length of weights differs from the axis"))
            w = Lazy(w.elem, a.dims, lambda idx, w=w, k=k: w.gen([idx[k]]))
        wa = ops.binop(ast.Mult(), w, a, node)
        return ops.binop(ast.Div(), ops.reduce("sum", wa, axes, node),
                         ops.reduce("sum", w, axes, node), node)

    def ptp(self, node: ast.Call, args: list, kw: dict):
        """np.ptp(a, axis=None, keepdims=False): max - min."""
        ops = self.lw.arrayops
        axes, keepdims = ops._axis(kw, node, args)
        return ops.binop(ast.Sub(), ops.reduce("max", args[0], axes, node, keepdims),
                         ops.reduce("min", args[0], axes, node, keepdims), node)

    def nansum(self, node: ast.Call, args: list, kw: dict, mean: bool = False):
        """np.nansum(a, axis=None, keepdims=False): the sum with nan elements counted as 0
        (their gradient is 0); np.nanmean: that sum over the count of the other elements."""
        ops = self.lw.arrayops
        what = "nanmean" if mean else "nansum"
        if len(args) != 1:
            raise self.ctx.error(node, f"np.{what} takes an array (axis and keepdims as "
                                 "keywords)", cls=PyadTypeError)
        axes, keepdims = ops._axis(kw, node, args)
        a = self._lazy(args[0], node)
        if a.elem != F64:   # integers and bools have no nan
            return ops.reduce("mean" if mean else "sum", a, axes, node, keepdims)

        def picked(idx, value):
            bb = self.ctx.b
            x = a.gen(idx)
            return bb.select(bb.ne(x, x), bb.const(0.0), value(bb, x))
        total = ops.reduce("sum", Lazy(F64, a.dims, lambda idx: picked(
            idx, lambda bb, x: x)), axes, node, keepdims)
        if not mean:
            return total
        count = ops.reduce("sum", Lazy(F64, a.dims, lambda idx: picked(
            idx, lambda bb, x: bb.const(1.0))), axes, node, keepdims)
        return ops.binop(ast.Div(), total, count, node)

    def nanmean(self, node: ast.Call, args: list, kw: dict):
        return self.nansum(node, args, kw, mean=True)

    def nanmax(self, node: ast.Call, args: list, kw: dict, kind: str = "max"):
        """np.nanmax(a, axis=None, keepdims=False), np.nanmin: the maximum (minimum) of the
        elements that are not nan (their gradient 0), nan where all are (NumPy warns)."""
        ops, b = self.lw.arrayops, self.ctx.b
        if len(args) != 1:
            raise self.ctx.error(node, f"np.nan{kind} takes an array (axis and keepdims as "
                                 "keywords)", cls=PyadTypeError)
        axes, keepdims = ops._axis(kw, node, args)
        a = self._lazy(args[0], node)
        if a.elem != F64:
            return ops.reduce(kind, a, axes, node, keepdims)
        fill = b.const(float("-inf") if kind == "max" else float("inf"))
        one, zero = b.const(1, I64), b.const(0, I64)

        def picked(idx, if_nan, value):
            bb = self.ctx.b
            x = a.gen(idx)
            return bb.select(bb.ne(x, x), if_nan, x if value is None else value)
        best = ops.reduce(kind, Lazy(F64, a.dims, lambda idx: picked(idx, fill, None)), axes,
                          node, keepdims)
        count = ops.reduce("sum", Lazy(I64, a.dims, lambda idx: picked(idx, zero, one)),
                           axes, node, keepdims)
        return ops.elementwise(lambda r, c: self.ctx.b.select(
            self.ctx.b.eq(c, zero), self.ctx.b.const(float("nan")), r), [best, count], node)

    def nanmin(self, node: ast.Call, args: list, kw: dict):
        return self.nanmax(node, args, kw, kind="min")

    def vdot(self, node: ast.Call, args: list, kw: dict):
        """np.vdot(a, b): the sum of the products of the elements in row-major order (the
        arrays may have different shapes of one size)."""
        self._kw(node, kw, ())
        if len(args) != 2:
            raise self.ctx.error(node, "np.vdot takes two arrays", cls=PyadTypeError)
        nf = self.lw.numpyfuncs
        flat = [nf.flatten(node, [self.lw.arrays.array(self.lw.arrayops.materialize(x), node)],
                         {}) for x in args]
        b = self.ctx.b
        b.emit("raise_if", b.ne(flat[0].dims[0], flat[1].dims[0]), attrs=(
            "ValueError", "np.vdot: the arrays have different sizes"))
        return self.lw.arrayops.reduce("sum", self.lw.arrayops.binop(
            ast.Mult(), flat[0], Lazy(flat[1].elem, flat[0].dims, flat[1].gen), node), None,
            node)

    # ------------------------------------------------------------------ products
    def cross(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """np.cross(a, b) of 3-vectors along the last axis (leading axes broadcast)."""
        self._kw(node, kw, ())
        ops = self.lw.arrayops
        if len(args) != 2:
            raise self.ctx.error(node, "np.cross takes two arrays", cls=PyadTypeError)
        lz = [self._lazy(x, node) for x in args]
        dims = ops.broadcast(lz, node)
        b = self.ctx.b
        three = b.const(3, I64)
        for x in lz:
            b.emit("raise_if", b.ne(x.dims[-1], three), attrs=(
                "ValueError", "np.cross takes 3-vectors here (the last axis of size 3)"))
        ga, gb = (ops._mapped(x, dims) for x in lz)
        elem = unify(arith(lz[0].elem), arith(lz[1].elem))

        def gen(idx: list[Var]) -> Var:
            bb, cv = self.ctx.b, self.ctx.convert
            c = idx[-1]
            one, two, n = bb.const(1, I64), bb.const(2, I64), bb.const(3, I64)
            p, q = bb.mod(bb.add(c, one), n), bb.mod(bb.add(c, two), n)
            at = lambda g, k: cv(g(idx[:-1] + [k]), elem)  # noqa: E731
            return bb.sub(bb.mul(at(ga, p), at(gb, q)), bb.mul(at(ga, q), at(gb, p)))
        return Lazy(elem, dims, gen)

    # ------------------------------------------------------------------ arrangements
    def meshgrid(self, node: ast.Call, args: list, kw: dict) -> tuple:
        """np.meshgrid(x, y[, z], indexing="xy"): coordinate arrays, new ones (Cartesian
        indexing swaps the first two axes, as NumPy)."""
        self._kw(node, kw, ("indexing",))
        indexing = "xy" if "indexing" not in kw else self.lw.arrayops.constant_arg(
            kw["indexing"], (str,), "indexing must be 'xy' or 'ij'")
        if indexing not in ("xy", "ij") or len(args) not in (2, 3):
            raise self.ctx.error(node, "np.meshgrid takes 2 or 3 1-D arrays and indexing "
                                 "'xy' or 'ij'", cls=PyadTypeError)
        vs = [self._lazy(x, node) for x in args]
        if any(len(v.dims) != 1 for v in vs):
            raise self.ctx.error(node, "np.meshgrid takes 1-D arrays", cls=PyadTypeError)
        order = list(range(len(vs)))          # the axis each input runs along
        if indexing == "xy":
            order[0], order[1] = 1, 0
        dims = [None] * len(vs)
        for k, ax in enumerate(order):
            dims[ax] = vs[k].dims[0]
        mat = self.lw.arrayops.materialize   # a tuple holds values, not expressions
        return tuple(mat(Lazy(v.elem, dims, lambda idx, v=v, ax=ax: v.gen([idx[ax]])))
                     for v, ax in zip(vs, order))

    def tile(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """np.tile(a, k): a repeated k times along its last axis (an int k)."""
        a, k = self._count(node, args, kw, "tile")
        last = len(a.dims) - 1
        dims = a.dims[:last] + [self.ctx.b.mul(a.dims[last], k)]
        return Lazy(a.elem, dims, lambda idx: a.gen(
            idx[:last] + [self.ctx.b.mod(idx[last], a.dims[last])]))

    def repeat(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """np.repeat(a, k, axis): each element repeated k times along `axis` (without an
        axis, of the flattened array)."""
        a, k = self._count(node, args, kw, "repeat", axis_ok=True)
        nd = len(a.dims)
        if "axis" in kw:
            axis = self.lw.arrayops.constant_arg(kw["axis"], (int,), "axis must be a "
                                                 "constant integer")
        else:   # the flattened array, as NumPy
            a, nd, axis = self.lw.numpyfuncs.flat(a), 1, 0
        if not -nd <= axis < nd:
            raise self.ctx.error(node, f"axis {axis} is out of bounds", cls=PyadTypeError)
        axis %= nd
        dims = list(a.dims)
        dims[axis] = self.ctx.b.mul(dims[axis], k)
        return Lazy(a.elem, dims, lambda idx: a.gen(
            idx[:axis] + [self.ctx.b.floordiv(idx[axis], k)] + idx[axis + 1:]))

    def _count(self, node, args, kw, what: str, axis_ok: bool = False):
        self._kw(node, kw, ("axis",) if axis_ok else ())
        if len(args) != 2:
            raise self.ctx.error(node, f"np.{what} takes an array and a count",
                                 cls=PyadTypeError)
        k = args[1] if isinstance(args[1], Var) else None
        if k is None or k.type == F64 or is_array(k.type):
            raise self.ctx.error(node, f"np.{what} takes an int count here (not a tuple)",
                                 cls=PyadTypeError)
        b = self.ctx.b
        k = self.ctx.convert(k, I64)
        b.emit("raise_if", b.lt(k, b.const(0, I64)), attrs=(
            "ValueError", f"np.{what}: negative count"))
        return self._lazy(args[0], node), k

    # ------------------------------------------------------------------ statistics
    def cov(self, node: ast.Call, args: list, kw: dict):
        """np.cov(m, y=None, rowvar=True, bias=False, ddof=None): each row of `m` a variable
        (each column with rowvar=False), xc @ xc.T / (N - ddof) with xc the centred rows; a
        1-D `m` is one variable, its variance a number (NumPy: a 0-D array); `y`'s
        variables come after `m`'s."""
        self._kw(node, kw, ("rowvar", "bias", "ddof"))
        name = node.func.attr if isinstance(node.func, ast.Attribute) else "cov"
        if len(args) not in (1, 2):
            raise self.ctx.error(node, f"np.{name} takes one or two arrays", cls=PyadTypeError)
        nf, ops, arrays = self.lw.numpyfuncs, self.lw.arrayops, self.lw.arrays
        rowvar = nf.const(kw, "rowvar", True, (bool,), "True or False")
        bias = nf.const(kw, "bias", False, (bool,), "True or False")
        ddof = nf.const(kw, "ddof", None, (int, type(None)), "a constant integer")
        ddof = (0 if bias else 1) if ddof is None else ddof
        b = self.ctx.b
        parts = [arrays.array(ops.materialize(v), node) for v in args]
        if any(ndim_of(p.type) not in (1, 2) for p in parts):
            raise self.ctx.error(node, f"np.{name} takes 1-D or 2-D arrays", cls=PyadTypeError)
        if len(parts) == 1:
            a = parts[0]
        else:   # np.cov(x, y): y's variables after x's, as rows (NumPy's concatenation)
            a = self.lw.creation.concatenate([
                b.emit("view", p, *self.lw.indexing.whole(arrays.dims(p)), attrs=("ns",))
                if ndim_of(p.type) == 1 else p if rowvar else b.emit("transpose", p)
                for p in parts], 0, node)
            rowvar = True
        nd = ndim_of(a.type)
        if nd == 1:
            x = b.emit("view", a, *self.lw.indexing.whole(arrays.dims(a)), attrs=("ns",))
        else:
            x = a if rowvar else b.emit("transpose", a)
        xc = ops.materialize(ops.binop(ast.Sub(), x, ops.reduce("mean", x, (1,), node,
                                                                 keepdims=True), node))
        n = b.tofloat(b.sub(arrays.dims(xc)[1], b.const(ddof, I64)))
        c = ops.binop(ast.Div(), self.lw.products.dot(xc, b.emit("transpose", xc), node), n, node)
        if nd == 1:
            zero = b.const(0, I64)
            return b.emit("load", ops.materialize(c), zero, zero)
        return c

    def corrcoef(self, node: ast.Call, args: list, kw: dict):
        """np.corrcoef(m, rowvar=True): c / sqrt(outer(diag(c), diag(c))) with c = np.cov(m),
        clipped to [-1, 1] as NumPy does (a 1-D `m` gives 1.0)."""
        self._kw(node, kw, ("rowvar",))
        c = self.cov(node, args, kw)
        ops, b = self.lw.arrayops, self.ctx.b
        if not ops.is_arrayish(c):
            return b.fdiv(c, c)
        c = ops.materialize(c)
        d = ops.materialize(ops.elementwise(lambda x: self.ctx.b.sqrt(x), [
            self.lw.creation.diagonal_of(c, b.const(0, I64), 0, 1)], node))
        r = ops.binop(ast.Div(), ops.binop(ast.Div(), c, self.lw.indexing.expand(d, 1, node),
                                           node), d, node)
        apply = self.lw.functions.apply
        return ops.elementwise(lambda x: apply("numpy.maximum", [apply(
            "numpy.minimum", [x, b.const(1.0)], node), b.const(-1.0)], node), [r], node)

    def pad(self, node: ast.Call, args: list, kw: dict) -> Var | Lazy:
        """np.pad(a, pad_width, mode="constant", constant_values=0): a new array of the
        constant with `a` stored into its middle; pad_width an int, a pair (before, after)
        for every axis, or one pair per axis. The modes "edge", "wrap", "reflect" and
        "symmetric" read each element from `a` (a gather: _padded)."""
        self._kw(node, kw, ("mode", "constant_values"))
        nf, arrays, b = self.lw.numpyfuncs, self.lw.arrays, self.ctx.b
        mode = args[2] if len(args) == 3 else nf.const(kw, "mode", "constant", (str,),
                                                       "a string")
        if len(args) not in (2, 3) or mode not in ("constant",) + _PAD_MODES or \
                mode != "constant" and "constant_values" in kw:
            raise self.ctx.error(node, "np.pad takes an array, pad widths and a mode of "
                                 f"{', '.join(('constant',) + _PAD_MODES)} here (only "
                                 "'constant' takes constant_values)", cls=PyadTypeError,
                                 hint="other modes can be written with np.concatenate of "
                                 "slices")
        a = arrays.array(args[0], node.args[0])
        dims = arrays.dims(a)
        width = _tuples(args[1])                # a list as a tuple, its items too
        width = width if type(width) is tuple else (width,)         # NumPy broadcasts it
        if not any(type(w) is tuple for w in width):                 # to (ndim, 2)
            width = (width,)
        if not all(type(w) is tuple for w in width):
            raise self.ctx.error(node.args[1], "np.pad: one (before, after) pair per axis",
                                 cls=PyadTypeError)
        pairs = [tuple(w) * (3 - len(w)) if len(w) < 2 else tuple(w) for w in width]
        if len(pairs) == 1:
            pairs = pairs * len(dims)
        if len(pairs) != len(dims) or any(len(p) != 2 for p in pairs):
            raise self.ctx.error(node.args[1], "np.pad: one (before, after) pair per axis",
                                 cls=PyadTypeError)
        pairs = [[nf.integer(w, node.args[1]) for w in p] for p in pairs]
        for p in pairs:
            b.emit("raise_if", b.lt(b.min(p[0], p[1]), b.const(0, I64)), attrs=(
                "ValueError", "index can't contain negative values"))
        if mode != "constant":
            return self._padded(a, dims, pairs, mode)
        value = self.lw.exprs.expr(kw["constant_values"]) if "constant_values" in kw \
            else b.const(0, I64)
        elem = elem_type(a.type)
        fill = arrays.scalar_for(value, elem, node)
        out = arrays.new_array(elem, [b.add(d, b.add(p[0], p[1])) for d, p in zip(dims,
                                                                                 pairs)])
        arrays.fill(out, fill)
        one = b.const(1, I64)
        middle = b.emit("view", out, *[x for d, p in zip(dims, pairs) for x in (p[0], d, one)],
                        attrs=("s" * len(dims),))
        self.lw.arrayops.assign_into(middle, a, node)
        return out

    def _padded(self, a: Var, dims: list[Var], pairs: list, mode: str) -> Lazy:
        """`a` padded by reading, for each axis, element j = i - before of it mapped into
        [0, d): edge clamps j; wrap takes j mod d; symmetric mirrors it with period 2d
        (the edge repeated), reflect with period 2d - 2 (not repeated; 1 for d = 1), as
        NumPy's iterated padding does for widths beyond the axis."""
        b = self.ctx.b
        zero, one = b.const(0, I64), b.const(1, I64)
        for d, p in zip(dims, pairs):
            b.emit("raise_if", b.select(b.eq(d, zero), b.gt(b.add(p[0], p[1]), zero),
                                        b.const(False, BOOL)),
                   attrs=("ValueError", f"can't extend an empty axis using mode {mode!r}"))

        def source(i: Var, d: Var, before: Var) -> Var:
            bb = self.ctx.b
            j = bb.sub(i, before)
            if mode == "edge":
                return bb.max(bb.min(j, bb.sub(d, one)), zero)
            if mode == "wrap":
                return bb.emit("mod", j, d)
            period = bb.add(d, d) if mode == "symmetric" else \
                bb.max(bb.sub(bb.add(d, d), bb.const(2, I64)), one)
            k = bb.emit("mod", j, period)
            back = bb.sub(bb.sub(period, one) if mode == "symmetric" else period, k)
            return bb.select(bb.lt(k, d), k, back)
        lz = self.lw.arrayops.lift(a)
        return Lazy(lz.elem, [b.add(d, b.add(p[0], p[1])) for d, p in zip(dims, pairs)],
                    lambda idx: lz.gen([source(i, d, p[0]) for i, d, p in
                                        zip(idx, dims, pairs)]))
