"""Frontend, NumPy's function spellings of Python's operators and a few more two-argument
elementwise functions: `np.add`, `np.subtract`, `np.multiply`, `np.divide`,
`np.true_divide`, `np.floor_divide` (the operators `+ - * / //` with NumPy's broadcasting:
the same as writing them, so `np.divide(1.0, 0.0)` is inf), the comparisons `np.greater`,
`np.less`, `np.equal`, `np.not_equal`, `np.greater_equal`, `np.less_equal`, `np.fmax`,
`np.fmin` (nan-ignoring maximum and minimum), `np.heaviside`, `np.float_power`,
`np.isclose`, `np.allclose`, `math.isclose`, `math.dist`, and `ufunc.outer(a, b)` for these and the op table's two-argument
functions (`np.multiply.outer(u, v)`: each element of `a` with all of `b`)."""
from __future__ import annotations

import ast
import math

from ..errors import PyadTypeError
from ..ir.nodes import BOOL, F64, ndim_of

_OPERATORS = {"add": ast.Add, "subtract": ast.Sub, "multiply": ast.Mult, "divide": ast.Div,
              "true_divide": ast.Div, "floor_divide": ast.FloorDiv}
_COMPARISONS = {"greater": ast.Gt, "less": ast.Lt, "equal": ast.Eq, "not_equal": ast.NotEq,
                "greater_equal": ast.GtE, "less_equal": ast.LtE}


class Ufuncs:
    """See the module docstring; one per function body."""

    NAMES = (*_OPERATORS, *_COMPARISONS, "fmax", "fmin", "heaviside", "float_power",
             "isclose", "allclose")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list, kw: dict):
        ops = self.lw.arrayops
        if name in ("isclose", "allclose"):
            return self.isclose(name, node, args, kw)
        ops._arity(name, node, args, 2, kw)
        if name in _OPERATORS:
            return ops.binop(_OPERATORS[name](), args[0], args[1], node)
        if name in _COMPARISONS:
            cmp = ast.copy_location(ast.Compare(node.args[0], [_COMPARISONS[name]()],
                                                node.args[1:2]), node)
            return ops.compare(cmp, args[0], args[1])
        apply, ctx = self.lw.functions.apply, self.ctx
        if name in ("fmax", "fmin"):
            def f(x, y):   # the other operand where one is nan
                b = ctx.b
                m = apply(f"numpy.{name[1:]}imum", [x, y], node)
                x, y, m = (ctx.convert(v, m.type) for v in (x, y, m))
                return b.select(b.ne(y, y), x, b.select(b.ne(x, x), y, m))
            return ops.elementwise(f, args, node)
        if name == "heaviside":
            def f(x, h):
                b = ctx.b
                x, h = ctx.convert(x, F64), ctx.convert(h, F64)
                step = b.select(b.lt(x, b.const(0.0)), b.const(0.0),
                                b.select(b.gt(x, b.const(0.0)), b.const(1.0), h))
                return b.select(b.ne(x, x), x, step)
            return ops.elementwise(f, args, node)
        return ops.elementwise(lambda x, y: apply("numpy.power", [
            ctx.convert(x, F64), ctx.convert(y, F64)], node), args, node)   # float_power

    def isclose(self, name: str, node: ast.Call, args: list, kw: dict):
        """|a - b| <= atol + rtol |b| (NumPy's defaults 1e-05 and 1e-08), or a == b (equal
        infinities); nan is close to nothing unless equal_nan. np.allclose: np.all of it."""
        nf = self.lw.numpyfuncs
        nf.check(node, args, kw, (2, 3, 4), ("rtol", "atol", "equal_nan"))
        ex, ctx = self.lw.exprs, self.ctx
        tol = {k: ex.expr(kw[k]) if k in kw else args[pos] if len(args) > pos else
               ctx.b.const(default)
               for k, pos, default in (("rtol", 2, 1e-05), ("atol", 3, 1e-08))}
        tol = {k: ctx.convert(ex.scalar(v, node), F64) for k, v in tol.items()}
        equal_nan = nf.const(kw, "equal_nan", False, (bool,), "True or False")

        def f(x, y):
            b = ctx.b
            x, y = ctx.convert(x, F64), ctx.convert(y, F64)
            near = b.le(b.abs(b.sub(x, y)), b.add(tol["atol"], b.mul(tol["rtol"], b.abs(y))))
            close = b.select(b.eq(x, y), b.eq(x, y), near)
            if equal_nan:
                close = b.select(b.ne(x, x), b.ne(y, y), close)
            return close
        out = self.lw.arrayops.elementwise(f, args[:2], node)
        if name == "isclose":
            return out
        if not self.lw.arrayops.is_arrayish(out):
            return out
        return self.lw.logical.count("all", node, [out], {})

    def math_isclose(self, node: ast.Call):
        """math.isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0): a == b, or both finite and
        |a - b| <= max(rel_tol max(|a|, |b|), abs_tol) (CPython's rule; negative tolerances
        raise ValueError naming the line)."""
        ctx, ex = self.ctx, self.lw.exprs
        kw = {k.arg: k.value for k in node.keywords}
        if len(node.args) != 2 or set(kw) - {"rel_tol", "abs_tol"}:
            raise ctx.error(node, "math.isclose takes two numbers and the keywords rel_tol and "
                            "abs_tol", cls=PyadTypeError)
        b = ctx.b
        x, y = (ctx.convert(ex.scalar(ex.expr(a), a), F64) for a in node.args)
        rel, tol = (ctx.convert(ex.scalar(ex.expr(kw[k]), kw[k]), F64) if k in kw
                    else b.const(d) for k, d in (("rel_tol", 1e-09), ("abs_tol", 0.0)))
        b.emit("raise_if", b.select(b.lt(rel, b.const(0.0)), b.lt(rel, b.const(0.0)),
                                    b.lt(tol, b.const(0.0))),
               attrs=("ValueError", "tolerances must be non-negative"))
        inf = b.const(math.inf)
        finite = b.select(b.lt(b.abs(x), inf), b.lt(b.abs(y), inf), b.const(False, BOOL))
        diff = b.abs(b.sub(x, y))
        near = b.le(diff, b.max(b.mul(rel, b.max(b.abs(x), b.abs(y))), tol))
        return b.select(b.eq(x, y), b.eq(x, y), b.select(finite, near, finite))

    def math_dist(self, node: ast.Call):
        """math.dist(p, q) of two tuples or lists of numbers of one length known when
        compiling: math.hypot of the differences (so its derivative at p == q is 0, as
        hypot's at the origin)."""
        ctx, ex = self.ctx, self.lw.exprs
        if len(node.args) != 2 or node.keywords:
            raise ctx.error(node, "math.dist takes two points (p, q)", cls=PyadTypeError)
        p, q = ([ctx.convert(ex.scalar(v, a), F64) for v in self.lw.arrays.known_items(
            ex.expr(a), a, "a point of math.dist")] for a in node.args)
        if len(p) != len(q):
            raise ctx.error(node, "both points must have the same dimension",
                            cls=PyadTypeError)
        if not p:
            return ctx.b.const(0.0)
        return self.lw.functions.apply("math.hypot", [ctx.b.sub(a, b) for a, b in zip(p, q)],
                                       node)

    def accumulate(self, name: str, node: ast.Call):
        """`np.<name>.accumulate(a, axis=0)` of add, multiply, maximum, minimum: the running
        sum, product, maximum or minimum along `axis` (a scan of numpyfuncs.cumsum;
        maximum and minimum compare as Python's max and min: a nan in `a` does not
        propagate as in NumPy)."""
        ops = {"add": "add", "multiply": "mul", "maximum": "max", "minimum": "min"}
        kw = {k.arg: k.value for k in node.keywords}
        if name not in ops or len(node.args) not in (1, 2) or set(kw) - {"axis"}:
            raise self.ctx.error(node, f"np.{name}.accumulate is not supported here", hint=(
                "pyad has accumulate of np.add, np.multiply, np.maximum and np.minimum, "
                "taking an array and an axis"))
        axis = node.args[1] if len(node.args) == 2 else kw.get("axis", ast.Constant(0))
        args = [self.lw.exprs.expr(node.args[0])]
        return self.lw.numpyfuncs.cumsum(node, args, {"axis": axis}, op=ops[name])

    def outer(self, name: str, node: ast.Call):
        """`np.<name>.outer(a, b)`: the function of a[i..., None...] and b[None..., j...]
        (at most 3 dimensions in all)."""
        ex, arrays, ix = self.lw.exprs, self.lw.arrays, self.lw.indexing
        if len(node.args) != 2 or node.keywords:
            raise self.ctx.error(node, f"np.{name}.outer takes two arrays", cls=PyadTypeError)
        a, c = (arrays.array(ex.expr(x), x) for x in node.args)
        na, nc = ndim_of(a.type), ndim_of(c.type)
        if na + nc > 3:
            raise self.ctx.error(node, f"np.{name}.outer would have {na + nc} dimensions "
                                 "(pyad arrays have at most 3)", cls=PyadTypeError)
        b = self.ctx.b
        left = b.emit("view", a, *ix.whole(arrays.dims(a)), attrs=("s" * na + "n" * nc,))
        right = b.emit("view", c, *ix.whole(arrays.dims(c)), attrs=("n" * na + "s" * nc,))
        call = ast.copy_location(ast.Call(node.func, node.args, []), node)
        return self.lw.arrayops.function(name, call, [left, right])
