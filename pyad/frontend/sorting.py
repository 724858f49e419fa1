"""Frontend, NumPy functions built on sorting and searching: `np.argsort`, `np.sort` (each
lane along an axis; stable), `np.searchsorted`, `np.median`, `np.percentile`, `np.quantile`
(over all elements, an int or a tuple `axis`, with `keepdims`; NumPy's linear interpolation)
and `np.interp` (`x` a number or an array). Sorting is a gather through the stable order, so
gradients go back through the permutation; a quantile's gradient goes to the one or two
sorted elements it interpolates between (ties: the sorted positions); a lane holding a nan
gives nan, as in NumPy."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.loops import for_range, while_loop
from ..ir.nodes import BOOL, F64, I64, Var, is_array, ndim_of
from .context import DynList, Lazy, RangeVal, SliceVal
from .lists import is_list


class Sorting:
    """See the module docstring; one per function body."""

    NAMES = ("argsort", "sort", "searchsorted", "median", "percentile", "quantile", "interp")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list, kw: dict):
        if name in ("median", "percentile", "quantile"):
            return self.quantile(name, node, args, kw)
        return getattr(self, name)(node, args, kw)

    # ------------------------------------------------------------------ sorting
    def _lanes(self, node: ast.Call, args: list, kw: dict) -> tuple[Var, int]:
        """The array and the axis (NumPy's default: the last) of np.sort / np.argsort."""
        nf = self.lw.numpyfuncs
        nf.check(node, args, kw, (1, 2), ("axis", "kind"))
        a = self.lw.arrays.array(args[0], node.args[0] if node.args else node)
        if "kind" in kw:
            kind = nf.const(kw, "kind", "stable", (str,), "a string")
            if kind not in ("stable", "mergesort"):
                raise self.ctx.error(kw["kind"], f"kind={kind!r} is not supported", hint=(
                    "pyad sorts stably (kind='stable'); NumPy's default is not stable, so "
                    "argsort results may differ where elements are equal"))
        nd = ndim_of(a.type)
        if len(args) == 2:
            axis = self.lw.arrayops.constant_arg(node.args[1], (int, type(None)),
                                                 "axis must be a constant integer")
        else:
            axis = nf.const(kw, "axis", -1, (int, type(None)), "a constant integer")
        if axis is None and nd != 1:   # the flattened array, as NumPy
            a = self.lw.arrayops.materialize(nf.flatten(node, [a], {}))
        return a, nf.axis_of(a, 0 if axis is None else axis, node)

    def argsort(self, node: ast.Call, args: list, kw: dict) -> Var:
        return self.order(*self._lanes(node, args, kw))

    def sort(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        return self.sorted(*self._lanes(node, args, kw))

    def order(self, a: Var, axis: int) -> Var:
        """The stable order of each lane of `a` along `axis` (equal elements keep their
        order, as with kind="stable"): a bottom-up merge sort of the indices, O(n log n)
        comparisons per lane (runs of width 1, 2, 4, ... merged into a second index buffer,
        the two buffers swapping roles), no gradient (indices). An element is taken from
        the right run only when it is smaller than the left one's, which keeps equal
        elements, and nans, in their order."""
        b, arrays = self.ctx.b, self.lw.arrays
        dims = arrays.dims(a)
        n = dims[axis]
        idx, tmp = arrays.new_array(I64, dims), arrays.new_array(I64, dims)
        zero, one, two = b.const(0, I64), b.const(1, I64), b.const(2, I64)

        def lane(outer: list[Var]) -> None:
            at = lambda i: outer[:axis] + [i] + outer[axis:]  # noqa: E731
            for_range(self.ctx.b, n, [],
                      lambda bb, i, _: (bb.emit("store", idx, *at(i), i), [])[1])

            def merge(bb, src, dst, width, lo):
                mid, hi = bb.min(bb.add(lo, width), n), bb.min(bb.add(lo, bb.mul(two, width)), n)

                def step(sb, k, w):
                    i, j = w
                    last = sb.sub(n, one)
                    left = sb.emit("load", src, *at(sb.min(i, last)))
                    right = sb.emit("load", src, *at(sb.min(j, last)))
                    smaller = sb.lt(sb.emit("load", a, *at(right)), sb.emit("load", a, *at(left)))
                    take_right = sb.select(sb.ge(i, mid), sb.const(True, BOOL), sb.select(
                        sb.lt(j, hi), smaller, sb.const(False, BOOL)))
                    sb.emit("store", dst, *at(k), sb.select(take_right, right, left))
                    return [sb.select(take_right, i, sb.add(i, one)),
                            sb.select(take_right, sb.add(j, one), j)]
                for_range(bb, hi, [lo, mid], step, lo=lo)

            def passes(bb, w):
                src, dst, width = w
                while_loop(bb, [zero], lambda cb, v: cb.lt(v[0], n),
                           lambda lb, v: (merge(lb, src, dst, width, v[0]),
                                          [lb.add(v[0], lb.mul(two, width))])[1])
                return [dst, src, bb.mul(width, two)]
            src, _, _ = while_loop(self.ctx.b, [idx, tmp, one],
                                   lambda cb, w: cb.lt(w[2], n), passes)
            for_range(self.ctx.b, n, [], lambda bb, i, _: (bb.emit(
                "store", idx, *at(i), bb.emit("load", src, *at(i))), [])[1])

        others = dims[:axis] + dims[axis + 1:]
        if others:
            self.lw.arrayops.each(others, lane)
        else:
            lane([])
        return idx

    def builtin_sorted(self, v, rev: ast.expr | None, node: ast.Call) -> Var:
        """sorted(v, reverse=rev) of numbers (a list or a 1-D array): an array, read like the
        list CPython makes. CPython's reverse sort keeps equal items in their order (it
        reverses, sorts stably and reverses back): ties pass their gradients as there."""
        ctx, ops = self.ctx, self.lw.arrayops
        a = self.lw.arrays.array(v, node.args[0]) if is_list(v) or isinstance(
            v, Var) and is_array(v.type) else None
        if a is None or ndim_of(a.type) != 1:
            raise ctx.error(node.args[0], "sorted() of numbers (a list or a 1-D array) here",
                            cls=PyadTypeError)
        if rev is None or isinstance(rev, ast.Constant) and rev.value is False:
            return ops.materialize(self.sorted(a, 0))
        if not (isinstance(rev, ast.Constant) and rev.value is True):
            raise ctx.error(rev, "reverse= must be True or False here", cls=PyadTypeError)

        def flip(x: Var) -> Var:
            return ops.materialize(self.lw.logical.flip("flip", node, [x], {}))
        return flip(ops.materialize(self.sorted(flip(a), 0)))

    def sorted(self, a: Var, axis: int) -> Lazy:
        """Each lane of `a` along `axis` in increasing order: a gather through `order`, so
        the gradient goes back through the permutation."""
        order = self.order(a, axis)
        lz = self.lw.arrayops.lift(a)

        def gen(idx):
            b = self.ctx.b
            k = b.emit("load", order, *idx)
            return b.emit("load", a, *idx[:axis], k, *idx[axis + 1:])
        return Lazy(lz.elem, lz.dims, gen)

    # ------------------------------------------------------------------ searching
    def searchsorted(self, node: ast.Call, args: list, kw: dict):
        """np.searchsorted(a, v, side="left"|"right") for a sorted 1-D `a` and a number or
        an array `v`: binary search (int64 results, no gradient)."""
        nf = self.lw.numpyfuncs
        nf.check(node, args, kw, (2,), ("side",))
        a = self._vector(args[0], node.args[0], "np.searchsorted takes a 1-D sorted array")
        side = nf.const(kw, "side", "left", (str,), "'left' or 'right'")
        if side not in ("left", "right"):
            raise self.ctx.error(kw["side"], "side must be 'left' or 'right'")
        n = self.lw.arrays.dims(a)[0]
        return self.lw.arrayops.elementwise(lambda x: self.find(a, n, x, side), [args[1]],
                                            node)

    def _vector(self, v, node: ast.AST, message: str) -> Var:
        a = self.lw.arrays.array(v, node)
        if ndim_of(a.type) != 1:
            raise self.ctx.error(node, message, cls=PyadTypeError)
        return a

    def find(self, a: Var, n: Var, x: Var, side: str) -> Var:
        """The number of elements of the sorted 1-D `a` (of length `n`) below `x` ("left")
        or at most `x` ("right"), by binary search; compared as floats (exact below 2**53)."""
        b = self.ctx.b
        x = self.ctx.convert(x, F64)

        def body(bb, w):
            lo, hi = w
            mid = bb.floordiv(bb.add(lo, hi), bb.const(2, I64))
            v = bb.emit("load", a, mid)
            v = v if v.type == F64 else bb.tofloat(v)
            right = bb.lt(v, x) if side == "left" else bb.le(v, x)
            return [bb.select(right, bb.add(mid, bb.const(1, I64)), lo),
                    bb.select(right, hi, mid)]
        return while_loop(b, [b.const(0, I64), n], lambda cb, w: cb.lt(w[0], w[1]), body)[0]

    def interp(self, node: ast.Call, args: list, kw: dict):
        """np.interp(x, xp, fp, left=None, right=None): `x` a number or an array, `xp`
        increasing. Below xp[0] `left` (default fp[0]); from xp[-1] on fp[-1], or above it
        `right` if given. At a knot the gradient is the slope of the segment to its right.
        The segment's formula is also computed where it is not taken, with `x` moved to the
        segment's left end and a zero width replaced by 1, so that its (zero) gradient there
        is never 0 * inf. With `period`, NumPy's rule: x and xp taken modulo |period|, xp
        sorted (fp with it) and extended by one knot on each side (left, right ignored)."""
        self.lw.numpyfuncs.check(node, args, kw, (3,), ("left", "right", "period"))
        xp, fp = (self._vector(v, n, "np.interp takes 1-D arrays xp and fp")
                  for v, n in zip(args[1:], node.args[1:]))
        ctx, arrays, ex = self.ctx, self.lw.arrays, self.lw.exprs
        b = ctx.b
        n = arrays.dims(xp)[0]
        b.emit("raise_if", b.ne(n, arrays.dims(fp)[0]), attrs=(
            "ValueError", "fp and xp are not of the same length."))
        b.emit("raise_if", b.eq(n, b.const(0, I64)), attrs=(
            "ValueError", "array of sample points is empty"))
        ends = {k: ctx.convert(ex.scalar(ex.expr(kw[k]), kw[k]), F64) for k in ("left", "right")
                if k in kw}
        x = args[0]
        if "period" in kw:
            period = ctx.convert(ex.scalar(ex.expr(kw["period"]), kw["period"]), F64)
            b.emit("raise_if", b.eq(period, b.const(0.0)), attrs=(
                "ValueError", "period must be a non-zero value"))
            p = b.emit("abs", period)
            xp, fp, n = self._periodic(xp, fp, n, p)
            x = self.lw.arrayops.elementwise(
                lambda v: ctx.b.emit("mod", ctx.convert(v, F64), p), [x], node)
            ends = {}

        def one(x: Var) -> Var:
            bb = ctx.b
            x = ctx.convert(x, F64)
            zero, one_ = bb.const(0, I64), bb.const(1, I64)
            at = lambda a, i: ctx.convert(bb.emit("load", a, i), F64)  # noqa: E731
            last = bb.sub(n, one_)
            lo = bb.min(bb.max(bb.sub(self.find(xp, n, x, "right"), one_), zero),
                        bb.max(bb.sub(n, bb.const(2, I64)), zero))
            hi = bb.min(bb.add(lo, one_), last)
            xl, xh, fl, fh = at(xp, lo), at(xp, hi), at(fp, lo), at(fp, hi)
            below = bb.lt(x, at(xp, zero))
            above = bb.gt(x, at(xp, last)) if "right" in ends else bb.ge(x, at(xp, last))
            xin = bb.select(below, xl, bb.select(above, xl, x))
            width = bb.sub(xh, xl)
            width = bb.select(bb.eq(width, bb.const(0.0)), bb.const(1.0), width)
            slope = bb.fdiv(bb.sub(fh, fl), width)
            mid = bb.add(fl, bb.mul(slope, bb.sub(xin, xl)))
            # NumPy, where that is nan (an infinite or nan fp): fl at the knot, else the formula
            # from the right end, else fl if fh equals it
            alt = bb.add(fh, bb.mul(slope, bb.sub(xin, xh)))
            alt = bb.select(bb.select(bb.ne(alt, alt), bb.eq(fl, fh), bb.const(False, BOOL)),
                            fl, alt)
            mid = bb.select(bb.ne(mid, mid), bb.select(bb.eq(xin, xl), fl, alt), mid)
            return bb.select(below, ends.get("left", at(fp, zero)),
                             bb.select(above, ends.get("right", at(fp, last)), mid))
        return self.lw.arrayops.elementwise(one, [x], node)

    def _periodic(self, xp: Var, fp: Var, n: Var, p: Var) -> tuple[Var, Var, Var]:
        """NumPy's knots for the period `p` (> 0): xp mod p sorted, fp in that order, each
        extended by the last knot one period down before the first and the first one
        period up after the last; their count."""
        b, arrays = self.ctx.b, self.lw.arrays
        xm = arrays.new_array(F64, [n])
        for_range(b, n, [], lambda bb, i, _: (bb.emit("store", xm, i, bb.emit(
            "mod", self.ctx.convert(bb.emit("load", xp, i), F64), p)), [])[1])
        order = self.order(xm, 0)
        one = b.const(1, I64)
        last = b.sub(n, one)
        xe, fe = arrays.new_array(F64, [b.add(n, b.const(2, I64))]), \
            arrays.new_array(F64, [b.add(n, b.const(2, I64))])

        def put(bb, i, _):
            with self.ctx.emitting(bb):
                k = bb.emit("load", order, i)
                bb.emit("store", xe, bb.add(i, one), bb.emit("load", xm, k))
                bb.emit("store", fe, bb.add(i, one),
                        self.ctx.convert(bb.emit("load", fp, k), F64))
            return []
        for_range(b, n, [], put)
        first, end = b.emit("load", order, b.const(0, I64)), b.emit("load", order, last)
        b.emit("store", xe, b.const(0, I64), b.sub(b.emit("load", xm, end), p))
        b.emit("store", xe, b.add(n, one), b.add(b.emit("load", xm, first), p))
        b.emit("store", fe, b.const(0, I64), self.ctx.convert(b.emit("load", fp, end), F64))
        b.emit("store", fe, b.add(n, one), self.ctx.convert(b.emit("load", fp, first), F64))
        return xe, fe, b.add(n, b.const(2, I64))

    # ------------------------------------------------------------------ quantiles
    def quantile(self, name: str, node: ast.Call, args: list, kw: dict):
        """np.median(a, axis, keepdims), np.percentile(a, q, axis, keepdims),
        np.quantile(...): `q` one number (ValueError at run time outside [0, 100] or
        [0, 1], or nan), or a list or tuple of them (the results stacked, q's axis first). The reduced axes are gathered into the last one, which is sorted;
        the result interpolates between the sorted elements at floor(q (n - 1)) and the
        next (NumPy's method="linear"; the median is the mean of the middle two)."""
        nf, ops, arrays = self.lw.numpyfuncs, self.lw.arrayops, self.lw.arrays
        nq = 0 if name == "median" else 1
        nf.check(node, args, kw, (1 + nq, 2 + nq), ("axis", "keepdims", "method"))
        if nf.const(kw, "method", "linear", (str,), "a string") != "linear":
            raise self.ctx.error(kw["method"], "pyad's quantiles use method='linear' (NumPy's "
                                 "default) only", cls=PyadTypeError)
        a = arrays.array(args[0], node.args[0])
        nd = ndim_of(a.type)
        if len(args) == 2 + nq:
            axis = ops.constant_arg(node.args[1 + nq], (int, tuple, type(None)),
                                    "axis must be a constant integer or tuple of integers")
        else:
            axis = nf.const(kw, "axis", None, (int, tuple, type(None)),
                            "a constant integer or tuple of integers")
        keepdims = nf.const(kw, "keepdims", False, (bool,), "True or False")
        axes = sorted(nf.axis_of(a, k, node) for k in (
            range(nd) if axis is None else axis if isinstance(axis, tuple) else (axis,)))
        if len(set(axes)) != len(axes):
            raise self.ctx.error(node, "duplicate value in axis", cls=PyadTypeError)
        qs = args[1] if nq else None
        several = isinstance(qs, tuple) and not isinstance(qs, (DynList, RangeVal, SliceVal))
        s = ops.materialize(self.sorted(self._gathered(a, axes), nd - len(axes)))
        b = self.ctx.b
        n = arrays.dims(s)[-1]
        b.emit("raise_if", b.eq(n, b.const(0, I64)), attrs=(
            "ValueError", f"np.{name} of an empty array"))
        if not several:
            q = self._checked_q(name, qs, node.args[1]) if nq else None
            return self._interpolated(s, n, q, nd, axes, keepdims)
        # a list or tuple of q: one result per q, stacked (NumPy: q's axis first)
        parts = [ops.materialize(self._interpolated(s, n, self._checked_q(name, q, node.args[1]),
                                                     nd, axes, keepdims)) for q in qs]
        return self.lw.creation.stacked(parts, node)

    def _interpolated(self, s: Var, n: Var, q: Var | None, nd: int, axes: list[int],
                      keepdims: bool):
        """The quantile `q` (a fraction; None: the median) of each lane of the sorted `s`
        (its last axis, of length n)."""
        b, ops = self.ctx.b, self.lw.arrayops
        one = b.const(1, I64)
        if q is None:
            lo, hi = b.floordiv(b.sub(n, one), b.const(2, I64)), b.floordiv(n, b.const(2, I64))
        else:
            pos = b.mul(q, b.tofloat(b.sub(n, one)))
            lo = self.ctx.convert(pos, I64)   # pos >= 0: truncation is the floor
            hi = b.min(b.add(lo, one), b.sub(n, one))
            frac = b.sub(pos, b.tofloat(lo))

        def at(idx: list[Var]) -> Var:
            bb = self.ctx.b
            x, y = (self.ctx.convert(bb.emit("load", s, *idx, k), F64) for k in (lo, hi))
            r = bb.mul(bb.const(0.5), bb.add(x, y)) if q is None \
                else bb.add(x, bb.mul(frac, bb.sub(y, x)))
            if not s.type.startswith(F64):
                return r
            # a nan anywhere in the lane gives nan, as in NumPy (the sort leaves nans be)
            nan = for_range(bb, n, [bb.const(False, BOOL)], lambda b2, k, acc: [b2.select(
                b2.ne(*2 * [b2.emit("load", s, *idx, k)]), b2.const(True, BOOL), acc[0])])[0]
            return bb.select(nan, bb.const(float("nan")), r)
        kept = self.lw.arrays.dims(s)[:-1]
        r = Lazy(F64, kept, at) if kept else at([])
        if not keepdims:
            return r
        return ops._keep_axes(ops.materialize(r), nd, axes)

    def _gathered(self, a: Var, axes: list[int]) -> Var:
        """`a` with the `axes` moved to the end and merged into one (row-major), the other
        axes in their order: an array whose last axis holds each lane to reduce."""
        nd = ndim_of(a.type)
        if axes == [nd - 1]:
            return a
        nf, lz = self.lw.numpyfuncs, self.lw.arrayops.lift(a)
        kept = [k for k in range(nd) if k not in axes]
        rdims = [lz.dims[k] for k in axes]

        def gen(idx: list[Var]) -> Var:
            inner, full = iter(nf.unravel(idx[-1], rdims)), []
            outer = iter(idx[:-1])
            for k in range(nd):
                full.append(next(inner) if k in axes else next(outer))
            return lz.gen(full)
        return self.lw.arrayops.materialize(
            Lazy(lz.elem, [lz.dims[k] for k in kept] + [nf.product(rdims)], gen))

    def _checked_q(self, name: str, q, node: ast.AST) -> Var:
        """`q` as a fraction in [0, 1] after a ValueError check at run time: NumPy's range,
        [0, 100] (percentile) or [0, 1], nan refused."""
        ctx = self.ctx
        b = ctx.b
        if not isinstance(q, Var) or is_array(q.type):
            raise ctx.error(node, f"np.{name}: q must be a number or a list of numbers",
                            cls=PyadTypeError, hint="for an array of q, call it once per q")
        q = ctx.convert(q, F64)
        top = 100.0 if name == "percentile" else 1.0
        bad = b.select(b.lt(q, b.const(0.0)), b.const(True, BOOL),
                       b.select(b.gt(q, b.const(top)), b.const(True, BOOL), b.ne(q, q)))
        b.emit("raise_if", bad, attrs=("ValueError", f"{'Percentiles' if top > 1 else 'Quantiles'}"
                                       f" must be in the range [0, {top:g}]"))
        return b.fdiv(q, b.const(top)) if top > 1 else q
