"""Loops built by the compiler itself (array creation, whole-array operations, adjoint
seeding): `for i in range(n)` as a `While` region, and nests of them over an array's shape.

    outs = for_range(b, n, [acc0], lambda bb, i, acc: [bb.add(acc[0], ...)])
"""
from __future__ import annotations

from typing import Callable

from .builder import Builder
from .ir import I64, Block, Var, While

Body = Callable[[Builder, Var, list], list]


def for_range(b: Builder, n: Var, carried: list[Var], body: Body, lo: Var | None = None) -> list[Var]:
    """Append `for i in range(lo, n)` to `b`; `body(bb, i, params)` emits into `bb` and returns
    the next carried values. Returns the carried values after the loop."""
    names = b.names
    start = lo if lo is not None else b.const(0, I64)
    one = b.const(1, I64)  # the step lives outside: the AD pass recognizes the counter
    cps = [Var(names.fresh("i"), I64)] + [Var(names.fresh("c"), v.type) for v in carried]
    cb = Builder(names, b.loc)
    go = cb.lt(cps[0], n)
    bps = [Var(names.fresh("i"), I64)] + [Var(names.fresh("c"), v.type) for v in carried]
    bb = Builder(names, b.loc)
    new = body(bb, bps[0], bps[1:])
    nxt = bb.add(bps[0], one)
    outs = [Var(names.fresh("i"), I64)] + [Var(names.fresh("c"), v.type) for v in carried]
    b.stmts.append(While(tuple(outs), (start, *carried), Block(tuple(cps), tuple(cb.stmts), (go,)),
                         Block(tuple(bps), tuple(bb.stmts), (nxt, *new)), b.loc))
    return outs[1:]


def for_each(b: Builder, dims: list[Var], body: Callable[[Builder, list[Var]], None]) -> None:
    """Append a loop nest over every index of `dims` (row-major); `body(bb, idx)` emits the
    work for one index."""
    def level(bb: Builder, idx: list[Var]) -> None:
        k = len(idx)
        if k == len(dims):
            body(bb, idx)
            return
        for_range(bb, dims[k], [], lambda inner, i, _: (level(inner, idx + [i]), [])[1])
    level(b, [])


def reduce_each(b: Builder, dims: list[Var], init: list[Var],
                body: Callable[[Builder, list[Var], list], list]) -> list[Var]:
    """A loop nest over `dims` carrying accumulators: `body(bb, idx, acc)` returns the next
    accumulators. Returns the final ones."""
    def level(bb: Builder, idx: list[Var], acc: list) -> list:
        k = len(idx)
        if k == len(dims):
            return body(bb, idx, acc)
        return for_range(bb, dims[k], acc, lambda inner, i, a: level(inner, idx + [i], a))
    return level(b, [], list(init))
