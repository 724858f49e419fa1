"""Frontend, NumPy functions composed from the whole-array operations of arrayops.py and
the views of indexing.py: `np.var`, `np.std`, `np.cumsum`, `np.cumprod` (flattened, or along
an axis), `np.cumulative_sum/prod`, `np.diff`, `np.clip`, `np.roll`, `np.trace`, `np.inner`,
`np.outer`, `np.logaddexp` (NumPy's max(a, b) + log1p(exp(-|a - b|)), and a + log(2) where
a == b, infinities included, with derivative 1/2 each way; `np.logaddexp2`),
`np.atleast_1d/2d/3d`, and the shapes (`reshape`, `ravel`, `transpose`, ...); their
gradients come from what they are made of; `root`, the square root of norms and standard
deviations (derivative 0 at 0). The helpers (`check`, `const`, `axis_of`,
`integer`, `flat`, `product`, `ravel_index`, `unravel`) serve the other collaborators too."""
from __future__ import annotations

import ast
import math

from ..errors import PyadTypeError
from ..ir.loops import for_range
from ..ir.nodes import F64, I64, Var, is_array, ndim_of
from .context import Lazy, arith, unify


#: functions whose `dtype=` is the type they accumulate in (`np.cumsum(x, dtype=float)`)
_DTYPE_ARGS = ("var", "std", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod")


class NumpyFunctions:
    """See the module docstring; one per function body."""

    NAMES = ("var", "std", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "diff",
             "clip", "roll", "trace", "inner", "outer", "logaddexp", "logaddexp2", "reshape",
             "ravel", "flatten", "atleast_1d", "atleast_2d", "atleast_3d")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list, kw: dict):
        if "dtype" in kw and name in _DTYPE_ARGS:   # the operand converted, as for np.sum
            args = [self.lw.reductions.operand(args[0], kw.pop("dtype"), node)] + args[1:]
        return getattr(self, name)(node, args, kw)

    # ------------------------------------------------------------------ helpers
    def check(self, node, args, kw, n: tuple, allowed: tuple) -> None:
        extra = set(kw) - set(allowed)
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")
        if len(args) not in n:
            raise self.ctx.error(node, f"np.{node.func.attr} takes {' or '.join(map(str, n))} "
                                 "positional arguments here", cls=PyadTypeError)

    def const(self, kw: dict, key: str, default, types: tuple, what: str):
        if key not in kw:
            return default
        return self.lw.arrayops.constant_arg(kw[key], types, f"{key} must be {what}")

    def axis_of(self, a: Var, axis, node) -> int:
        nd = ndim_of(a.type)
        if axis is None:
            if nd != 1:
                raise self.ctx.error(node, f"np.{node.func.attr} of a {nd}-D array needs an "
                                     "axis here (pyad does not flatten)", cls=PyadTypeError,
                                     hint=f"np.{node.func.attr}(a.ravel()) for the flattened "
                                     "array")
            return 0
        if not -nd <= axis < nd:
            raise self.ctx.error(node, f"axis {axis} is out of bounds for a {nd}-D array",
                                 cls=PyadTypeError)
        return axis % nd

    # ------------------------------------------------------------------ statistics
    def var(self, node: ast.Call, args: list, kw: dict, root: bool = False):
        self.check(node, args, kw, (1, 2), ("axis", "keepdims", "ddof"))
        ops = self.lw.arrayops
        axes, keepdims = ops._axis({k: v for k, v in kw.items() if k != "ddof"}, node, args)
        a = ops.materialize(args[0])
        mean = ops.reduce("mean", a, axes, node, keepdims=True)
        d = ops.binop(ast.Sub(), a, mean, node)
        sq = ops.binop(ast.Mult(), d, d, node)
        total = ops.reduce("sum", sq, axes, node, keepdims=keepdims)
        b = self.ctx.b
        dims = self.lw.arrays.dims(self.lw.arrays.array(a, node))
        count = self.product([dims[k % len(dims)] for k in
                               (axes if axes is not None else range(len(dims)))])
        n = b.tofloat(count)
        if "ddof" in kw:   # a number, known when compiling or not (ddof=len(x) - 1)
            ex = self.lw.exprs
            ddof = ex.scalar(ex.expr(kw["ddof"]), kw["ddof"])
            if is_array(ddof.type):
                raise self.ctx.error(kw["ddof"], "ddof must be a number", cls=PyadTypeError)
            n = b.sub(n, self.ctx.convert(ddof, F64))
        n = b.max(n, b.const(0.0))   # NumPy's max(N - ddof, 0): inf or nan past N
        out = ops.binop(ast.Div(), total, n, node)
        if root:
            return ops.elementwise(self.root, [out], node)
        return out

    def root(self, t: Var) -> Var:
        """sqrt(t) of a sum of squares (a norm, a standard deviation), with derivative 0 at
        t = 0, the least subgradient there (as hypot's): a zero vector (a distance matrix's
        diagonal) or a lane of equal elements gives no nan, where sqrt's derivative (inf)
        times that of the squares (0) would. The same value, nan included."""
        b = self.ctx.b
        zero = b.eq(t, b.const(0.0))
        return b.select(zero, b.const(0.0), b.sqrt(b.select(zero, b.const(1.0), t)))

    def std(self, node: ast.Call, args: list, kw: dict):
        return self.var(node, args, kw, root=True)

    # ------------------------------------------------------------------ scans and differences
    def cumsum(self, node: ast.Call, args: list, kw: dict, op: str = "add") -> Var:
        """np.cumsum, np.cumprod and NumPy 2.1's np.cumulative_sum, np.cumulative_prod
        (`include_initial=True`: the identity first, one more element along the axis): a
        flattened array without an `axis` (NumPy's cumulative_* need it beyond 1-D)."""
        arrays, cumulative = self.lw.arrays, node.func.attr.startswith("cumulative")
        self.check(node, args, kw, (1,), ("axis", "include_initial") if cumulative
                   else ("axis",))
        a = arrays.array(args[0], node.args[0] if node.args else node)
        axis, lz = self.const(kw, "axis", None, (int, type(None)), "a constant integer"), \
            self.lw.arrayops.lift(a)
        if axis is None and not cumulative:   # NumPy flattens an N-D array
            lz, axis = self.flat(lz), 0
        axis, elem = self.axis_of(a, axis, node), F64 if a.type.startswith(F64) else I64
        first = self.const(kw, "include_initial", False, (bool,), "True or False")
        dims = lz.dims
        b = self.ctx.b
        shift = b.const(1 if first else 0, I64)
        out = arrays.new_array(elem, [b.add(d, shift) if k == axis else d
                                      for k, d in enumerate(dims)])
        others = [d for k, d in enumerate(dims) if k != axis]

        def line(idx: list[Var]) -> None:   # the scan along `axis` at the other indices
            b = self.ctx.b
            big = math.inf if elem == F64 else 2**63 - 1   # the identity of max and min
            init = b.const({"add": 0, "mul": 1, "max": -big, "min": big}[op], elem)
            if first:
                b.emit("store", out, *idx[:axis], b.const(0, I64), *idx[axis:], init)

            def step(bb, i, acc):
                with self.ctx.emitting(bb):
                    full = idx[:axis] + [i] + idx[axis:]
                    v = bb.emit(op, acc[0], self.ctx.convert(lz.gen(full), elem))
                    bb.emit("store", out, *idx[:axis], bb.add(i, shift), *idx[axis:], v)
                    return [v]
            for_range(b, dims[axis], [init], step)
        if others:
            self.lw.arrayops.each(others, line)
        else:
            line([])
        return out

    def cumprod(self, node: ast.Call, args: list, kw: dict) -> Var:
        return self.cumsum(node, args, kw, op="mul")

    cumulative_sum, cumulative_prod = cumsum, cumprod

    def diff(self, node: ast.Call, args: list, kw: dict):
        """a[1:] - a[:-1] along `axis` (default the last), `n` times; `prepend` and
        `append` (a number, or an array of a's dimensions) join a first."""
        self.check(node, args, kw, (1, 2), ("n", "axis", "prepend", "append"))
        n = self.const(kw, "n", 1, (int,), "a constant integer") if len(args) == 1 else \
            self.lw.arrayops.constant_arg(node.args[1], (int,), "n must be a constant integer")
        a = self.lw.arrays.array(args[0], node.args[0])
        nd = ndim_of(a.type)
        axis = self.const(kw, "axis", -1, (int,), "a constant integer")
        if not -nd <= axis < nd or n < 0:
            raise self.ctx.error(node, "np.diff: bad axis or n", cls=PyadTypeError)
        axis %= nd
        ends = {k: self._end(a, self.lw.exprs.expr(kw[k]), axis, kw[k]) for k in
                ("prepend", "append") if k in kw}
        if ends:
            a = self.lw.creation.concatenate(
                [ends[k] for k in ("prepend",) if k in ends] + [a] +
                [ends[k] for k in ("append",) if k in ends], axis, node)
        ix = self.lw.indexing
        for _ in range(n):
            items = [ast.Slice() for _ in range(axis)]
            hi = ix.general_view(a, items + [ast.Slice(lower=ast.Constant(1))], node)
            lo = ix.general_view(a, items + [ast.Slice(upper=ast.Constant(-1))], node)
            a = self.lw.arrayops.materialize(self.lw.arrayops.binop(ast.Sub(), hi, lo, node))
        return a

    def _end(self, a: Var, v, axis: int, node: ast.AST) -> Var:
        """np.diff's prepend/append value as an array to join along `axis`: a number
        becomes a slab of size 1 along it."""
        ops = self.lw.arrayops
        if ops.is_arrayish(v):
            return self.lw.arrays.array(v, node)
        x = self.lw.exprs.scalar(v, node)
        dims = self.lw.arrays.dims(a)
        dims[axis] = self.ctx.b.const(1, I64)
        return ops.materialize(Lazy(x.type, dims, lambda idx: x))

    # ------------------------------------------------------------------ elementwise
    def clip(self, node: ast.Call, args: list, kw: dict):
        """np.clip(a, lo, hi): np.minimum(np.maximum(a, lo), hi); a bound None is absent.
        NumPy's rules for the bounds: the function takes a_min and a_max (positional or
        keywords) both or neither, and NumPy 2.1's min=/max= only without them; the method
        `a.clip(min, max)` takes either bound alone, positional or min=/max=."""
        self.check(node, args, kw, (1, 2, 3), ("a_min", "a_max", "min", "max"))
        method = node.args[0] is node.func.value   # a.clip(...): the receiver is first
        given = {k: v for k, v in zip(("min", "max") if method else ("a_min", "a_max"),
                                      args[1:])}
        for k, v in kw.items():
            if k in given:
                raise self.ctx.error(node, f"clip() got multiple values for argument '{k}'",
                                     cls=PyadTypeError)
            given[k] = self.lw.arrays.argument(v, "clip")
        if method and ({"a_min", "a_max"} & set(given)):
            raise self.ctx.error(node, "the method a.clip() takes min= and max=, not "
                                 "a_min=/a_max=", cls=PyadTypeError)
        old = [k for k in ("a_min", "a_max") if k in given]
        if len(old) == 1:
            missing = "a_max" if old == ["a_min"] else "a_min"
            raise self.ctx.error(node, f"clip() missing 1 required positional argument: "
                                 f"'{missing}'", cls=PyadTypeError,
                                 hint="give both bounds (None for an absent one), as NumPy "
                                 "requires: np.clip(a, lo, None), or min=/max= alone")
        if old and ({"min", "max"} & set(given)):
            raise self.ctx.error(node, "passing `min` or `max` keyword argument when `a_min` "
                                 "and `a_max` are provided is forbidden", cls=PyadTypeError)
        args = [args[0], given.get("a_min", given.get("min")),
                given.get("a_max", given.get("max"))]
        if args[1] is None and args[2] is None:   # NumPy 2: a copy of a
            ops = self.lw.arrayops
            return ops.lift(args[0]) if ops.is_arrayish(args[0]) else args[0]
        def fn(name, operands):
            apply = self.lw.functions.apply
            return self.lw.arrayops.elementwise(
                lambda x, y: apply(f"numpy.{name}", [x, y], node), operands, node)
        out = args[0] if args[1] is None else fn("maximum", args[:2])
        return out if args[2] is None else fn("minimum", [out, args[2]])

    def logaddexp(self, node: ast.Call, args: list, kw: dict, base2: bool = False):
        """np.logaddexp(a, b) (np.logaddexp2: of base 2, exp2 as exp((a - m) ln 2))."""
        self.check(node, args, kw, (2,), ())
        ops, ctx = self.lw.arrayops, self.ctx
        ln2 = math.log(2.0)

        def f(x, y):   # NumPy's: x + log(2) where x == y (infinities too), 1/2 each way
            b = ctx.b
            x, y = ctx.convert(x, F64), ctx.convert(y, F64)
            tie, zero, half = b.eq(x, y), b.const(0.0), b.const(0.5)
            at_tie = b.add(b.add(b.mul(half, x), b.mul(half, y)),
                           b.const(1.0 if base2 else ln2))
            x, y = b.select(tie, zero, x), b.select(tie, zero, y)   # no inf - inf
            d = b.neg(b.abs(b.sub(x, y)))   # NumPy's: max + log1p(exp(-|x - y|)), exact
            # where the result is tiny (log(1 + e) of a tiny e lost it: logaddexp(0, -40))
            if base2:
                tail = b.mul(b.const(1.0 / ln2), b.log1p(b.exp(b.mul(d, b.const(ln2)))))
            else:
                tail = b.log1p(b.exp(d))
            return b.select(tie, at_tie, b.add(b.max(x, y), tail))
        return ops.elementwise(f, args, node)

    def logaddexp2(self, node: ast.Call, args: list, kw: dict):
        return self.logaddexp(node, args, kw, base2=True)

    def ufunc_method(self, node: ast.Call):
        """`np.logaddexp.reduce(a, axis=0)`: m + log1p(sum(exp(a - m)) - 1) with m the maximum
        along the axis, held constant for the gradient (its derivative cancels exactly: the
        gradient is the softmax); an infinite m is replaced by 0. `ufunc.outer` is in
        ufuncs.py; other ufunc methods are refused, naming the function to write."""
        ufunc = node.func.value
        name = getattr(self.ctx.resolve_static(ufunc).obj, "__name__", "?")
        if node.func.attr in ("outer", "accumulate") and name != "logaddexp":
            return getattr(self.lw.ufuncs, node.func.attr)(name, node)
        spelled = f"np.{name}.{node.func.attr}"
        instead = {"add": "np.sum(a, axis=0)", "multiply": "np.prod(a, axis=0)",
                   "maximum": "np.max(a, axis=0)", "minimum": "np.min(a, axis=0)"}
        if name != "logaddexp" or node.func.attr != "reduce":
            hint = f"write {instead[name]}" if node.func.attr == "reduce" and name in instead \
                else "pyad has np.logaddexp.reduce, ufunc.outer and ufunc.accumulate"
            raise self.ctx.error(node.func, f"{spelled} is not supported", hint=hint)
        args = [self.lw.exprs.expr(a) for a in node.args]
        kw = {k.arg: k.value for k in node.keywords}
        self.check(node, args, kw, (1, 2), ("axis", "keepdims"))
        ops, ctx = self.lw.arrayops, self.ctx
        a = ops.materialize(ops.elementwise(lambda x: ctx.convert(x, F64), args[:1], node))
        axis_src = node.args[1] if len(args) == 2 else kw.get("axis")
        axis = 0 if axis_src is None else ops.constant_arg(
            axis_src, (int, tuple, type(None)),
            "axis must be a constant integer, tuple of integers or None")
        nd = ndim_of(a.type)
        axes = tuple(range(nd)) if axis is None else (axis,) if type(axis) is int else axis
        if not all(type(k) is int and -nd <= k < nd for k in axes) or \
                len({k % nd for k in axes}) != len(axes):
            raise self.ctx.error(axis_src, f"axis {axis} is out of bounds or repeated for a "
                                 f"{nd}-D array", cls=PyadTypeError)
        axes = tuple(sorted(k % nd for k in axes))
        keepdims = bool(self.const(kw, "keepdims", False, (bool,), "True or False"))
        out = self._log_sum_exp(a, axes, node)
        if keepdims:
            return out
        out = ops.materialize(out)
        for k in reversed(axes):
            out = self.lw.indexing.squeeze(out, k)
        return out

    def _log_sum_exp(self, a: Var, axes: tuple, node: ast.Call) -> Lazy:
        """log(sum(exp(a))) over `axes`, kept as axes of length 1 (ufunc_method)."""
        ops, ctx = self.lw.arrayops, self.ctx
        m = ops.reduce("max", a, axes, node, keepdims=True, init=ctx.b.const(-math.inf))

        def finite(x):   # m, held constant; 0 where it is infinite (or nan): an empty lane
            # (m -inf, the identity) gives log(0) + 0 = -inf, as NumPy
            b = ctx.b
            x = b.stopgrad(x)
            return b.select(b.eq(b.sub(x, x), b.const(0.0)), x, b.const(0.0))
        m = ops.materialize(ops.elementwise(finite, [m], node))

        def at_max(x, y):   # 1.0 where the element is the lane's maximum m
            b = ctx.b
            return b.select(b.eq(x, y), b.const(1.0), b.const(0.0))
        # log(sum(exp(a - m))) as log1p of the sum without one maximum's 1.0 (scipy's way: a
        # tiny result keeps its digits): exp(a - m) - 1 is exactly 0 at each maximum (its
        # derivative still exp(a - m): m is held constant), the other maxima add back 1 each
        t = ops.elementwise(lambda x, y: ctx.b.sub(ctx.b.exp(ctx.b.sub(x, y)), at_max(x, y)),
                            [a, m], node)
        total = ops.reduce("sum", t, axes, node, keepdims=True)
        ties = ops.reduce("sum", ops.elementwise(at_max, [a, m], node), axes, node,
                          keepdims=True)
        return ops.elementwise(lambda s, k, y: ctx.b.add(ctx.b.log1p(ctx.b.add(
            s, ctx.b.sub(k, ctx.b.const(1.0)))), y), [total, ties, m], node)

    def roll(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """np.roll(a, shift, axis=None): along each given axis (an int or a tuple; `shift` an
        int, the same for every axis, or a tuple as long as `axis`; shifts of a repeated axis
        add up), or without an axis over the flattened array, keeping a's shape."""
        self.check(node, args, kw, (2, 3), ("axis",))
        a = self.lw.arrays.array(args[0], node.args[0])
        at = node.args[2] if len(args) == 3 else kw.get("axis")
        axis = None if at is None else self.lw.arrayops.constant_arg(
            at, (int, tuple, type(None)), "axis must be a constant integer or tuple")
        shifts = [self.integer(v, node) for v in (args[1] if type(args[1]) is tuple
                                                else (args[1],))]
        lz = self.lw.arrayops.lift(a)
        b = self.ctx.b
        if axis is None:
            if len(shifts) != 1:
                raise self.ctx.error(node, "np.roll without an axis takes one shift",
                                     cls=PyadTypeError, hint="give axis=(...) for the shifts")
            size = self.product(lz.dims)
            return Lazy(lz.elem, lz.dims, lambda idx: lz.gen(self.unravel(self._rolled(
                self.ravel_index(idx, lz.dims), shifts[0], size), lz.dims)))
        axes = [self.axis_of(a, k, node) for k in (axis if isinstance(axis, tuple)
                                                  else (axis,))]
        if len(axes) == 1 and len(shifts) > 1:
            axes = axes * len(shifts)
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        if len(shifts) != len(axes):
            raise self.ctx.error(node, "np.roll: shift and axis have different lengths",
                                 cls=PyadTypeError)
        total = {}
        for k, s in zip(axes, shifts):
            total[k] = b.add(total[k], s) if k in total else s

        def gen(idx):
            return lz.gen([self._rolled(i, total[k], lz.dims[k]) if k in total else i
                           for k, i in enumerate(idx)])
        return Lazy(lz.elem, lz.dims, gen)

    def _rolled(self, i: Var, shift: Var, n: Var) -> Var:
        """The index an element at `i` of a roll by `shift` comes from (Python's mod)."""
        b = self.ctx.b
        return b.mod(b.sub(i, shift), b.max(n, b.const(1, I64)))

    def integer(self, v, node: ast.AST) -> Var:
        v = self.lw.exprs.scalar(v, node)
        if v.type == F64:
            raise self.ctx.error(node, "expected an integer here", cls=PyadTypeError)
        return self.ctx.convert(v, I64)

    def atleast_1d(self, node: ast.Call, args: list, kw: dict, nd: int = 1):
        """np.atleast_1d/2d/3d: an array of fewer dimensions gets new axes of size 1 (a
        view, as in NumPy: (n,) becomes (1, n) and (1, n, 1), (m, n) becomes (m, n, 1)); a
        number becomes a new array of one element; several arguments give a tuple."""
        self.check(node, args, kw, tuple(range(1, 9)), ())
        if len(args) > 1:
            return tuple(self.atleast_1d(node, [v], kw, nd) for v in args)
        arrays, b = self.lw.arrays, self.ctx.b
        if not self.lw.arrayops.is_arrayish(args[0]):
            x = self.lw.exprs.scalar(args[0], node)
            out = arrays.new_array(x.type, [b.const(1, I64)] * nd)
            b.emit("store", out, *[b.const(0, I64)] * nd, x)
            return out
        a = arrays.array(args[0], node)
        have = ndim_of(a.type)
        if have >= nd:
            return a
        pattern = {(1, 2): "ns", (1, 3): "nsn", (2, 3): "ssn"}[have, nd]
        return b.emit("view", a, *self.lw.indexing.whole(arrays.dims(a)), attrs=(pattern,))

    def atleast_2d(self, node: ast.Call, args: list, kw: dict):
        return self.atleast_1d(node, args, kw, 2)

    def atleast_3d(self, node: ast.Call, args: list, kw: dict):
        return self.atleast_1d(node, args, kw, 3)

    # ------------------------------------------------------------------ products
    def trace(self, node: ast.Call, args: list, kw: dict) -> Var:
        """np.trace(A, offset=0, axis1=0, axis2=1): the sums of the diagonals
        (creation.diagonal) of the (axis1, axis2) planes."""
        d = self.lw.creation.diagonal(node, args, kw, "trace")
        return self.lw.arrayops.reduce("sum", d, (-1,), node)

    def outer(self, node: ast.Call, args: list, kw: dict):
        """np.outer(u, v): the `outer` primitive for float64 vectors, an elementwise product
        otherwise (of the flattened arrays, as NumPy)."""
        self.check(node, args, kw, (2,), ())
        ops = self.lw.arrayops
        x, y = (ops.materialize(self.lw.arrays.array(x, node)) for x in args)
        if all(isinstance(v, Var) and v.type == "f64[1d]" for v in (x, y)):
            return self.ctx.b.emit("outer", x, y)
        a, b = (self.flat(ops.lift(self.lw.arrays.array(v, node))) for v in (x, y))
        return Lazy(unify(arith(a.elem), arith(b.elem)), [a.dims[0], b.dims[0]],
                    lambda idx: self.lw.exprs.binop(ast.Mult(), a.gen([idx[0]]),
                                                    b.gen([idx[1]]), node))

    def inner(self, node: ast.Call, args: list, kw: dict) -> Var | Lazy:
        """np.inner(a, b): the einsum over the last axes (a's other axes, then b's)."""
        self.check(node, args, kw, (2,), ())
        a, c = (self.lw.arrays.array(x, n) for x, n in zip(args, node.args))
        ta, tc = "ab"[:ndim_of(a.type) - 1] + "z", "cd"[:ndim_of(c.type) - 1] + "z"
        if len(ta) == len(tc) == 1:
            return self.lw.products.dot(a, c, node)
        return self.lw.einsum.contract([ta, tc], ta[:-1] + tc[:-1], [a, c], node)

    # ------------------------------------------------------------------ norms
    # ------------------------------------------------------------------ shapes
    def reshape(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """A new array with a's elements in row-major order and the given shape (one
        dimension may be -1); NumPy may return a view, pyad always a new array."""
        self.check(node, args, kw, tuple(range(2, 9)), ())
        a = self.lw.arrays.array(args[0], node.args[0] if node.args else node)
        shape = self.lw.arrays.known_items(args[1], node) if len(args) == 2 else args[1:]
        b, ex = self.ctx.b, self.lw.exprs
        lz = self.lw.arrayops.lift(a)
        size = self.product(lz.dims)
        dims = [self.ctx.convert(ex.scalar(d, node), I64) for d in shape]
        if not 1 <= len(dims) <= 3:
            raise self.ctx.error(node, "arrays have 1 to 3 dimensions", cls=PyadTypeError)
        known = b.const(1, I64)
        minus = b.const(-1, I64)
        for d in dims:
            known = b.mul(known, b.select(b.eq(d, minus), b.const(1, I64), d))
        dims = [b.select(b.eq(d, minus), b.floordiv(size, b.max(known, b.const(1, I64))), d)
                for d in dims]
        b.emit("raise_if", b.ne(self.product(dims), size), attrs=(
            "ValueError", "cannot reshape the array into the requested shape"))
        return self.lw.arrayops.viewing(Lazy(lz.elem, dims, lambda idx: lz.gen(self.unravel(
            self.ravel_index(idx, dims), lz.dims))), a, "a.reshape(...)")

    def flatten(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """The elements of an array in row-major order, a new 1-D array."""
        self.check(node, args, kw, (1,), ())
        return self.flat(self.lw.arrayops.lift(self.lw.arrays.array(
            args[0], node.args[0] if node.args else node)))

    def flat(self, lz: Lazy) -> Lazy:
        """The elements of `lz` in row-major order, 1-D."""
        return Lazy(lz.elem, [self.product(lz.dims)],
                    lambda idx: lz.gen(self.unravel(idx[0], lz.dims)))

    def ravel(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """a.flatten(), where NumPy may return a view of `a`."""
        a = self.lw.arrays.array(args[0], node.args[0] if node.args else node)
        return self.lw.arrayops.viewing(self.flatten(node, [a], kw), a, "a.ravel()")

    def product(self, dims: list[Var]) -> Var:
        b = self.ctx.b
        total = b.const(1, I64)
        for d in dims:
            total = b.mul(total, d)
        return total

    def ravel_index(self, idx: list[Var], dims: list[Var]) -> Var:
        b = self.ctx.b
        flat = idx[0]
        for i, d in zip(idx[1:], dims[1:]):
            flat = b.add(b.mul(flat, d), i)
        return flat

    def unravel(self, flat: Var, dims: list[Var]) -> list[Var]:
        b = self.ctx.b
        out = []
        for d in reversed(dims[1:]):
            out.append(b.mod(flat, b.max(d, b.const(1, I64))))
            flat = b.floordiv(flat, b.max(d, b.const(1, I64)))
        return [flat] + list(reversed(out))
