"""Frontend, the NumPy surface of the reductions `np.sum`, `np.mean`, `np.prod`, `np.max`,
`np.min` (`np.amax`, `np.amin`, and the methods `a.sum()`, ...): `axis` and `keepdims`
(arrayops.reduce does the reducing), `initial=` and `where=`, and a number in place of the
array.

- `where=mask` (a bool array or value broadcast to the array's shape): an element where the
  mask is False counts as absent. It is replaced by the reduction's identity (0 for sum, 1
  for prod, `initial` for max and min, which NumPy requires then), so it gets a zero
  gradient; `np.mean(a, where=m)` is the sum over the selected elements divided by their
  count (nan where none is selected, as NumPy).
- `initial=v` (a number): `sum` adds it to the total, `prod` multiplies, `max`/`min` start
  from it (so an empty array gives `v` instead of raising); `np.mean` has no `initial`, as
  in NumPy.
- `dtype=` (sum, prod, mean, as in NumPy): the elements converted first (float, int or
  bool, as `a.astype`); a list or tuple is stacked into an array first (`np.prod(a.shape)`,
  `np.max([x, y])`).
- a number `x` (NumPy's 0-D array): `np.sum(x)`, `np.max(x)`, ... are `x` (bools count as
  ints for sum and prod), `np.mean(x)` is `float(x)`; `keepdims` changes nothing (NumPy also
  returns a scalar), an `axis` other than `None` or `()` is out of bounds as in NumPy.
"""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from . import dtypes
from ..ir.nodes import BOOL, F64, I64, Var
from .context import Lazy, arith


class Reductions:
    """See the module docstring; one per function body."""

    NAMES = ("sum", "mean", "max", "min", "amax", "amin", "prod")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list, kw: dict):
        kind = name[1:] if name.startswith("am") else name
        ops, ex = self.lw.arrayops, self.lw.exprs
        taken = {"mean": ("where", "dtype"), "max": ("initial", "where"),
                 "min": ("initial", "where")}.get(kind, ("initial", "where", "dtype"))
        extra = {k: kw.pop(k) for k in taken if k in kw}
        axes, keepdims = ops._axis(kw, node, args)
        args = [self.operand(args[0], extra.get("dtype"), node)] + args[1:]
        init = where = None
        if "initial" in extra:
            init = ex.scalar(ex.expr(extra["initial"]), extra["initial"])
        if "where" in extra:
            if kind in ("max", "min") and init is None:
                raise self.ctx.error(extra["where"], f"np.{name} with where= needs initial= "
                                     "(the maximum and minimum have no identity)",
                                     cls=PyadTypeError, hint="give initial=..., the value "
                                     "the reduction starts from (NumPy raises ValueError)")
            where = ex.expr(extra["where"])
        if not ops.is_arrayish(args[0]):
            return self._number(kind, ex.scalar(args[0], node), axes, init, where, node)
        if init is not None:   # refuses a float initial of an int reduction
            self._elem(kind, ops.lift(args[0]).elem, init, node)
        if where is not None:
            r = self._masked(kind, args[0], axes, keepdims, init, where, node)
        elif kind == "sum" and init is not None:
            return self._add(ops.reduce(kind, args[0], axes, node, keepdims), init, node)
        else:
            r = ops.reduce(kind, args[0], axes, node, keepdims, init=init)
        if kind in ("max", "min") and ops.lift(args[0]).elem == BOOL and \
                (init is None or init.type == BOOL):   # bools, as NumPy (reduced as ints)
            return ops.elementwise(lambda x: self.ctx.convert(x, BOOL), [r], node)
        return r

    def operand(self, v, dtype: ast.expr | None, node: ast.Call):
        """The reduced value: a list or tuple of numbers or arrays stacked into an array
        (`np.prod(a.shape)`, `np.max([x, y])`), converted to `dtype=` if given."""
        if type(v) is tuple:
            v = self.lw.creation.stacked(list(v), node)
        elif not isinstance(v, Var) and not self.lw.arrayops.is_arrayish(v):
            v = self.lw.arrays.array(v, node)
        if dtype is None:
            return v
        elem = dtypes.dtype_of(self.lw, dtype)
        return self.lw.arrayops.elementwise(lambda x: self.ctx.convert(x, elem), [v], node)

    def _masked(self, kind: str, a, axes, keepdims: bool, init, where, node: ast.Call):
        """The reduction of `a` where the mask holds (see the module docstring)."""
        ops, ctx = self.lw.arrayops, self.ctx
        lz = ops.lift(a)
        mask = ops.broadcast_to(ops.lift(where), lz.dims, node)
        elem = self._elem(kind, lz.elem, init, node)
        b = ctx.b
        if kind in ("sum", "mean"):
            fill = b.const(0, elem)
        elif kind == "prod":
            fill = b.const(1, elem)
        else:
            fill = ctx.convert(init, elem)
        truth = self.lw.exprs.truth

        def gen(idx):
            bb = ctx.b
            return bb.select(truth(mask.gen(idx), node), ctx.convert(lz.gen(idx), elem), fill)
        picked = Lazy(elem, lz.dims, gen)
        if kind == "mean":
            one, zero = b.const(1, I64), b.const(0, I64)
            count = Lazy(I64, lz.dims, lambda idx: ctx.b.select(
                truth(mask.gen(idx), node), one, zero))
            total = ops.reduce("sum", picked, axes, node, keepdims)
            return ops.binop(ast.Div(), total, ops.reduce("sum", count, axes, node, keepdims),
                             node)
        if kind == "sum":
            total = ops.reduce("sum", picked, axes, node, keepdims)
            return total if init is None else self._add(total, init, node)
        return ops.reduce(kind, picked, axes, node, keepdims, init=init)

    def _elem(self, kind: str, elem: str, init: Var | None, node: ast.Call) -> str:
        """The element type the reduction runs in (bools as ints; `call` makes the max and
        min of bools bools again); a float `initial` of an int reduction is refused where
        NumPy would truncate it."""
        if kind == "mean":
            return F64
        elem = arith(elem)
        if init is not None and init.type == F64 and elem != F64:
            raise self.ctx.error(node, "a float initial= for a reduction of ints (NumPy "
                                 "truncates it to the array's dtype)", cls=PyadTypeError,
                                 hint="give an int initial, or convert the array with "
                                 ".astype(float)")
        return elem

    def _add(self, total, init: Var, node: ast.AST):
        return self.lw.arrayops.binop(ast.Add(), total, init, node)

    def _number(self, kind: str, x: Var, axes, init, where, node: ast.Call) -> Var:
        """A reduction of the number `x` (a 0-D array in NumPy): `x` itself, combined with
        `initial` and `where` as for an array of one element."""
        ctx, b, ex = self.ctx, self.ctx.b, self.lw.exprs
        for k in axes or ():
            raise self.ctx.error(node, f"axis {k} is out of bounds for a number (a 0-D "
                                 "array)", cls=PyadTypeError)
        m = None
        if where is not None:
            m = ex.scalar(where, node)
            m = ex.truth(m, node)
        elem = x.type if kind in ("max", "min") and init is None else \
            self._elem(kind, x.type, init, node)
        v = ctx.convert(x, elem)
        if kind == "mean":
            if m is None:
                return v
            return b.fdiv(b.select(m, v, b.const(0.0)), b.select(m, b.const(1.0),
                                                                  b.const(0.0)))
        if m is not None:
            fill = ctx.convert(init, elem) if kind in ("max", "min") else \
                b.const(0 if kind == "sum" else 1, elem)
            v = b.select(m, v, fill)
        if init is None:
            return v
        init = ctx.convert(init, elem)
        if kind == "sum":
            return b.add(v, init)
        if kind == "prod":
            return b.mul(v, init)
        return self.lw.functions.apply(f"numpy.{kind}imum", [v, init], node)

    def each_alone(self, kind: str, v, elem: str, node: ast.AST) -> Lazy:
        """np.<kind>(v, axis=()) (arrayops.reduce): every element its own reduction (a sum
        starts at 0: -0.0 becomes 0.0, as NumPy)."""
        ctx, ops = self.ctx, self.lw.arrayops
        out = F64 if kind == "mean" or elem == F64 else elem if kind in ("max", "min") else I64
        if kind in ("sum", "mean"):
            return ops.elementwise(lambda x: ctx.b.add(ctx.b.const(0, out),
                                                       ctx.convert(x, out)), [v], node)
        return ops.elementwise(lambda x: ctx.convert(x, out), [v], node)
