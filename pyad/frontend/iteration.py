"""Frontend, iteration: `for target in iterable` over anything but a plain `range(...)` call
(loops.py lowers that one directly): arrays (their items, or rows), lists, tuples, range
objects stored in variables, and `enumerate`, `zip` (any number of iterables) and `reversed`
of those, nested freely.

An iterable is described by a `Seq`:
- of compile-time length (a tuple, a list of fixed length, and what is made of them): its
  items are values, and the loop is unrolled, one copy of the body per item (tuples of arrays
  of different shapes work: `for W, b in layers:`). A body that may break, continue or return
  is not unrolled: its items (numbers) go into an array and the loop runs at run time;
- of run-time length: its length `n` (computed before the loop) and `item(k)`, which emits
  the k-th item into the loop body; the loop is a counted loop over k (loops.py).

`range(...)` outside a `for` header is a value too (`RangeVal`): `len(r)`, `r[k]`,
`for i in r`, `reversed(r)`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable

from ..errors import PyadTypeError
from . import dictiter
from .control import BRK, CONT, RET, exits
from .context import DynList, RangeVal, SliceVal
from .lists import is_list
from .listscan import mutated_lists
from .loops import LoopSpec
from ..ir.nodes import F64, I64, Var, is_array, ndim_of


@dataclass
class Seq:
    """An iterable (see the module docstring): `items`, or `n` and `item`."""
    items: list | None = None
    n: Var | None = None
    item: Callable[[Var], object] | None = None


class Iteration:
    """`for` over iterables (see the module docstring); one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    # ------------------------------------------------------------------ the loop
    def for_stmt(self, node: ast.For) -> None:
        ctx = self.ctx
        if dictiter.unrolled_loop(self.lw, node):   # over a dict's keys, items or values
            return
        iterated = {n.id for n in ast.walk(node.iter) if isinstance(n, ast.Name)
                    and is_list(ctx.env.get(n.id))}
        for n in sorted(iterated & mutated_lists(node.body)):
            raise ctx.error(node.iter, f"the list `{n}` is changed inside a loop over it",
                            hint=f"loop over a copy: `for v in {n}.copy():`, or build a "
                            "new list")
        seq = self.plan(node.iter)
        if seq.items is not None and exits(node.body) & {BRK, CONT, RET}:
            if not all(isinstance(v, Var) and not is_array(v.type) for v in seq.items):
                raise ctx.error(node, "a loop over a tuple or a list of fixed length whose "
                                "items are not all numbers cannot break, continue or return",
                                hint="loop over range(len(...)) and index instead")
            seq = self.of_value(self.lw.lists.dynamic(tuple(seq.items), node), node)
        if seq.items is not None:
            for v in seq.items:
                self.lw.stmts.assign(node.target, v)
                self.lw.stmts.stmts(node.body)
            return
        counter = f"%i.{len(ctx.names.taken)}"
        n = seq.n
        ctx.env[counter] = ctx.b.const(0, I64)
        self.lw.loops.loop(LoopSpec(node, node.body, lambda env: ctx.b.lt(env[counter], n),
                                    (counter, node.target, ctx.b.const(1, I64)),
                                    item=seq.item, trips=lambda: n))
        del ctx.env[counter]

    # ------------------------------------------------------------------ iterables
    def plan(self, node: ast.expr) -> Seq:
        ctx = self.ctx
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id not in ctx.env:
            obj = ctx.resolve_static(node.func).obj
            if obj in (enumerate, zip, reversed):
                return getattr(self, obj.__name__)(node)
        v = self.lw.arrayops.materialize(self.lw.exprs.expr(node))
        return self.of_value(v, node)

    def of_value(self, v, node: ast.AST) -> Seq:
        b = self.ctx.b
        if isinstance(v, DynList):
            return Seq(n=v.n, item=lambda k: self.lw.lists.item(v, k))
        if isinstance(v, RangeVal):
            start, _, step = v
            return Seq(n=self.range_length(v),
                       item=lambda k: self.ctx.b.add(start, self.ctx.b.mul(k, step)))
        if isinstance(v, SliceVal):
            raise self.lw.exprs.not_a_sequence(node)
        if isinstance(v, tuple):
            return Seq(items=list(v))
        if not isinstance(v, Var):
            raise self.ctx.error(node, "pyad cannot loop over this value", cls=PyadTypeError,
                                 hint="loop over an array, a list, a tuple, a range or the "
                                 "keys of a dict")
        if is_array(v.type):
            a = v
            n = b.emit("dim", a, attrs=(0,), type=I64)
            if ndim_of(a.type) == 1:
                return Seq(n=n, item=lambda k: self.ctx.b.emit("load", a, k))
            return Seq(n=n, item=lambda k: self.ctx.b.emit("row", a, k))
        kind = "float" if v.type == F64 else "int" if v.type == I64 else "bool"
        raise self.ctx.error(node, f"'{kind}' object is not iterable", cls=PyadTypeError)

    def range_length(self, r: RangeVal) -> Var:
        """len(range(start, stop, step)) = max(0, (stop - start + step - sign(step)) // step)."""
        b = self.ctx.b
        start, stop, step = r
        zero, one = b.const(0, I64), b.const(1, I64)
        sign = b.select(b.gt(step, zero), one, b.neg(one))
        n = b.floordiv(b.sub(b.add(b.sub(stop, start), step), sign), step)
        return b.max(n, zero)

    def range_item(self, r: RangeVal, node: ast.Subscript) -> Var:
        """r[k] = start + k' * step, k' the index normalized against len(r)."""
        ctx, ex = self.ctx, self.lw.exprs
        if isinstance(node.slice, ast.Slice):
            raise ctx.error(node, "slicing a range is not supported",
                            hint="write the range you want: range(start, stop, step)")
        k = ex.scalar(ex.expr(node.slice), node.slice)
        if k.type == F64:
            raise ctx.error(node.slice, "range indices must be integers", cls=PyadTypeError)
        b = ctx.b
        j = b.emit("normidx", ctx.convert(k, I64), self.range_length(r), attrs=(0,), type=I64)
        return b.add(r[0], b.mul(j, r[2]))

    def range_array(self, r: RangeVal) -> Var:
        """The items of `r` as a new int64 array (`np.array(range(n))`, `a[range(n), y]`)."""
        start, _, step = r
        n = self.range_length(r)
        out = self.lw.arrays.new_array(I64, [n])
        self.lw.arrayops.each([n], lambda idx: self.ctx.b.emit(
            "store", out, idx[0], self.ctx.b.add(start, self.ctx.b.mul(idx[0], step))))
        return out

    def range_value(self, node: ast.Call) -> RangeVal:
        start, stop, step, _ = self.lw.loops.range_args(node)
        return RangeVal((start, stop, step))

    def enumerate(self, node: ast.Call) -> Seq:
        ctx, ex = self.ctx, self.lw.exprs
        kw = {k.arg: k.value for k in node.keywords}
        if not 1 <= len(node.args) + len(kw) <= 2 or set(kw) - {"start"}:
            raise ctx.error(node, "enumerate takes an iterable and an optional start",
                            cls=PyadTypeError)
        start_node = node.args[1] if len(node.args) == 2 else kw.get("start")
        start = ctx.b.const(0, I64) if start_node is None else \
            ctx.convert(ex.scalar(ex.expr(start_node), start_node), I64)
        inner = self.plan(node.args[0])
        if inner.items is not None:
            b = ctx.b
            return Seq(items=[(b.add(start, b.const(k, I64)), v)
                              for k, v in enumerate(inner.items)])
        return Seq(n=inner.n, item=lambda k: (self.ctx.b.add(start, k), inner.item(k)))

    def zip(self, node: ast.Call) -> Seq:
        ctx = self.ctx
        if node.keywords:
            raise ctx.error(node.keywords[0].value, "zip() keyword arguments are not "
                            "supported", cls=PyadTypeError)
        seqs = [self.plan(a) for a in node.args]
        if not seqs:
            return Seq(items=[])
        if all(s.items is not None for s in seqs):
            return Seq(items=[tuple(t) for t in zip(*(s.items for s in seqs))])
        fixed = [s for s in seqs if s.items is not None]
        if any(not all(isinstance(v, Var) and not is_array(v.type) for v in s.items)
               for s in fixed):   # names, arrays: the zip has the shortest fixed length
            return self._unrolled_zip(seqs, min(len(s.items) for s in fixed), node)
        seqs = [s if s.items is None else self.of_value(self.numbers(s, a), a)
                for s, a in zip(seqs, node.args)]
        n = seqs[0].n
        for s in seqs[1:]:
            n = ctx.b.min(n, s.n)
        return Seq(n=n, item=lambda k: tuple(s.item(k) for s in seqs))

    def _unrolled_zip(self, seqs: list[Seq], k: int, node: ast.Call) -> Seq:
        """zip of sequences of fixed length (the shortest has `k` items) with sequences of
        run-time length, as `k` items: each run-time sequence must have at least `k`
        (ValueError when running; Python would stop at the shorter, docs/python.md)."""
        b = self.ctx.b
        for s in seqs:
            if s.items is None:
                b.emit("raise_if", b.lt(s.n, b.const(k, I64)), attrs=(
                    "ValueError", f"zip(): an argument has fewer than the {k} items of the "
                    "fixed-length one (pyad needs them all)"))
        return Seq(items=[tuple(s.items[i] if s.items is not None else
                                s.item(b.const(i, I64)) for s in seqs) for i in range(k)])

    def numbers(self, s: Seq, node: ast.AST) -> DynList:
        if not all(isinstance(v, Var) and not is_array(v.type) for v in s.items):
            raise self.ctx.error(node, "zip of a tuple of arrays with an iterable of run-time "
                                 "length is not supported",
                                 hint="loop over range(len(...)) and index instead")
        return self.lw.lists.dynamic(tuple(s.items), node)

    def reversed(self, node: ast.Call) -> Seq:
        if len(node.args) != 1 or node.keywords:
            raise self.ctx.error(node, "reversed takes one argument", cls=PyadTypeError)
        inner = self.plan(node.args[0])
        if inner.items is not None:
            return Seq(items=inner.items[::-1])
        n = inner.n

        def item(k: Var):
            b = self.ctx.b
            return inner.item(b.sub(b.sub(n, b.const(1, I64)), k))
        return Seq(n=n, item=item)

