"""Frontend, numerical calculus on arrays: `np.gradient` (central differences inside,
one-sided at the ends: NumPy's edge_order=1 for a uniform spacing), `np.trapezoid` (the
trapezoidal rule, `x` or `dx`, along an axis) and `np.convolve` (1-D, modes "full", "same",
"valid"). Each is written with loads of its operands, so gradients flow through them like
through any element read."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.loops import for_range
from ..ir.nodes import F64, I64, Var, elem_type, ndim_of
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
        """np.gradient(f, h=1.0, axis=None): along each axis (a tuple of arrays where there
        are several axes, as NumPy), (f[i + 1] - f[i - 1]) / (2 h) inside, (f[1] - f[0]) / h and
        (f[-1] - f[-2]) / h at the ends. One spacing number (the same for every axis);
        coordinate arrays and edge_order=2 are refused."""
        nf = self.lw.numpyfuncs
        nf.check(node, args, kw, (1, 2), ("axis", "edge_order"))
        if nf.const(kw, "edge_order", 1, (int,), "a constant integer") != 1:
            raise self.ctx.error(kw["edge_order"], "np.gradient: pyad has edge_order=1 only",
                                 cls=PyadTypeError)
        a = self.lw.arrays.array(args[0], node.args[0])
        b = self.ctx.b
        h = b.const(1.0)
        if len(args) == 2:
            if self.lw.arrayops.is_arrayish(args[1]):
                raise self.ctx.error(node.args[1], "np.gradient takes one spacing number "
                                     "here (not coordinates)", cls=PyadTypeError)
            h = self.ctx.convert(self.lw.exprs.scalar(args[1], node), F64)
        nd = ndim_of(a.type)
        axis = nf.const(kw, "axis", None, (int, tuple, type(None)),
                        "a constant integer or tuple")
        axes = range(nd) if axis is None else axis if isinstance(axis, tuple) else (axis,)
        outs = tuple(self.lw.arrayops.materialize(self._along(a, nf.axis_of(a, k, node), h))
                     for k in axes)
        return outs[0] if len(outs) == 1 else outs

    def _along(self, a: Var, k: int, h: Var) -> Lazy:
        lz = self.lw.arrayops.lift(a)
        b = self.ctx.b
        n = lz.dims[k]
        one = b.const(1, I64)
        b.emit("raise_if", b.lt(n, b.const(2, I64)), attrs=(
            "ValueError", "Shape of array too small to calculate a numerical gradient, at "
            "least (edge_order + 1) elements are required."))

        def gen(idx):
            bb = self.ctx.b
            i = idx[k]
            lo, hi = bb.max(bb.sub(i, one), bb.const(0, I64)), bb.min(bb.add(i, one),
                                                                      bb.sub(n, one))
            at = lambda j: self.ctx.convert(lz.gen(idx[:k] + [j] + idx[k + 1:]), F64)  # noqa
            return bb.fdiv(bb.sub(at(hi), at(lo)), bb.mul(bb.tofloat(bb.sub(hi, lo)), h))
        return Lazy(F64, lz.dims, gen)

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
