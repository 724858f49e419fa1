"""Frontend, whole-array operations: NumPy arithmetic with broadcasting, math functions,
`np.where`, reductions, `np.outer`, `np.linalg.norm` (products: products.py). The NumPy functions that
are op-table spellings (`np.exp`, `np.maximum`, ...) are applied elementwise (functions.py).
Elementwise expressions are fused: `x * y + np.exp(z)` is a `Lazy` (a function from an index
to the element) that becomes one loop where it is stored or reduced, so their gradients come
from those loops; `@` and the sums of arrays are op-table primitives with array-level
adjoints (pyad/ir/array_rows.py). Broadcasting follows NumPy: sizes aligned from the right,
equal or 1 (checked at run time: ValueError naming the line).
"""
from __future__ import annotations

import ast
from dataclasses import replace
from typing import Callable

from ..errors import PyadTypeError
from ..pytree import NONE
from .context import DynList, Lazy, RangeVal, SliceVal, arith, unify
from .exprs import CMPOPS
from .functions import SPELLINGS, arity
from .refusals import INSTEAD
from . import permute
from ..ir.nodes import BOOL, F64, I64, Var, elem_type, is_array
from .deferral import cheap
from ..ir.loops import for_each, reduce_each


class ArrayOps:
    """Whole-array operations (see the module docstring); one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx
        # (id of a Lazy, id of a builder) -> (the Lazy, the builder, its array): a deferred
        # value read twice in its statement (`x[1:] - x[:-1]`) is stored once per block
        self._stored: dict[tuple[int, int], tuple[Lazy, object, Var]] = {}

    # ------------------------------------------------------------------ lifting and storing
    def is_arrayish(self, v) -> bool:
        return isinstance(v, Lazy) or (isinstance(v, Var) and is_array(v.type))

    def lift(self, v) -> Lazy:
        """Any operand as a Lazy: arrays load, scalars are the same at every index."""
        if isinstance(v, Lazy):
            return v
        if is_array(v.type):
            return Lazy(elem_type(v.type), self.lw.arrays.dims(v),
                        lambda idx: self.ctx.b.emit("load", v, *idx))
        return Lazy(v.type, [], lambda idx: v)

    def materialize(self, v):
        """A Lazy stored into a new array (the same one when this block stored it before:
        nothing writes memory between two reads of a deferred value, deferral.py);
        anything else unchanged."""
        if not isinstance(v, Lazy):
            return v
        key = (id(v), id(self.ctx.b))
        if key in self._stored:
            return self._stored[key][2]
        out = self.lw.arrays.new_array(v.elem, v.dims)
        own: list = []

        def store(idx: list[Var]) -> None:
            self.ctx.b.emit("store", out, *idx, v.gen(idx))
            own.append(self.ctx.b.stmts[-1])
        self.each(v.dims, store)
        self.ctx.pinned.extend(own)  # alive while their ids are in use (context.py)
        if v.shares is not None:
            self.ctx.shared_copies.append((frozenset(map(id, own)), out, *v.shares))
        self._stored[key] = (v, self.ctx.b, out)   # both kept alive: their ids stay theirs
        return out

    def viewing(self, lz: Lazy, source: Var, what: str) -> Lazy:
        """`lz` marked as what NumPy returns as a view of `source` (made by `what`)."""
        return replace(lz, shares=(source, what, self.ctx.b.loc))

    def each(self, dims: list[Var], body: Callable[[list[Var]], None]) -> None:
        """A loop nest over `dims` whose body emits into the loop's builder."""
        def run(bb, idx):
            with self.ctx.emitting(bb):
                body(idx)
        for_each(self.ctx.b, dims, run)

    def assign_into(self, view: Var, value, node: ast.AST) -> None:
        """`view[...] = value` for a whole view: value broadcast to the view's shape. An
        array value is copied first, so overlapping source and destination behave as in
        NumPy."""
        arrays = self.lw.arrays
        if isinstance(value, (DynList, RangeVal)):
            value = arrays.array(value, node)
        elif isinstance(value, tuple) and not isinstance(value, SliceVal):
            value = self.lw.creation.stacked(list(value), node)   # `Y[i + 1, :] = [a, b]`
        elif isinstance(value, Var) and is_array(value.type):
            value = arrays.copy_array(value)
        elif isinstance(value, Lazy):
            value = self.materialize(value)
        src = self.broadcast_to(self.lift(value), arrays.dims(view), node)
        elem = elem_type(view.type)
        self.each(arrays.dims(view), lambda idx: self.ctx.b.emit(
            "store", view, *idx, arrays.scalar_for(src.gen(idx), elem, node)))

    # ------------------------------------------------------------------ broadcasting
    def broadcast(self, operands: list[Lazy], node: ast.AST) -> list[Var]:
        """The result dims of operands broadcast together (checked at run time)."""
        nd = max(len(o.dims) for o in operands)
        out: list[Var] = []
        b = self.ctx.b
        for k in range(nd):
            r = None
            for o in operands:
                j = k - (nd - len(o.dims))
                if j < 0:
                    continue
                d = o.dims[j]
                if r is None or d is r:
                    r = r or d
                    continue
                one = b.const(1, I64)
                bad = b.select(b.ne(d, r), b.select(b.ne(d, one), b.ne(r, one),
                                                    b.const(False, BOOL)), b.const(False, BOOL))
                b.emit("raise_if", bad, attrs=("ValueError", "operands could not be broadcast "
                                               "together"))
                r = b.select(b.eq(r, one), d, r)
            out.append(r)
        return out

    def broadcast_to(self, v: Lazy, dims: list[Var], node: ast.AST) -> Lazy:
        """`v` read at indices of an array of `dims` (which it must broadcast to)."""
        if len(v.dims) > len(dims):
            raise self.ctx.error(node, f"cannot broadcast a {len(v.dims)}-D value to "
                                 f"{len(dims)}-D", cls=PyadTypeError)
        shift = len(dims) - len(v.dims)
        b = self.ctx.b
        for j, d in enumerate(v.dims):
            r = dims[shift + j]
            if d is not r:
                bad = b.select(b.ne(d, r), b.ne(d, b.const(1, I64)), b.const(False, BOOL))
                b.emit("raise_if", bad, attrs=("ValueError", "could not broadcast the value "
                                               "to the array's shape"))
        return Lazy(v.elem, dims, self._mapped(v, dims))

    def _mapped(self, v: Lazy, dims: list[Var]) -> Callable[[list[Var]], Var]:
        shift = len(dims) - len(v.dims)

        def gen(idx):
            b = self.ctx.b
            own = []
            for j, d in enumerate(v.dims):
                i = idx[shift + j]
                if d is not dims[shift + j]:  # size 1 along a longer axis: index 0
                    i = b.select(b.eq(d, b.const(1, I64)), b.const(0, I64), i)
                own.append(i)
            return v.gen(own)
        return gen

    def elementwise(self, fn: Callable[..., Var], operands: list, node: ast.AST):
        """Lazy fn(elements...) over operands broadcast together (a number if all operands
        are numbers)."""
        if not any(self.is_arrayish(o) for o in operands):  # np.exp(2.0): a number
            return fn(*(self.lw.exprs.scalar(o, node) for o in operands))
        nd = max(len(self.lift(o).dims) for o in operands)
        # an expression of fewer dimensions is read many times over the new ones: one
        # with more than cheap arithmetic in it (np.exp(w) * X) is stored first, once
        lz = [self.lift(self.materialize(o) if isinstance(o, Lazy) and len(o.dims) < nd
                        and not cheap(self.ctx, o) else o) for o in operands]
        dims = self.broadcast(lz, node)
        gens = [self._mapped(o, dims) for o in lz]
        elem = self._result_elem(fn, lz)
        return Lazy(elem, dims, lambda idx: fn(*(g(idx) for g in gens)))

    def _result_elem(self, fn, lz: list[Lazy]) -> str:
        """The element type fn produces, found by running it on placeholders in a scratch
        builder."""
        with self.ctx.emitting(self.ctx.builder()):
            return fn(*(Var(f"probe{k}", o.elem) for k, o in enumerate(lz))).type

    # ------------------------------------------------------------------ operators
    def binop(self, op: ast.operator, a, b, node: ast.AST) -> Lazy:
        ctx = self.ctx
        if isinstance(op, ast.Div):  # NumPy's true division: inf/nan for a zero divisor
            return self.elementwise(
                lambda x, y: ctx.b.emit("fdiv", ctx.convert(x, F64), ctx.convert(y, F64)),
                [a, b], node)

        def f(x, y):
            if x.type == y.type == BOOL and isinstance(op, (ast.Add, ast.Mult, ast.Sub)):
                return self.lw.logical.bool_operator(op, node, x, y)
            return self.lw.exprs.binop(op, x, y, node, python=False)   # NumPy's meaning
        return self.elementwise(f, [a, b], node)

    def unary(self, op: ast.unaryop, v, node: ast.AST) -> Lazy:
        ctx = self.ctx
        if isinstance(op, ast.USub) and self.lift(v).elem == BOOL:
            self.lw.logical.bool_operator(op, node)
        if isinstance(op, ast.USub):
            return self.elementwise(lambda x: ctx.b.neg(ctx.convert(x, arith(x.type))),
                                    [v], node)
        if isinstance(op, ast.UAdd):
            return self.lift(v)
        raise ctx.error(node, "unsupported operator on an array (use np.logical_not)")

    def compare(self, node: ast.Compare, left, right) -> Lazy:
        ctx = self.ctx
        op = node.ops[0]
        if len(node.ops) != 1:
            raise ctx.error(node, "chained comparisons of arrays are not supported")
        cmp = CMPOPS.get(type(op))
        if cmp is None:
            raise ctx.error(node, "unsupported comparison of arrays")

        def f(x, y):
            t = unify(x.type, y.type)
            return ctx.b.emit(cmp, ctx.convert(x, t), ctx.convert(y, t))
        return self.elementwise(f, [left, right], node)

    # ------------------------------------------------------------------ numpy functions
    def function(self, name: str, node: ast.Call, args: list, method: bool = False):
        """`np.<name>(*args)` (or, `method`, `args[0].<name>(*args[1:])`)."""
        kw = {k.arg: k.value for k in node.keywords}
        spelling = f"numpy.{name}"
        if spelling in SPELLINGS:  # an op-table function, elementwise
            self._arity(name, node, args, arity(spelling), kw)
            apply = self.lw.functions.apply
            return self.elementwise(lambda *xs: apply(spelling, list(xs), node), args, node)
        if name == "where":
            if len(args) == 1 and not kw:   # np.where(cond): np.nonzero(cond)
                return self.lw.positions.nonzero("where", node, args[0])
            self._arity(name, node, args, 3, kw)
            return self.lw.logical.where(args, node)
        lw = self.lw   # the families of functions, each with its NAMES and `call`
        for family in (lw.logical, lw.composites, lw.splits, lw.numpyfuncs, lw.positions,
                       lw.sorting, lw.calculus, lw.ufuncs):
            if name in family.NAMES:
                return family.call(name, node, args, kw)
        if name in self.lw.gathers.NAMES:
            return self.lw.gathers.call(name, node, args)
        if name in self.lw.reductions.NAMES:
            return self.lw.reductions.call(name, node, args, kw)
        if name in ("dot", "matmul"):
            self._arity(name, node, args, 2, kw)
            return self.lw.products.dot(args[0], args[1], node, batched=name == "matmul")
        if name == "linalg.norm":
            return self.lw.norms.norm(node, args, kw)
        if name.startswith("linalg."):
            return self.lw.linalg.call(name[len("linalg."):], node, args, kw)
        if name in ("transpose", "swapaxes", "moveaxis"):
            return permute.permute(self.lw, name, node, args, kw)
        spelled = f"array method `a.{name}()`" if method else f"numpy function `np.{name}`"
        raise self.ctx.error(node.func, f"unsupported {spelled}", hint=INSTEAD.get(
            name, "see docs/arrays.md for the supported array operations"))

    def _arity(self, name, node, args, n, kw) -> None:
        if kw:
            raise self.ctx.error(node, f"np.{name} takes no keyword arguments here")
        if len(args) != n:
            raise self.ctx.error(node, f"np.{name} takes {n} argument{'s' if n > 1 else ''}",
                                 cls=PyadTypeError)

    def _axis(self, kw: dict, node: ast.Call, args: list) -> tuple[tuple | None, bool]:
        """The constant `axis` (an int or a tuple of ints; None: every axis) and `keepdims`
        of a reduction."""
        extra = set(kw) - {"axis", "keepdims"}
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")
        axis_node = kw.get("axis")
        if len(args) == 2 and axis_node is None:
            axis_node = node.args[-1]
        elif len(args) != 1:
            raise self.ctx.error(node, "reductions take an array and an optional axis",
                                 cls=PyadTypeError)
        keep = kw.get("keepdims")
        keepdims = self.constant_arg(keep, (bool,), "keepdims must be True or False") \
            if keep is not None else False
        if axis_node is None:
            return None, keepdims
        axis = self.constant_arg(axis_node, (int, tuple, type(None)),
                              "axis must be a constant integer or tuple of integers")
        if axis is None:
            return None, keepdims
        axes = axis if isinstance(axis, tuple) else (axis,)
        if not all(type(k) is int for k in axes):
            raise self.ctx.error(axis_node, "axis must be a constant integer or tuple of "
                                 "integers")
        return axes, keepdims

    def constant_arg(self, node: ast.expr, types: tuple, message: str):
        """The compile-time value of `node`: a literal, or a name bound to one (a helper's
        parameter given a literal)."""
        try:
            value = ast.literal_eval(node)
        except ValueError:   # a name bound to a literal, or to a tuple of them, or None
            v = self.lw.exprs.expr(node) if self.ctx.calls_nothing(node) else None
            known = self.ctx.literals   # None: axis=axis of a helper whose default is None
            value = None
            if isinstance(v, tuple) and all(isinstance(x, Var) and x.name in known
                                              for x in v):
                value = tuple(known[x.name] for x in v)
            elif isinstance(v, Var) and v.name in known or getattr(v, "kind", "") == "str":
                value = known[v.name] if isinstance(v, Var) else v.fields[0]
            elif v is not NONE:
                raise self.ctx.error(node, message) from None
        if not isinstance(value, types):
            raise self.ctx.error(node, message)
        return value

    # ------------------------------------------------------------------ reductions
    def reduce(self, kind: str, v, axis: tuple | None, node: ast.AST, keepdims: bool = False,
               init: Var | None = None):
        """np.sum, mean, max, min, prod over `axis` (None: all). An array's sum (and mean) is
        the `sum` primitive; an expression's fuses into its loops, unless keepdims asks for
        the result's shape. `init`: where prod, max, min start (`initial`; reductions.py)."""
        lz = self.lift(v)
        nd = len(lz.dims)
        if nd == 0:
            raise self.ctx.error(node, f"np.{kind} of a number", cls=PyadTypeError)
        axes = list(range(nd)) if axis is None else []
        for k in axis or ():
            if not -nd <= k < nd:
                raise self.ctx.error(node, f"axis {k} is out of bounds for a {nd}-D array",
                                     cls=PyadTypeError)
            if k % nd in axes:
                raise self.ctx.error(node, "duplicate value in axis", cls=PyadTypeError)
            axes.append(k % nd)
        axes.sort()
        if not axes and init is None:   # axis=(): each element alone, as NumPy
            return self.lw.reductions.each_alone(kind, v, lz.elem, node)
        if kind in ("sum", "mean") and (keepdims or not isinstance(v, Lazy)):
            return self._sum(kind, self.materialize(v), axes, keepdims, node)
        if keepdims:
            return self._keep_axes(self.reduce(kind, v, tuple(axes), node, init=init), nd, axes)
        elem = F64 if kind == "mean" or lz.elem == F64 else I64
        keep = [k for k in range(nd) if k not in axes]

        def total(outer_idx: list[Var]) -> Var:
            """The reduction over `axes` at the kept indices `outer_idx`."""
            b = self.ctx.b
            rdims = [lz.dims[k] for k in axes]

            def at(inner):
                full, it_o, it_i = [], iter(outer_idx), iter(inner)
                for k in range(nd):
                    full.append(next(it_i) if k in axes else next(it_o))
                return self.ctx.convert(lz.gen(full), elem)

            if kind == "prod":
                start = b.const(1, elem) if init is None else self.ctx.convert(init, elem)
                return reduce_each(b, rdims, [start], self._reducer(at, "mul"))[0]
            count = self.lw.numpyfuncs.product(rdims)
            if kind in ("sum", "mean"):
                acc = reduce_each(b, rdims, [b.const(0, elem)], self._reducer(at, "add"))[0]
                return acc if kind == "sum" else b.fdiv(acc, b.tofloat(count))
            if init is None:   # NumPy's initial: no error for an empty array
                b.emit("raise_if", b.eq(count, b.const(0, I64)), attrs=(
                    "ValueError", f"zero-size array to reduction operation {kind}imum which "
                    "has no identity"))
            first = at([b.const(0, I64)] * len(rdims)) if init is None else \
                self.ctx.convert(init, elem)
            step = self._reducer(at, f"numpy.{kind}imum", node)
            return reduce_each(b, rdims, [first], step)[0]

        if not keep:
            return total([])
        out = self.lw.arrays.new_array(elem, [lz.dims[k] for k in keep])
        self.each([lz.dims[k] for k in keep],
                  lambda idx: self.ctx.b.emit("store", out, *idx, total(idx)))
        return out

    def _sum(self, kind: str, a: Var, axes: list[int], keepdims: bool, node: ast.AST):
        b = self.ctx.b
        total = b.emit("sum", a, attrs=(keepdims, *axes))
        if kind == "sum":
            return total
        count = b.const(1, I64)
        for k in axes:
            count = b.mul(count, b.emit("dim", a, attrs=(k,), type=I64))
        n = b.tofloat(count)
        if not is_array(total.type):
            return b.fdiv(self.ctx.convert(total, F64), n)
        return self.binop(ast.Div(), total, n, node)

    def _keep_axes(self, r, nd: int, axes: list[int]) -> Var:
        """A reduction's result `r` with the reduced `axes` back, of size 1 (keepdims)."""
        b = self.ctx.b
        if not is_array(r.type):
            one = b.const(1, I64)
            out = self.lw.arrays.new_array(r.type, [one] * nd)
            b.emit("store", out, *[b.const(0, I64)] * nd, r)
            return out
        # kept axes before the last reduced one are whole slices, reduced axes new axes
        pattern = "".join("n" if k in axes else "s" for k in range(max(axes) + 1))
        ops = self.lw.indexing.whole(self.lw.arrays.dims(r)[:pattern.count("s")])
        return b.emit("view", r, *ops, attrs=(pattern,))

    def _reducer(self, at, op: str, node: ast.AST | None = None):
        """A reduction's step: the op `op`, or a spelling ("numpy.maximum": nan wins)."""
        def body(bb, idx, acc):
            with self.ctx.emitting(bb):
                if "." in op:
                    return [self.lw.functions.apply(op, [acc[0], at(idx)], node)]
                return [bb.emit(op, acc[0], at(idx))]
        return body

