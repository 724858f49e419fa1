"""Rows for the temporaries of an accumulating loop (pyad/ad/fused.py).

A loop reversed inside its forward sweep with an unknown cotangent adds its contributions to
an active array into a temporary of the array's shape, scaled by the cotangent after the
loop. When a trip loads the array at several offsets of the loop's counter (`x[i]` and
`x[i + 1]`: Rosenbrock, stencils), every trip adds into elements the trip before added
into: a dependence that keeps the loop from vectorizing. `split_rows` gives each load a
temporary of its own (a row), so that no two trips add into one element of a row, and the
rows are added up afterwards in the order the shared temporary would have received their
contributions: the same bits."""
from __future__ import annotations

from dataclasses import replace

from ..ir.builder import Builder
from ..ir.counting import counted
from ..ir.loops import invariant_test
from ..ir.nodes import I64, Block, If, Op, Var, While, ndim_of, walk


def split_rows(rv, s: While, loop: While, temps: dict[str, Var],
               pre: list) -> tuple[While, dict[str, list[Var]]]:
    """Give each load in `s` of an array with a temporary in `temps` a row of its own in
    `loop` (the loop with its reverse inside, adding into the temporaries). Only for arrays
    every load of which runs at most once a trip and reads, on one axis (the same for
    all), the loop's counter plus a constant c that never makes the index negative, and on
    the others values fixed before the loop (`affine_loads`): each row then gets at most
    one contribution per element, and the rows, added up in the order the trips (and,
    within a trip, the reverse) reached the element, give the shared temporary's sums bit
    for bit (a row without a contribution adds +0.0, which changes no partial sum that
    starts from +0.0). Returns the loop with its accumulations retargeted and, per split
    array, its rows in that order (`pre` gets their allocations); the loop's note says
    which arrays have rows."""
    loads = affine_loads(rv, s, temps)
    if not loads:
        return loop, {}
    sites: dict[str, list[tuple[int, tuple[str, ...]]]] = {}   # array -> (position, index)
    by_temp = {t.name: name for name, t in temps.items() if name in loads}
    nested: set[str] = set()

    def visit(block: Block, in_loop: bool, pos: list[int]) -> None:
        for st in block.body:
            pos[0] += 1
            if isinstance(st, Op) and st.op == "accum" and st.args[0].name in by_temp:
                name = by_temp[st.args[0].name]
                if in_loop:
                    nested.add(name)
                sites.setdefault(name, []).append((pos[0],
                                                   tuple(a.name for a in st.args[1:-1])))
            elif isinstance(st, If):
                visit(st.then, in_loop, pos)
                visit(st.orelse, in_loop, pos)
            elif isinstance(st, While):
                visit(st.cond, True, pos)
                visit(st.body, True, pos)
    visit(loop.body, False, [0])
    sign, rows, retarget = loads.pop("", 1), {}, {}
    for name, found in sites.items():
        index = [ix for _, ix in found]
        if name in nested or len(set(index)) < 2 or len(set(index)) != len(index) \
                or any(ix not in loads[name] for ix in index):
            continue  # one row already, an index added to twice a trip, or not a load's
        order = sorted(found, key=lambda f: (-sign * loads[name][f[1]][1], f[0]))
        pb = Builder(rv.names, s.loc)
        t = temps[name]
        dims = [pb.emit("dim", t, attrs=(d,), type=I64) for d in range(ndim_of(t.type))]
        rows[name] = [t] + [pb.emit("alloc", *dims, type=t.type) for _ in order[1:]]
        pre.extend(pb.stmts)
        for row, (_, ix) in zip(rows[name], order):
            retarget[(t.name, ix)] = row
    if not rows:
        return loop, {}
    arrays = {st.args[0].name: st.args[0] for st in walk(s.body)
              if isinstance(st, Op) and st.op == "load"}
    split = [a for name in rows for a in (", ", arrays[name])][1:]
    loop = _retargeted(loop, retarget)
    return replace(loop, note=loop.note + ("; a row per load of ", *split)), rows


def _retargeted(stmt, retarget: dict) -> While:
    """`stmt` with each `accum T, idx, v` whose (T, idx names) is in `retarget` adding into
    the row given there instead."""
    def block(blk: Block) -> Block:
        return Block(blk.params, tuple(map(one, blk.body)), blk.results)

    def one(st):
        if isinstance(st, Op):
            key = (st.args[0].name, tuple(a.name for a in st.args[1:-1])) if st.op == "accum" \
                else None
            row = retarget.get(key)
            return st if row is None else Op(st.outs, st.op, (row,) + st.args[1:], st.attrs,
                                               st.loc)
        if isinstance(st, If):
            return If(st.outs, st.cond, block(st.then), block(st.orelse), st.loc)
        return While(st.outs, st.inits, block(st.cond), block(st.body), st.loc, st.note)
    return one(stmt)


def affine_loads(rv, s: While, temps: dict[str, Var]) -> dict:
    """For the arrays with a temporary whose loads qualify for rows (`split_rows`) or a
    window (window.py): array name -> {index names of a load: (its axis, its c)}; and
    under "" the sign of the counter's step. Empty when the loop has no counter of a known
    direction and bound."""
    found = counter_of(rv, s)
    if found is None or not temps:
        return {}
    _, counter, step, low = found
    defs = {o.name: st for st in walk(s.body) if isinstance(st, Op) for o in st.outs}

    def const(v: Var):
        st = defs.get(v.name) or rv.defs.get(v.name)
        return st.attrs[0] if st is not None and st.op == "const" else None

    invariant = invariant_test(s)

    def offset(v: Var) -> int | None:
        """c when `v` (an index) is normidx(counter + c, n) and never wraps, or counter +
        c itself (a load through a slice: ir/slice_loads.py), else None."""
        st = defs.get(v.name)
        if v != counter and (st is None or st.op not in ("normidx", "add", "sub")):
            return None
        e = st.args[0] if st is not None and st.op == "normidx" else v
        if e == counter:
            c = 0
        else:
            d = defs.get(e.name)
            if d is None or d.op not in ("add", "sub") or counter not in d.args:
                return None
            other = d.args[1] if d.args[0] == counter else d.args[0]
            c = const(other)
            if not isinstance(c, int) or d.op == "sub" and d.args[0] != counter:
                return None
            c = -c if d.op == "sub" else c
        return c if low + c >= 0 else None

    out: dict = {}
    bad: set[str] = set()

    def visit(block: Block, in_loop: bool) -> None:
        for st in block.body:
            if isinstance(st, Op) and st.op == "load" and st.args[0].name in temps:
                name, idx = st.args[0].name, st.args[1:]
                axes = [(ax, offset(v)) for ax, v in enumerate(idx) if offset(v) is not None]
                others = all(invariant(v) for ax, v in enumerate(idx)
                             if ax not in {a for a, _ in axes})
                if in_loop or len(axes) != 1 or not others:
                    bad.add(name)
                    continue
                ax, c = axes[0]
                seen = out.setdefault(name, {})
                if seen and next(iter(seen.values()))[0] != ax:
                    bad.add(name)
                seen[tuple(v.name for v in idx)] = (ax, c)
            elif isinstance(st, If):
                visit(st.then, in_loop)
                visit(st.orelse, in_loop)
            elif isinstance(st, While):
                visit(st.cond, True)
                visit(st.body, True)
    visit(s.body, False)
    rows = {name: seen for name, seen in out.items() if name not in bad}
    if rows:
        rows[""] = 1 if step > 0 else -1
    return rows


def counter_of(rv, s: While) -> tuple[int, Var, int, int] | None:
    """(its place among the carried values, the body's counter, its constant step, the
    least value it takes) when `s` runs
    `for i in range(lo, hi, step)` with a constant step and a constant bound on the low
    side (lo going up, hi going down), else None."""
    c = counted(s)
    if c is None:
        return None
    k, init, bound, step, test = c
    p = s.body.params[k]

    def const(v):
        if isinstance(v, int):
            return v
        st = rv.defs.get(v.name)
        return st.attrs[0] if st is not None and st.op == "const" else None
    step, low = const(step), const(init if test == "lt" else bound)
    if not isinstance(step, int) or not isinstance(low, int) or step == 0 \
            or (step > 0) != (test == "lt"):
        return None
    return k, p, step, low if step > 0 else low + 1
