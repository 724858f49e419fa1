"""Loops built by the compiler itself (array creation, whole-array operations, adjoint
seeding): `for i in range(n)` as a `While` region, and nests of them over an array's shape;
and facts about loops (counted loops: counting.py).

    outs = for_range(b, n, [acc0], lambda bb, i, acc: [bb.add(acc[0], ...)])
"""
from __future__ import annotations

from typing import Callable

from .builder import Builder
from .counting import pure, range_bounds
from .nodes import I64, Block, If, Op, Var, While, blocks_of, defined_in, walk

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


def while_loop(b: Builder, carried: list[Var], cond: Callable[[Builder, list[Var]], Var],
               body: Callable[[Builder, list[Var]], list[Var]]) -> list[Var]:
    """Append `while cond(values): values = body(values)` to `b`, starting from `carried`;
    `cond(cb, params)` and `body(bb, params)` emit into builders of their own. Returns the
    carried values after the loop."""
    names = b.names

    def fresh() -> list[Var]:
        return [Var(names.fresh("w"), v.type) for v in carried]
    cps, bps, outs = fresh(), fresh(), fresh()
    cb, bb = Builder(names, b.loc), Builder(names, b.loc)
    go = cond(cb, cps)
    new = body(bb, bps)
    b.stmts.append(While(tuple(outs), tuple(carried), Block(tuple(cps), tuple(cb.stmts), (go,)),
                         Block(tuple(bps), tuple(bb.stmts), tuple(new)), b.loc))
    return outs


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


#: accumulators of a float sum (sum_each): 8 independent chains, so the adds overlap
LANES = 8


def sum_each(b: Builder, dims: list[Var], term: Callable[[Builder, list[Var]], Var]) -> Var:
    """The f64 sum of `term(bb, idx)` over every index of `dims`, in a fixed blocked order:
    along the last axis, element j of each whole block of LANES goes to accumulator j %
    LANES, the rest of the row to accumulator 0, and the accumulators are added pairwise at
    the end, ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)). Independent chains let the
    adds overlap (and vectorize) under strict IEEE rules; the order, so the bits, depend
    only on the shape. `dims` must not be empty."""
    zero = b.const(0.0)
    lanes = b.const(LANES, I64)

    def row(bb: Builder, outer: list[Var], acc: list) -> list:
        n = dims[-1]
        blocks = bb.floordiv(n, lanes)

        def block(b2: Builder, k: Var, a: list) -> list:
            first = b2.mul(k, lanes)
            return [b2.add(a[q], term(b2, outer + [b2.add(first, b2.const(q, I64))]))
                    for q in range(LANES)]
        acc = for_range(bb, blocks, acc, block)
        rest = for_range(bb, n, acc[:1], lambda b2, j, a: [b2.add(a[0], term(b2, outer + [j]))],
                         lo=bb.mul(blocks, lanes))
        return rest + acc[1:]
    acc = reduce_each(b, dims[:-1], [zero] * LANES, row)
    while len(acc) > 1:
        acc = [b.add(acc[k], acc[k + 1]) for k in range(0, len(acc), 2)]
    return acc[0]


def rewrite_outermost(block: Block, rewrite: Callable[[While], list | None]) -> tuple[Block, bool]:
    """`block` with each loop `rewrite` accepts (returns the statements replacing it)
    replaced, trying the outermost first and the loops inside a loop only when it is not
    rewritten; and whether anything changed."""
    body: list = []
    changed = False
    for s in block.body:
        if isinstance(s, While):
            new = rewrite(s)
            if new is not None:
                body.extend(new)
                changed = True
                continue
        if isinstance(s, (If, While)):
            blocks = []
            for b in blocks_of(s):
                nb, ch = rewrite_outermost(b, rewrite)
                blocks.append(nb)
                changed |= ch
            if isinstance(s, If):
                s = If(s.outs, s.cond, blocks[0], blocks[1], s.loc)
            else:
                s = While(s.outs, s.inits, blocks[0], blocks[1], s.loc, s.note, s.unrolled)
        body.append(s)
    return Block(block.params, tuple(body), block.results), changed


def invariant_test(loop: While, allowed: Callable[[Op], bool] = pure) -> Callable[[Var], bool]:
    """A test of whether a value has the same value in every trip of `loop`: it is defined
    before the loop, or in it (at any depth) by an op `allowed` accepts from such values."""
    inside = defined_in(loop)
    defs = {o.name: st for blk in (loop.cond, loop.body) for st in walk(blk)
            if isinstance(st, Op) for o in st.outs}
    memo: dict[str, bool] = {}

    def invariant(v: Var) -> bool:
        if v.name not in inside:
            return True
        if v.name not in memo:
            memo[v.name] = False  # a value of the loop's own carried values never is
            st = defs.get(v.name)
            memo[v.name] = st is not None and allowed(st) and all(map(invariant, st.args))
        return memo[v.name]
    return invariant


def fills_whole(s: While, store: Op, defs: dict) -> bool:
    """Whether `store`, a statement of loop `s`'s body, writes every element of a 1-D array
    allocated before the loop: `s` is `for j in range(n)` (from 0, step 1, no early exit)
    and `store` is `A[j] = v` with A allocated as `np.zeros(n)` (or n is `len(A)`).
    `defs` maps names to the Ops defining them."""
    counted_up = counts_from_zero(s, defs)
    if counted_up is None or store.op != "store" or len(store.args) != 3:
        return False
    k, hi = counted_up
    a, idx, _ = store.args
    norm, made, length = defs.get(idx.name), defs.get(a.name), defs.get(hi.name)
    if norm is None or norm.op != "normidx" or norm.args[0] != s.body.params[k] \
            or made is None or made.op != "alloc" or len(made.args) != 1 \
            or any(made is t for t in walk(s.body)):
        return False  # not at the counter; a view, a parameter, or made inside the loop
    return made.args[0] == hi or (length is not None and length.op == "dim"
                                  and length.args[0] == a and length.attrs == (0,))


def counts_from_zero(s: While, defs: dict) -> tuple[int, Var] | None:
    """`(k, n)` of a loop `for j in range(n)` (from 0, step 1, no early exit; j is carried
    value k), else None. `defs` maps names to the Ops defining them."""
    bounds = range_bounds(s)
    if bounds is None:
        return None
    k, lo, hi, step = bounds
    if _const(defs, lo) != 0 or (step if isinstance(step, int) else _const(defs, step)) != 1:
        return None
    return k, hi


def _const(defs: dict, v: Var) -> object:
    st = defs.get(v.name)
    return st.attrs[0] if st is not None and st.op == "const" else None
