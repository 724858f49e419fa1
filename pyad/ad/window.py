"""Partial sums carried to the next trip, for the temporaries of an accumulating loop.

A loop reversed inside its forward sweep (fused.py) adds its contributions (cotangent 1)
into a temporary of each active array it loads. When a trip loads the array at several
offsets of the counter (`x[i]` and `x[i + 1]`: Rosenbrock, stencils), an element receives
contributions from consecutive trips: each trip loads, adds into and stores elements the
trip before stored, a dependence through memory on every trip. `carry_window` keeps the
partial sums of the elements later trips still add to in values the loop carries (a window
that slides with the counter); each element is written once, by the trip that makes its
last contribution, and the window's partial sums left when the loop ends are written after
it. Each partial sum starts from 0.0 and receives its element's contributions in trip
order, as the temporary's element did: the same bits.

Conditions (otherwise rows.py gives each load a temporary of its own): the loop counts by a
constant step from a constant bound; every load of the array reads the counter plus a
constant on one axis and, on the others, values fixed in the loop (rows.affine_loads):
one set of them, or constants that tell the elements apart (a window each); the trip's
reverse adds into the temporary at the top of the body only, once per offset."""
from __future__ import annotations

from ..ir.builder import Builder
from ..ir.nodes import F64, I64, Block, Op, Stmt, Var, While, walk
from .carry import add_after
from .rows import affine_loads, counter_of


def carry_window(rv, s: While, loop: While, temps: dict[str, Var],
                 pre: list) -> tuple[While, list[Stmt], set[str]]:
    """(`loop` carrying a window for each array of `temps` that qualifies, the writes
    after it of what the windows hold when it ends, the names of those arrays); `pre` gets
    the zeros the windows start from. `s` is the loop as the primal has it, `loop` the
    same loop with each trip's reverse inside."""
    found, loads = counter_of(rv, s), affine_loads(rv, s, temps)
    if found is None or not loads:
        return loop, [], set()
    k, _, step, _ = found
    windows = _windows(loop, loads, temps, step, rv.defs)
    if not windows:
        return loop, [], set()
    names, loc = rv.names, loop.loc
    zero = Var(names.fresh("acc0"), F64)
    pre.append(Op((zero,), "const", (), (0.0,), loc))
    slots = {(w, d): (Var(names.fresh("part"), F64), Var(names.fresh("part"), F64),
                      Var(names.fresh("part"), F64))  # cond param, body param, result
             for w, (_, _, reach) in windows.items() for d in sorted(reach)
             if d + step in reach}
    sums: dict[tuple, Var] = {}
    where = {id(st): (w, c) for w, (_, by_c, _) in windows.items() for c, st in by_c.items()}
    body: list[Stmt] = []
    for st in loop.body.body:
        if id(st) not in where:
            body.append(st)
            continue
        key = where[id(st)]
        part = Var(names.fresh("part"), F64)
        body.append(Op((part,), "add", (slots[key][1] if key in slots else zero, st.args[-1]),
                       (), st.loc))
        sums[key] = part
    for w, (_, by_c, reach) in windows.items():
        for c in sorted(reach):
            sums.setdefault((w, c), slots[(w, c)][1] if (w, c) in slots else zero)
        for c in sorted(reach):
            if c - step not in reach:  # its element's last contribution: written now
                st = by_c[c]
                body.append(Op((), "accum", st.args[:-1] + (sums[(w, c)],), (), st.loc))
    keys = list(slots)
    outs = tuple(Var(names.fresh("part"), F64) for _ in keys)
    new = While(loop.outs + outs, loop.inits + (zero,) * len(keys),
                Block(loop.cond.params + tuple(slots[key][0] for key in keys), loop.cond.body,
                      loop.cond.results),
                Block(loop.body.params + tuple(slots[key][1] for key in keys), tuple(body),
                      loop.body.results + tuple(sums[(n, d + step)] for n, d in keys)),
                loc, loop.note + _note(s, windows))
    top = {o.name: st for st in loop.body.body if isinstance(st, Op) for o in st.outs}
    post: list[Stmt] = []
    for (w, d), out in zip(keys, outs):
        ax, by_c, _ = windows[w]
        like = next(iter(by_c.values()))
        pb = Builder(names, like.loc)
        t = like.args[0]
        at = pb.emit("wrapidx", pb.add(loop.outs[k], pb.const(d, I64)),
                     pb.emit("dim", t, attrs=(ax,), type=I64), attrs=(ax,), type=I64)
        index = list(like.args[1:-1])
        index[ax] = at
        post.extend(add_after(Op((), "accum", (t, *index, out), (), like.loc), out, top, names,
                              tuple(pb.stmts)))
    return new, post, {name for name, _ in windows}


def _windows(loop: While, loads: dict, temps: dict[str, Var], step: int,
             defs: dict[str, Op]) -> dict[tuple, tuple[int, dict[int, Op], set[int]]]:
    """The windows: (array name, its indices on the other axes) -> (the counter's axis,
    the accumulation into its temporary at each offset, the offsets the window covers:
    those of the loads and the ones their elements pass through on the way out). An array
    gets several windows only when their indices on the other axes are constants that
    tell its elements apart (`p[i, 0]`, `p[i + 1, 0]`, `p[i, 1]`, `p[i + 1, 1]`)."""
    sign = loads.pop("", 1)
    assert sign == (1 if step > 0 else -1)
    by_temp = {temps[name].name: name for name in loads}
    skip: set[str] = set()
    for st in loop.body.body:  # accumulations in branches or inner loops: no window
        if not isinstance(st, Op):
            skip.update(by_temp[a.args[0].name] for a in walk(Block((), (st,), ()))
                        if isinstance(a, Op) and a.op == "accum" and a.args[0].name in by_temp)
    skip.update(by_temp[a.args[0].name] for a in walk(loop.cond)
                if isinstance(a, Op) and a.op == "accum" and a.args[0].name in by_temp)
    accums: dict[str, dict[tuple, dict[int, Op]]] = {}
    for st in loop.body.body:
        if isinstance(st, Op) and st.op == "accum" and st.args[0].name in by_temp:
            name = by_temp[st.args[0].name]
            got = loads[name].get(tuple(a.name for a in st.args[1:-1]))
            if got is None:
                skip.add(name)
                continue
            ax, c = got
            group = accums.setdefault(name, {}).setdefault(
                tuple(v.name for j, v in enumerate(st.args[1:-1]) if j != ax), {})
            if c in group:
                skip.add(name)
            group[c] = st
    out = {}
    for name, groups in accums.items():
        axes = {ax for ax, _ in loads[name].values()}
        if name in skip or len(axes) != 1 or len(groups) > 1 and not _apart(groups, defs):
            continue
        ax = axes.pop()
        mine = {}
        for other, by_c in groups.items():
            reach = _reach(set(by_c), step)
            if any(c not in by_c for c in reach if c - step not in reach):
                break
            mine[(name, other)] = (ax, by_c, reach)
        else:  # some trip adds to an element a later trip adds to
            if any(c + step in reach for _, _, reach in mine.values() for c in reach):
                out.update(mine)
    return out


def _apart(groups: dict[tuple, dict], defs: dict[str, Op]) -> bool:
    """Whether the indices of the groups on the other axes are constants (through
    normidx) that differ between any two groups on some axis where both have the same
    sign (-1 and 2 may be one element)."""
    def const(name: str):
        st = defs.get(name)
        if st is not None and st.op in ("normidx", "wrapidx"):
            st = defs.get(st.args[0].name)
        ok = st is not None and st.op == "const" and isinstance(st.attrs[0], int)
        return st.attrs[0] if ok and not isinstance(st.attrs[0], bool) else None
    values = [tuple(map(const, other)) for other in groups]
    if any(v is None for vs in values for v in vs):
        return False
    return all(any(a != b and (a < 0) == (b < 0) for a, b in zip(u, v))
               for n, u in enumerate(values) for v in values[n + 1:])


def _reach(offsets: set[int], step: int) -> set[int]:
    """The offsets an element passes through, trip after trip, from one in `offsets` until
    it leaves their range."""
    lo, hi, out = min(offsets), max(offsets), set()
    for c in offsets:
        while lo <= c <= hi and c not in out:
            out.add(c)
            c -= step
    return out


def _note(s: While, windows: dict) -> tuple:
    arrays = {st.args[0].name: st.args[0] for st in walk(s.body)
              if isinstance(st, Op) and st.op == "load"}
    named = [a for name in dict.fromkeys(n for n, _ in windows) for a in (", ", arrays[name])][1:]
    return ("; partial sums for ", *named, " carried to the next trip")
