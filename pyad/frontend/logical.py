"""Frontend, NumPy's logic and the small elementwise functions written with other ops:
`np.logical_and/or/xor/not`, `np.isnan/isinf/isfinite`, `np.any/all` and
`np.count_nonzero` (with `axis` and `keepdims`, methods too), `np.square`,
`np.mod`/`np.remainder` (Python's `%`: the sign of the divisor), `np.flip`/`fliplr`/`flipud`
(a new array; NumPy's is a view), `np.reciprocal/negative/positive/exp2/deg2rad/radians/
rad2deg/degrees/trunc/fix/rint/sinc`, `np.round(a, decimals)` (halves to even, as NumPy)
and the conversions `np.float64(x)`, `np.int64(x)`, `np.bool_(x)` (of a number or, as
`a.astype`, of an array). Each is an elementwise `Lazy` or a reduction, so it fuses and
differentiates like the expression it stands for. Also Python's tests (`Logical.condition`:
the truth of an `if`, `while` or conditional expression's test)."""
from __future__ import annotations

import ast
import math

from ..errors import PyadTypeError
from . import dtypes
from ..ir.nodes import BOOL, F64, I64, Var
from .context import Lazy, unify


#: elementwise functions of one float, written with other ops (`simple`)
_SIMPLE = ("reciprocal", "negative", "positive", "exp2", "deg2rad", "radians", "rad2deg",
           "degrees", "trunc", "fix", "sinc")


class Logical:
    """`np.<name>(...)` for the names in NAMES; one per function body."""

    NAMES = ("logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf",
             "isfinite", "any", "all", "count_nonzero", "square", "mod", "remainder",
             "flip", "fliplr", "flipud", "reciprocal", "negative", "positive", "exp2",
             "deg2rad", "radians", "rad2deg", "degrees", "trunc", "fix", "round",
             "around", "sinc", "float64", "int64", "bool_", "select", "rot90")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def condition(self, node: ast.expr) -> Var:
        """The truth of `node` as a test (`if`, `while`, a conditional expression): `and`,
        `or` and `not` act on their operands' truth, short-circuiting, so a list tests as
        in CPython there (`while xs and xs[-1] > 0.0`: the value of `xs and ...` may be the
        list, which is not a number)."""
        ex = self.lw.exprs
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self.ctx.b.emit("not", self.condition(node.operand))
        if not isinstance(node, ast.BoolOp):
            return ex.truth(ex.expr(node), node)

        def chain(values: list[ast.expr]) -> Var:
            first = self.condition(values[0])
            if len(values) == 1:
                return first
            rest = lambda: chain(values[1:])  # noqa: E731
            stop = lambda: self.ctx.b.const(isinstance(node.op, ast.Or), BOOL)  # noqa: E731
            return ex.branch(first, *((rest, stop) if isinstance(node.op, ast.And)
                                      else (stop, rest)), node)
        return chain(node.values)

    def call(self, name: str, node: ast.Call, args: list, kw: dict):
        ops, ex = self.lw.arrayops, self.lw.exprs
        if name in ("any", "all", "count_nonzero"):
            return self.count(name, node, args, kw)
        if name in ("flip", "fliplr", "flipud"):
            return self.flip(name, node, args, kw)
        if name == "rot90":
            return self.rot90(node, args, kw)
        if name == "select":
            return self.select(node, args, kw)
        if name in ("round", "around"):
            return self.round(node, args, kw)
        if name in ("float64", "int64", "bool_"):   # np.float64(x): a conversion, as astype
            ops._arity(name, node, args, 1, kw)
            elem = dtypes.dtype_of(self.lw, node.func)
            if elem == BOOL:
                return ops.elementwise(lambda x: ex.truth(x, node), args, node)
            return ops.elementwise(lambda x: self.ctx.convert(x, elem), args, node)
        n = 2 if name in ("logical_and", "logical_or", "logical_xor", "mod", "remainder") \
            else 1
        ops._arity(name, node, args, n, kw)
        if name in _SIMPLE:
            return ops.elementwise(lambda x: self.simple(name, self.ctx.convert(x, F64)),
                                   args, node)
        b = lambda: self.ctx.b  # noqa: E731  (the builder the element is emitted into)
        truth = lambda x: ex.truth(x, node)  # noqa: E731
        if name == "square":
            return ops.elementwise(lambda x: ex.binop(ast.Mult(), x, x, node), args, node)
        if name in ("mod", "remainder"):
            return ops.elementwise(lambda x, y: ex.binop(ast.Mod(), x, y, node, python=False),
                                   args, node)
        if name == "logical_not":
            return ops.elementwise(lambda x: b().emit("not", truth(x)), args, node)
        if name == "logical_and":
            return ops.elementwise(lambda x, y: b().select(truth(x), truth(y), b().const(
                False, BOOL)), args, node)
        if name == "logical_or":
            return ops.elementwise(lambda x, y: b().select(truth(x), b().const(
                True, BOOL), truth(y)), args, node)
        if name == "logical_xor":
            return ops.elementwise(lambda x, y: b().ne(truth(x), truth(y)), args, node)
        return ops.elementwise(lambda x: self.predicate(name, x), args, node)

    def where(self, args: list, node: ast.Call) -> Lazy:
        """np.where(cond, x, y), elementwise and broadcast."""
        ctx = self.ctx

        def w(c, x, y):
            t = unify(x.type, y.type)
            return ctx.b.select(self.lw.exprs.truth(c, node), ctx.convert(x, t),
                                ctx.convert(y, t))
        return self.lw.arrayops.elementwise(w, args, node)

    def select(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """np.select(condlist, choicelist, default=0): where the first true condition is,
        its choice; `default` where none is (lists or tuples of arrays or numbers, of one
        length, known when compiling)."""
        extra = set(kw) - {"default"}
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")
        if len(args) not in (2, 3) or len(args) == 3 and "default" in kw:
            raise self.ctx.error(node, "np.select takes condlist, choicelist and default",
                                 cls=PyadTypeError)
        conds, choices = args[0], args[1]
        if not all(isinstance(v, (tuple, list)) for v in (conds, choices)):
            raise self.ctx.error(node, "np.select: condlist and choicelist must be lists "
                                 "written in the call (or tuples)", cls=PyadTypeError)
        if len(conds) != len(choices) or not conds:
            raise self.ctx.error(node, "np.select: list of cases must be same length as "
                                 "list of conditions (and not empty)", cls=PyadTypeError)
        if len(args) == 3:
            out = args[2]
        elif "default" in kw:
            out = self.lw.exprs.expr(kw["default"])
        else:
            out = self.ctx.b.const(0, I64)
        for c, v in reversed(list(zip(conds, choices))):   # the first true one wins
            out = self.where([c, v, out], node)
        return out

    def rot90(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """np.rot90(m, k=1, axes=(0, 1)): `m` turned k times by 90 degrees from the first
        axis towards the second (k and axes constants), as NumPy: flip along axes[1], then
        swap the axes (k = 1); both flips (k = 2); swap, then flip along axes[1] (k = 3)."""
        ops = self.lw.arrayops
        extra = set(kw) - {"k", "axes"}
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")
        if not 1 <= len(args) <= 3:
            raise self.ctx.error(node, "np.rot90 takes an array, k and axes", cls=PyadTypeError)
        given = dict(zip(("k", "axes"), node.args[1:]), **kw)
        k = ops.constant_arg(given["k"], (int,), "k must be a constant integer") \
            if "k" in given else 1
        axes = ops.constant_arg(given["axes"], (tuple, list), "axes must be a constant "
                                "tuple") if "axes" in given else (0, 1)
        a = ops.materialize(args[0])
        lz = ops.lift(a)
        nd = len(lz.dims)
        if len(axes) != 2 or not all(isinstance(x, int) and -nd <= x < nd for x in axes) \
                or axes[0] % nd == axes[1] % nd:
            raise self.ctx.error(node, f"np.rot90: axes {tuple(axes)} must be two different "
                                 f"axes of a {nd}-D array", cls=PyadTypeError)
        p, q = (x % nd for x in axes)
        k %= 4
        swap = k in (1, 3)
        dims = list(lz.dims)
        if swap:
            dims[p], dims[q] = dims[q], dims[p]

        def gen(idx):
            b = self.ctx.b
            one = b.const(1, I64)
            j = list(idx)
            if k == 3:    # flip the swapped array along q (its size there is dims[q])
                j[q] = b.sub(b.sub(dims[q], one), j[q])
            if swap:
                j[p], j[q] = j[q], j[p]
            if k in (1, 2):   # flip m along q (and p for k = 2)
                j[q] = b.sub(b.sub(lz.dims[q], one), j[q])
            if k == 2:
                j[p] = b.sub(b.sub(lz.dims[p], one), j[p])
            return lz.gen(j)
        return ops.viewing(Lazy(lz.elem, dims, gen), a, "np.rot90(a)")

    def bool_operator(self, op: ast.AST, node: ast.AST, x: Var | None = None,
                      y: Var | None = None) -> Var:
        """NumPy's arithmetic of two bools of arrays: `+` is `or`, `*` is `and` (bools
        again); NumPy raises for `-` (of two, or of one), so it is refused."""
        if isinstance(op, (ast.Sub, ast.USub)):
            what = "subtract" if isinstance(op, ast.Sub) else "negate"
            raise self.ctx.error(node, f"NumPy does not {what} bool arrays", cls=PyadTypeError,
                                 hint="write `a ^ b` (np.logical_xor) or `~a` "
                                 "(np.logical_not), or convert with .astype(int)")
        b = self.ctx.b
        return b.select(x, x, y) if isinstance(op, ast.Add) else b.select(x, y, x)

    def simple(self, name: str, x: Var) -> Var:
        """One of _SIMPLE of the number x (a float)."""
        b = self.ctx.b
        f = lambda v: b.const(v, F64)  # noqa: E731
        if name == "reciprocal":
            return b.fdiv(f(1.0), x)
        if name == "negative":
            return b.neg(x)
        if name == "positive":
            return x
        if name == "exp2":
            return b.emit("pow", f(2.0), x)
        if name in ("deg2rad", "radians"):
            return b.mul(x, f(math.pi / 180.0))
        if name in ("rad2deg", "degrees"):
            return b.mul(x, f(180.0 / math.pi))
        if name == "isnan":
            return b.ne(x, x)
        if name in ("isinf", "isfinite"):
            size = b.emit("abs", x)
            return b.eq(size, f(math.inf)) if name == "isinf" else b.lt(size, f(math.inf))
        if name == "gamma":   # exp(lgamma(x)), negative where x < 0 and floor(x) is odd
            fl = b.emit("floor", x)
            odd = b.ne(fl, b.mul(f(2.0), b.emit("floor", b.mul(fl, f(0.5)))))
            sign = b.select(b.select(b.lt(x, f(0.0)), odd, b.const(False, BOOL)), f(-1.0), f(1.0))
            return b.mul(sign, b.emit("exp", b.emit("lgamma", x)))
        if name in ("trunc", "fix"):
            return b.select(b.lt(x, f(0.0)), b.emit("ceil", x), b.emit("floor", x))
        return self.sinc(x)

    def sinc(self, x: Var) -> Var:
        """np.sinc: NumPy's value sin(pi x) / (pi x) (1 at 0), differentiated through that
        quotient where |pi x| >= 0.1 and through sinc's Taylor polynomial below: the
        quotient's derivative cos(p) / p - sin(p) / p^2 cancels (30% off at x = 1e-8) and
        is nan for a subnormal x (1 / p^2 overflows)."""
        b = self.ctx.b

        def f(c: float) -> Var:
            return b.const(c)
        px = b.mul(x, f(math.pi))
        zero = b.eq(x, f(0.0))
        safe = b.select(zero, f(1.0), px)
        quotient = b.select(zero, f(1.0), b.fdiv(b.emit("sin", safe), safe))
        p2 = b.mul(px, px)
        series = f(0.0)
        for k in range(10, -1, -2):   # 1 - p^2/3! + p^4/5! - ... - p^10/11!: Horner in p^2
            series = b.add(b.mul(series, p2), f((-1.0) ** (k // 2) / math.factorial(k + 1)))
        # near 0: the quotient's value with the series' derivative (their difference is
        # below 1e-17 there; series - series is exactly 0)
        near = b.add(b.emit("stopgrad", quotient),
                     b.sub(series, b.emit("stopgrad", series)))
        return b.select(b.lt(b.emit("abs", px), f(0.1)), near, quotient)

    def half_even(self, x: Var) -> Var:
        """x rounded to the nearest integer, ties to even (NumPy's rint and round)."""
        return self.ctx.b.emit("rint", x)   # floor(x + 0.5) was 1 at 0.49999999999999994

    def round(self, node: ast.Call, args: list, kw: dict):
        """np.round(a, decimals=0) (and np.around, a.round()): NumPy's rule, the value
        scaled by 10**decimals, rounded half to even, scaled back."""
        if set(kw) - {"decimals"} or len(args) not in (1, 2):
            raise self.ctx.error(node, "np.round takes an array and decimals",
                                 cls=PyadTypeError)
        given = node.args[len(node.args) - (len(args) - 1):]   # after the array
        at = given[0] if given else kw.get("decimals")
        d = 0 if at is None else self.lw.arrayops.constant_arg(
            at, (int,), "decimals must be a constant integer")

        def rounded(x):
            b = self.ctx.b
            x = self.ctx.convert(x, F64)
            if d == 0:
                return self.half_even(x)
            if d > 0:
                s = b.const(10.0 ** d, F64)
                return b.fdiv(self.half_even(b.mul(x, s)), s)
            s = b.const(10.0 ** -d, F64)
            return b.mul(self.half_even(b.fdiv(x, s)), s)
        return self.lw.arrayops.elementwise(rounded, args[:1], node)

    def predicate(self, name: str, x: Var) -> Var:
        """isnan, isinf, isfinite of one number (ints and bools are finite numbers)."""
        b = self.ctx.b
        if x.type != F64:
            return b.const(name == "isfinite", BOOL)
        if name == "isnan":
            return b.ne(x, x)
        if name == "isinf":
            return b.eq(b.abs(x), b.const(float("inf"), F64))
        return b.eq(b.sub(x, x), b.const(0.0, F64))

    def count(self, name: str, node: ast.Call, args: list, kw: dict):
        """np.any, np.all (bool) and np.count_nonzero (int) over `axis` (None: all
        elements) with `keepdims`: a sum of 1s where the element is true (any) or false
        (all), so empty arrays give NumPy's False, True and 0."""
        ops = self.lw.arrayops
        axes, keepdims = ops._axis(kw, node, args)
        if not ops.is_arrayish(args[0]):
            raise self.ctx.error(node, f"np.{name} of a number", cls=PyadTypeError,
                                 hint="use bool(x) or x != 0")
        want = name != "all"

        def one(x):
            b = self.ctx.b
            t = self.lw.exprs.truth(x, node)
            return b.select(t if want else b.emit("not", t), b.const(1, I64), b.const(0, I64))
        total = ops.reduce("sum", ops.elementwise(one, args[:1], node), axes, node, keepdims)
        if name == "count_nonzero":
            return total
        zero = self.ctx.b.const(0, I64)
        return ops.elementwise(lambda c: self.ctx.b.gt(c, zero) if want
                               else self.ctx.b.eq(c, zero), [total], node)

    def flip(self, name: str, node: ast.Call, args: list, kw: dict) -> Lazy:
        """The elements in reverse order along `axis` (np.flip: every axis when None)."""
        ops = self.lw.arrayops
        extra = set(kw) - ({"axis"} if name == "flip" else set())
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")
        if len(args) not in ((1, 2) if name == "flip" else (1,)):
            raise self.ctx.error(node, f"np.{name} takes one array", cls=PyadTypeError)
        a = ops.materialize(args[0])
        lz = ops.lift(a)
        nd = len(lz.dims)
        if name == "flip":
            at = node.args[1] if len(args) == 2 else kw.get("axis")
            axis = None if at is None else ops.constant_arg(
                at, (int, tuple, type(None)), "axis must be a constant integer or tuple")
            axes = range(nd) if axis is None else axis if isinstance(axis, tuple) else (axis,)
        else:
            axes = (1,) if name == "fliplr" else (0,)
        if not all(isinstance(k, int) and -nd <= k < nd for k in axes) or \
                (name == "fliplr" and nd < 2) or nd == 0:
            raise self.ctx.error(node, f"np.{name}: axis out of bounds for a {nd}-D array",
                                 cls=PyadTypeError)
        flipped = {k % nd for k in axes}

        def gen(idx):
            b = self.ctx.b
            one = b.const(1, I64)
            return lz.gen([b.sub(b.sub(lz.dims[k], one), i) if k in flipped else i
                           for k, i in enumerate(idx)])
        return ops.viewing(Lazy(lz.elem, lz.dims, gen), a, f"np.{name}(a)")
