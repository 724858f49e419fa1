"""Frontend, numerical calculus on arrays: `np.gradient` (NumPy's differences for even
spacing or coordinates, edge_order 1 or 2), `np.trapezoid` (the
trapezoidal rule, `x` or `dx`, along an axis) and `np.convolve` (1-D, modes "full", "same",
"valid"). Each is written with loads of its operands, so gradients flow through them like
through any element read."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.loops import for_range, reduce_each
from ..ir.nodes import BOOL, F64, I64, Var, elem_type, ndim_of
from .context import Lazy, arith, unify


class Calculus:
    """See the module docstring; one per function body."""

    NAMES = ("gradient", "trapezoid", "convolve")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list, kw: dict):
        return getattr(self, name)(node, args, kw)

    def gradient(self, node: ast.Call, args: list, kw: dict):
        """np.gradient(f, *varargs, axis=None, edge_order=1): along each axis (a tuple of
        arrays where there are several axes, as NumPy), NumPy's second-order differences
        inside and first- or second-order ones at the ends. `varargs`: none (spacing 1),
        one spacing number for every axis, or one per axis, each a number or the 1-D
        coordinates along that axis (NumPy's formulas for uneven spacing; evenly spaced
        coordinates, checked at run time as NumPy does, use the even formulas)."""
        nf = self.lw.numpyfuncs
        nf.check(node, args, kw, tuple(range(1, 5)), ("axis", "edge_order"))
        order = nf.const(kw, "edge_order", 1, (int,), "a constant integer")
        if order not in (1, 2):
            raise self.ctx.error(kw["edge_order"], "np.gradient: edge_order must be 1 or 2",
                                 cls=PyadTypeError)
        a = self.lw.arrays.array(args[0], node.args[0])
        nd = ndim_of(a.type)
        axis = nf.const(kw, "axis", None, (int, tuple, type(None)),
                        "a constant integer or tuple")
        axes = range(nd) if axis is None else axis if isinstance(axis, tuple) else (axis,)
        axes = [nf.axis_of(a, k, node) for k in axes]
        spacing = list(zip(args[1:], node.args[1:]))
        ops = self.lw.arrayops
        if len(spacing) == 1 and not ops.is_arrayish(spacing[0][0]):
            spacing = spacing * len(axes)
        elif not spacing:
            spacing = [(None, node)] * len(axes)
        elif len(spacing) != len(axes):
            raise self.ctx.error(node, "np.gradient takes one spacing number, or one spacing "
                                 "(a number or 1-D coordinates) per axis", cls=PyadTypeError)
        outs = tuple(ops.materialize(self._along(a, k, self._spacing(s, at), order))
                     for k, (s, at) in zip(axes, spacing))
        return outs[0] if len(outs) == 1 else outs

    def _spacing(self, s, at: ast.AST) -> Var:
        """A spacing argument: an f64 number, or a 1-D f64 array of coordinates."""
        if s is None:
            return self.ctx.b.const(1.0)
        if self.lw.arrayops.is_arrayish(s):
            x = self.lw.arrays.array(s, at)
            if ndim_of(x.type) != 1:
                raise self.ctx.error(at, "np.gradient: coordinates must be 1-D",
                                     cls=PyadTypeError)
            return x if elem_type(x.type) == F64 else self.lw.arrays.copy_array(x, F64)
        return self.ctx.convert(self.lw.exprs.scalar(s, at), F64)

    def _along(self, a: Var, k: int, h: Var, order: int) -> Lazy:
        lz = self.lw.arrayops.lift(a)
        b = self.ctx.b
        n = lz.dims[k]
        one = b.const(1, I64)
        b.emit("raise_if", b.lt(n, b.const(order + 1, I64)), attrs=(
            "ValueError", "Shape of array too small to calculate a numerical gradient, at "
            "least (edge_order + 1) elements are required."))
        coords = h.type != F64
        if coords:
            b.emit("raise_if", b.ne(self.lw.arrays.dims(h)[0], n), attrs=(
                "ValueError", "when 1d, distances must match the length of the "
                "corresponding dimension"))
            x = lambda j: b.emit("load", h, j)  # noqa: E731  (emitted where called)
            first = b.sub(x(one), x(b.const(0, I64)))
            even = reduce_each(b, [b.sub(n, one)], [b.const(True, BOOL)], lambda bb, i, acc: [
                bb.select(bb.eq(bb.sub(bb.emit("load", h, bb.add(i[0], one)),
                                       bb.emit("load", h, i[0])), first), acc[0],
                          bb.const(False, BOOL))])[0]
            step = first

        def gen(idx):
            bb = self.ctx.b
            i = idx[k]
            f = lambda j: self.ctx.convert(lz.gen(idx[:k] + [j] + idx[k + 1:]), F64)  # noqa
            last = bb.sub(n, one)
            lo, hi = bb.max(bb.sub(i, one), bb.const(0, I64)), bb.min(bb.add(i, one), last)
            if not coords:
                return self._even(bb, f, i, lo, hi, n, h, order)
            value = self._even(bb, f, i, lo, hi, n, step, order)
            xs = lambda j: bb.emit("load", h, j)  # noqa: E731
            uneven = self._uneven(bb, f, xs, i, n, order)
            # evenly spaced coordinates: NumPy's value (the even formula), the derivative
            # of the uneven one, which is what moving any coordinate gives
            same = bb.add(bb.emit("stopgrad", value), bb.sub(uneven, bb.emit("stopgrad",
                                                                            uneven)))
            return bb.select(even, same, uneven)
        return Lazy(F64, lz.dims, gen)

    @staticmethod
    def _even(bb, f, i, lo, hi, n, h: Var, order: int) -> Var:
        """NumPy's value at i for the even spacing h."""
        inside = bb.fdiv(bb.sub(f(hi), f(lo)), bb.mul(bb.tofloat(bb.sub(hi, lo)), h))
        if order == 1:
            return inside
        c = lambda v: bb.fdiv(bb.const(v), h)  # noqa: E731
        zero, one, two = (bb.const(v, I64) for v in (0, 1, 2))
        last = bb.sub(n, one)
        start = bb.add(bb.add(bb.mul(c(-1.5), f(zero)), bb.mul(c(2.0), f(one))),
                       bb.mul(c(-0.5), f(two)))
        end = bb.add(bb.add(bb.mul(c(0.5), f(bb.sub(last, two))), bb.mul(c(-2.0),
                                                                         f(bb.sub(last, one)))),
                     bb.mul(c(1.5), f(last)))
        return bb.select(bb.eq(i, zero), start, bb.select(bb.eq(i, last), end, inside))

    @staticmethod
    def _uneven(bb, f, x, i, n, order: int) -> Var:
        """NumPy's value at i for the coordinates x (loads)."""
        zero, one, two = (bb.const(v, I64) for v in (0, 1, 2))
        last = bb.sub(n, one)
        # the interior stencil around i, its indices kept in [0, n) at the ends (where its
        # value is not the one selected; n = 2 has no interior)
        j = bb.max(bb.min(i, bb.sub(last, one)), zero)
        jm, jp = bb.max(bb.sub(j, one), zero), bb.min(bb.add(j, one), last)
        d1, d2 = bb.sub(x(j), x(jm)), bb.sub(x(jp), x(j))
        s = bb.add(d1, d2)
        inside = bb.add(bb.add(
            bb.mul(bb.fdiv(bb.neg(d2), bb.mul(d1, s)), f(jm)),
            bb.mul(bb.fdiv(bb.sub(d2, d1), bb.mul(d1, d2)), f(j))),
            bb.mul(bb.fdiv(d1, bb.mul(d2, s)), f(jp)))
        if order == 1:
            start = bb.fdiv(bb.sub(f(one), f(zero)), bb.sub(x(one), x(zero)))
            end = bb.fdiv(bb.sub(f(last), f(bb.sub(last, one))),
                          bb.sub(x(last), x(bb.sub(last, one))))
        else:
            e1, e2 = bb.sub(x(one), x(zero)), bb.sub(x(two), x(one))
            es = bb.add(e1, e2)
            start = bb.add(bb.add(
                bb.mul(bb.fdiv(bb.neg(bb.add(bb.add(e1, e1), e2)), bb.mul(e1, es)), f(zero)),
                bb.mul(bb.fdiv(es, bb.mul(e1, e2)), f(one))),
                bb.mul(bb.fdiv(bb.neg(e1), bb.mul(e2, es)), f(two)))
            g1 = bb.sub(x(bb.sub(last, one)), x(bb.sub(last, two)))
            g2 = bb.sub(x(last), x(bb.sub(last, one)))
            gs = bb.add(g1, g2)
            end = bb.add(bb.add(
                bb.mul(bb.fdiv(g2, bb.mul(g1, gs)), f(bb.sub(last, two))),
                bb.mul(bb.fdiv(bb.neg(gs), bb.mul(g1, g2)), f(bb.sub(last, one)))),
                bb.mul(bb.fdiv(bb.add(bb.add(g2, g2), g1), bb.mul(g2, gs)), f(last)))
        return bb.select(bb.eq(i, zero), start, bb.select(bb.eq(i, last), end, inside))

    def trapezoid(self, node: ast.Call, args: list, kw: dict):
        """np.trapezoid(y, x=None, dx=1.0, axis=-1): the sum over `axis` of (y[i + 1] +
        y[i]) / 2 times x[i + 1] - x[i] (x 1-D along the axis, or of y's shape) or dx."""
        nf, ops, ix = self.lw.numpyfuncs, self.lw.arrayops, self.lw.indexing
        nf.check(node, args, kw, (1, 2), ("x", "dx", "axis"))
        y = self.lw.arrays.array(args[0], node.args[0])
        nd = ndim_of(y.type)
        k = nf.axis_of(y, nf.const(kw, "axis", -1, (int,), "a constant integer"), node)

        def halves(a: Var, axis: int) -> tuple[Var, Var]:
            lead = [ast.Slice() for _ in range(axis)]
            return (ix.general_view(a, lead + [ast.Slice(lower=ast.Constant(1))], node),
                    ix.general_view(a, lead + [ast.Slice(upper=ast.Constant(-1))], node))
        hi, lo = halves(y, k)
        mean = ops.binop(ast.Mult(), ops.binop(ast.Add(), hi, lo, node),
                         self.ctx.b.const(0.5), node)
        xv = args[1] if len(args) == 2 else self.lw.exprs.expr(kw["x"]) if "x" in kw else None
        if xv is not None:
            x = self.lw.arrays.array(xv, node)
            if ndim_of(x.type) == 1 and nd > 1:
                d = ops.materialize(ops.binop(ast.Sub(), *halves(x, 0), node))
                pattern = "".join("s" if j == k else "n" for j in range(nd))
                step = self.ctx.b.emit("view", d, *ix.whole(self.lw.arrays.dims(d)),
                                       attrs=(pattern,))
            else:
                step = ops.binop(ast.Sub(), *halves(x, k if ndim_of(x.type) == nd else 0),
                                 node)
        else:
            dx = kw.get("dx")
            step = self.lw.exprs.scalar(self.lw.exprs.expr(dx), node) if dx is not None \
                else self.ctx.b.const(1.0)
        return ops.reduce("sum", ops.binop(ast.Mult(), mean, step, node), (k,), node)

    def convolve(self, node: ast.Call, args: list, kw: dict) -> Var:
        """np.convolve(a, v, mode="full"): out[k] = sum_j a[j] v[k - j] over the j where
        both exist; "same" keeps the middle max(n, m) elements, "valid" those where v fits
        entirely (NumPy's definitions). A new array."""
        nf, arrays = self.lw.numpyfuncs, self.lw.arrays
        nf.check(node, args, kw, (2, 3), ("mode",))
        mode = args[2] if len(args) == 3 else nf.const(kw, "mode", "full", (str,), "a string")
        if mode not in ("full", "same", "valid"):
            raise self.ctx.error(node, "np.convolve: mode must be 'full', 'same' or 'valid'",
                                 cls=PyadTypeError)
        a, v = (arrays.array(x, n) for x, n in zip(args[:2], node.args[:2]))
        if ndim_of(a.type) != 1 or ndim_of(v.type) != 1:
            raise self.ctx.error(node, "np.convolve takes two 1-D arrays", cls=PyadTypeError)
        b = self.ctx.b
        n, m = arrays.dims(a)[0], arrays.dims(v)[0]
        one, zero = b.const(1, I64), b.const(0, I64)
        b.emit("raise_if", b.eq(b.min(n, m), zero), attrs=(
            "ValueError", "np.convolve: a and v cannot be empty"))
        short, long = b.min(n, m), b.max(n, m)
        if mode == "full":
            off, size = zero, b.sub(b.add(n, m), one)
        elif mode == "same":
            off, size = b.floordiv(b.sub(short, one), b.const(2, I64)), long
        else:
            off, size = b.sub(short, one), b.add(b.sub(long, short), one)
        elem = unify(arith(elem_type(a.type)), arith(elem_type(v.type)))

        def gen(idx):
            bb = self.ctx.b
            k = bb.add(idx[0], off)

            def body(b2, j, acc):
                with self.ctx.emitting(b2):
                    x = self.ctx.convert(b2.emit("load", a, j), elem)
                    y = self.ctx.convert(b2.emit("load", v, b2.sub(k, j)), elem)
                return [b2.add(acc[0], b2.mul(x, y))]
            return for_range(bb, bb.add(bb.min(bb.sub(n, one), k), one),
                             [bb.const(0, elem)], body,
                             lo=bb.max(bb.add(bb.sub(k, m), one), zero))[0]
        return self.lw.arrayops.materialize(Lazy(elem, [size], gen))
