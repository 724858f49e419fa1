"""Frontend, NumPy's logic and the small elementwise functions written with other ops:
`np.logical_and/or/xor/not`, `np.isnan/isinf/isfinite`, `np.any/all` and
`np.count_nonzero` (with `axis` and `keepdims`, methods too), `np.square`,
`np.mod`/`np.remainder` (Python's `%`: the sign of the divisor), `np.flip`/`fliplr`/`flipud`
(a new array; NumPy's is a view). Each is an elementwise `Lazy` or a reduction, so it fuses
and differentiates like the expression it stands for."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.nodes import BOOL, F64, I64, Var
from .context import Lazy


class Logical:
    """`np.<name>(...)` for the names in NAMES; one per function body."""

    NAMES = ("logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf",
             "isfinite", "any", "all", "count_nonzero", "square", "mod", "remainder",
             "flip", "fliplr", "flipud")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list, kw: dict):
        ops, ex = self.lw.arrayops, self.lw.exprs
        if name in ("any", "all", "count_nonzero"):
            return self.count(name, node, args, kw)
        if name in ("flip", "fliplr", "flipud"):
            return self.flip(name, node, args, kw)
        n = 2 if name in ("logical_and", "logical_or", "logical_xor", "mod", "remainder") \
            else 1
        ops._arity(name, node, args, n, kw)
        b = lambda: self.ctx.b  # noqa: E731  (the builder the element is emitted into)
        truth = lambda x: ex.truth(x, node)  # noqa: E731
        if name == "square":
            return ops.elementwise(lambda x: ex.binop(ast.Mult(), x, x, node), args, node)
        if name in ("mod", "remainder"):
            return ops.elementwise(lambda x, y: ex.binop(ast.Mod(), x, y, node), args, node)
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
        lz = ops.lift(ops.materialize(args[0]))
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
        return Lazy(lz.elem, lz.dims, gen)
