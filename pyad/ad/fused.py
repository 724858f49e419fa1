"""Reverse mode, accumulating loops: the reverse sweep of a loop runs inside its forward sweep.

A loop qualifies when its only active carried value `e` merely accumulates (`e = e + term`,
`e -= term`, possibly through inner loops that do the same, and `e` is read nowhere else) and
its body stores into no active array but scratch arrays private to its trips (ir/private.py:
each trip writes before it reads them, and their adjoints are zero again after each trip's
reverse). Then the adjoint of `e` is the same in every reverse trip (the cotangent `ct` of
the loop's result), the reverse trips are independent of each other, and every contribution
is linear in `ct`. So each forward trip runs its own reverse right away, with cotangent 1,
reading the trip's values where they are: nothing is taped across trips (inner loops that
tape pop it within the trip; `tapepeak` notes the tape's size before the pops, for
`tape_bytes`). Inside a trip's reverse, loads of memory nothing writes later in the trip
are re-read, and fills are re-run only for private arrays (Reverser.reversing_trip_of).

- When `ct` is a known constant (an inner loop reversed inside such a fused trip), the
  contributions are made directly (accumulated into the shadows in use and into extra
  carried values for the outer values the body reads).
- Otherwise the contributions with cotangent 1 go into temporary shadow arrays (allocated
  before the loop, at the top level of the function only) and extra carried values, and the
  reverse sweep adds `ct` times them where the loop is reversed.
  A trip that loads an array at several offsets of the counter (`x[i]`, `x[i + 1]`)
  carries the partial sums of the elements the next trips add to, writing each element
  once (window.py), or, where that does not apply, gives each load a temporary of its
  own, added up afterwards in the order one temporary would have received the
  contributions (rows.py): either way the trips do not add into what the trip before
  added.
- Inside a loop the reverse sweep tapes, where temporary shadows would be needed, a loop
  whose loads can all be repeated runs again in the reverse sweep instead, each trip
  followed by its reverse with the cotangent `ct` known there (`rerun_in_reverse`): its
  forward run tapes nothing (issue 17's "re-run a trip from its live-in values").

Addition order differs from the taped reverse (forward trip order), so results may differ in
the last bits from a loop that does not qualify; they are exact derivatives all the same.
"""
from __future__ import annotations

from collections import Counter

from ..ir.builder import Builder
from ..ir.nodes import F64, I64, Block, If, Op, Var, While, free_vars, is_array, ndim_of, rename_block, walk
from ..ir.loops import for_each
from ..ir.memory import VIEW_OPS
from ..ir.ops import CHEAP, OPS
from .carry import carry
from .rerun import loops_written_after
from .close import Prefixed, as_run_again, export, substitute
from .rows import split_rows
from .window import carry_window


def fusable(s: While, rv, cts: list) -> int | None:
    """The index of the loop's one active carried value if the loop qualifies, else None.
    `rv` is the Reverser (its active values, known cotangents, loop depth and the arrays
    private to each loop's trips)."""
    k = _accumulating(s, rv)
    if k is None:
        return None
    ct = cts[k]
    temps = ct is None or ct.name not in rv.known
    if temps and rv.depth > 0 and any(isinstance(st, Op) and st.op == "load"
                                      and _shared(rv, s, st.args[0]) for st in walk(s.body)):
        return None  # temporary shadows only at the top level (allocated once per call)
    if not temps and rv.fused_in and _overwritten_later(rv, s):
        return None
    return k


def _overwritten_later(rv, s: While) -> bool:
    """Whether a statement after loop `s` in the trip being reversed at its end (`fused_in`:
    later in its body, or in later trips of the loops around `s` there) stores into an
    array `s` loads. With the cotangent known, `s`'s contributions go straight into the
    shadows while it runs forward, but that store's reverse, which reads and clears the
    shadow of what it overwrote, runs afterwards: it would take them (`sc[1] = 7.0` after a
    loop summing `sc[i] * sc[i]` lost sc[1]'s gradient). Such a loop is reversed in its
    place instead."""
    trip = rv.fused_in[-1]
    if id(trip) not in rv.written_in_trip:
        rv.written_in_trip[id(trip)] = loops_written_after(trip.body, rv.classes)
    later = rv.written_in_trip[id(trip)].get(id(s), frozenset())
    return any(isinstance(st, Op) and st.op == "load" and st.args[0].name in rv.classes.parent
               and rv.classes.find(st.args[0].name) in later for st in walk(s.body))


def rerunnable(s: While, rv) -> int | None:
    """Like `fusable`, for a loop that can run again in the reverse sweep, each trip
    followed by its reverse (`rerun_in_reverse`): every load of its body reads memory
    nothing writes afterwards, or an array private to its trips. Chosen only where it
    saves tape that would outlive a trip of an enclosing loop (not inside a trip reversed
    at its end) and where a taped reverse would tape something (the body computes a float
    the plan does not recompute: exp, sqrt, a division, ...)."""
    k = _accumulating(s, rv)
    ops = [st for blk in (s.cond, s.body) for st in walk(blk) if isinstance(st, Op)]
    if k is None or rv.fused_in or not any(st.outs and st.outs[0].type == F64
                                           and st.op not in CHEAP for st in ops):
        return None
    if any(st.op == "load" and st.outs[0].name not in rv.rereadable
           and not rv.is_private(s, st.args[0]) for st in ops):
        return None
    return k


def _shared(rv, s: While, a: Var) -> bool:
    """An active array the trips of `s` may share (not private to them: ir/private.py)."""
    return a.name in rv.active and not rv.is_private(s, a)


def _accumulating(s: While, rv) -> int | None:
    """The index of the loop's one active carried value when it only accumulates and the
    body writes no active array its trips share, else None."""
    active = rv.active
    act = [k for k, o in enumerate(s.outs) if o.name in active]
    if len(act) != 1 or s.outs[act[0]].type != F64 or not _pass_through(s, act[0]):
        return None
    defined = _defined(s)
    for st in walk(s.body):
        if not isinstance(st, Op):
            continue
        if st.op in ("store", "accum") and _shared(rv, s, st.args[0]):
            return None  # the reverse reads shadows: its trips depend on each other
        if st.op in (VIEW_OPS | {"load"}) and _shared(rv, s, st.args[0]) \
                and _root(rv, defined, st.args[0]).name in defined:
            return None  # an array the body makes (views of outer arrays: _temporaries)
        if OPS[st.op].whole_array and any(a.name in active for a in st.args):
            return None  # whole-array adjoints add into shadows: not made for cotangent 1
    return act[0]


def reverse_fused(rv, s: While, k: int, ct: Var, adj: dict, b: Builder) -> None:
    """Emit the forward loop with its reverse inside (into `rv.subst`) and, into `b`, the
    contributions to the adjoints of the values it reads from outside."""
    known = rv.known.get(ct.name)
    temps, pre = _temporaries(rv, s) if known is None else ({}, [])
    zeros, loop, outer, post = _trip_loop(rv, s, k, known, temps, None)
    # the shadow views the body makes of an array with a temporary view the temporary
    loop = rename_block(Block((), (loop,), ()), {rv.shadow[n].name: t
                                                  for n, t in temps.items()}).body[0]
    loop, flush, windowed = carry_window(rv, s, loop, temps, pre)
    loop, rows = split_rows(rv, s, loop, {n: t for n, t in temps.items() if n not in windowed},
                            pre)
    rv.temporaries.update(v.name for row in rows.values() for v in row)
    rv.subst[id(s)] = Prefixed(tuple(pre) + tuple(zeros), loop, tuple(post + flush))
    extra = loop.outs[len(s.outs):len(s.outs) + len(outer)]
    _contributions(rv, s, k, ct, known, outer, extra, temps, rows, adj, b)


def rerun_in_reverse(rv, s: While, k: int, ct: Var, adj: dict, b: Builder) -> None:
    """Emit into `b` the loop run again, each trip followed by its reverse with cotangent
    `ct`, and add what it gives to the adjoints of the values it reads from outside. The
    forward sweep runs the loop as the primal does: nothing is taped for it."""
    zeros, loop, outer, post = _trip_loop(rv, s, k, None, {}, ct)
    rv.subst[id(s)] = s  # its inner loops' forward versions are in the re-run only
    outs = b.inline(Block((), tuple(zeros) + (as_run_again(loop),) + tuple(post),
                          loop.outs[len(s.outs):len(s.outs) + len(outer)]), [])
    _contributions(rv, s, k, ct, 1.0, outer, tuple(outs), {}, {}, adj, b)  # 1.0: ct is in them


def _trip_loop(rv, s: While, k: int, known: float | None, temps: dict,
               seed: Var | None) -> tuple[list[Op], While, list[str], list[Op]]:
    """`s` with each trip's reverse after the trip: (the zeros its extra carried values
    start from, the loop, the outer names whose adjoints those carry -- its first extra
    results --, the accumulations to make after it: carry.py)."""
    rb, local, body = _reverse_inside(rv, s, k, known, temps, seed)
    inner = {p.name for p in body.params} | {o.name for st in walk(body) for o in st.outs}
    local.pop(body.params[k].name, None)  # passes straight through: adj(init) += ct below
    outer = [n for n in local if n not in inner]  # in the order the reverse met them
    names = rv.names
    zeros = [Op((Var(names.fresh("acc0"), F64),), "const", (), (0.0,), s.loc) for _ in outer]
    acc_c = [Var(names.fresh("acc"), F64) for _ in outer]
    acc_b = [Var(names.fresh("acc"), F64) for _ in outer]
    acc_next = [rb.add(a, local[n]) for a, n in zip(acc_b, outer)]
    outs = tuple(Var(names.fresh("acc"), F64) for _ in outer)
    pushes = any(isinstance(st, Op) and st.op in ("push", "callfwd") for st in walk(body))
    peak = (Op((), "tapepeak", (), (), s.loc),) if pushes else ()  # before the pops
    loop = While(s.outs + outs, s.inits + tuple(z.outs[0] for z in zeros),
                 Block(s.cond.params + tuple(acc_c), s.cond.body, s.cond.results),
                 Block(body.params + tuple(acc_b), body.body + peak + tuple(rb.stmts),
                       body.results + tuple(acc_next)), s.loc,
                 _note(rv, s, k, known, pushes, seed is not None))
    # what the loop may sum first: temporaries, and the shadows of arrays not private to
    # its trips (the shadows it loads, in the reverse of stores, are the private ones')
    targets = rv.temporaries | {sh.name for a, sh in rv.shadow.items()
                                if a in rv.classes.parent
                                and not rv.is_private(s, Var(a, sh.type))}
    more, loop, post = carry(loop, targets, names)
    return zeros + more, loop, outer, post


def _note(rv, s: While, k: int, known: float | None, pushes: bool, rerun: bool) -> tuple:
    """The comment `f.grad_ir()` prints above the loop."""
    private = {st.args[0].name: st.args[0] for st in walk(s.body) if isinstance(st, Op)
               and st.op in ("load", "store") and rv.is_private(s, st.args[0])}
    note: list = ["run again in the reverse sweep, each trip reversed after it (it "
                  "accumulates " if rerun else "reversed inside this loop (it accumulates ",
                  s.outs[k]]
    for j, a in enumerate(private.values()):
        note += [", " if j else "; private to its trips: ", a]
    note.append("): " + ("each trip pops what it taped" if pushes else "nothing taped"))
    if known is None and not rerun:
        note.append("; contributions scaled by the cotangent after it")
    return tuple(note)


def _defined(s: While) -> set[str]:
    return {p.name for p in s.body.params} | {o.name for st in walk(s.body) for o in st.outs}


def _root(rv, defined: set[str], v: Var) -> Var:
    """The array that `v`, a view the loop body makes (through views it makes), views; or v."""
    while v.name in defined and rv.defs.get(v.name) is not None \
            and rv.defs[v.name].op in VIEW_OPS:
        v = rv.defs[v.name].args[0]
    return v


def _temporaries(rv, s: While) -> tuple[dict[str, Var], list]:
    """Temporary shadow arrays for the active arrays the body loads, directly or through
    views it makes of them (cotangent 1 goes there, scaled by ct afterwards: the shadow
    views the body makes view the temporary, `reverse_fused`), and the statements
    allocating them."""
    pb = Builder(rv.names, s.loc)
    defined = _defined(s)
    loaded = {r.name: r for st in walk(s.body)
              if isinstance(st, Op) and st.op == "load" and st.args[0].name in rv.active
              and not rv.is_private(s, st.args[0])  # private arrays: shadows stay inside
              for r in (_root(rv, defined, st.args[0]),)}
    temps: dict[str, Var] = {}
    for name, a in loaded.items():
        dims = [pb.emit("dim", a, attrs=(d,), type=I64) for d in range(ndim_of(a.type))]
        # not marked "shadow": a pullback zeroes its shadows before each backward call
        temps[name] = pb.emit("alloc", *dims, type=a.type)
    rv.temporaries.update(t.name for t in temps.values())
    return temps, pb.stmts


def _reverse_inside(rv, s: While, k: int, known: float | None, temps: dict,
                    seed: Var | None = None) -> tuple[Builder, dict, Block]:
    """The body's reverse with cotangent 1 (or the known constant, or `seed`), written
    inside the forward body; (its builder, the adjoints flowing out, the forward body with
    values the reverse reads from its branches exported)."""
    names, body = rv.names, s.body
    rb = Builder(names, s.loc)
    unit = seed
    if seed is None:
        unit = rb.const(1.0 if known is None else known)
        rv.known[unit.name] = 1.0 if known is None else known
    local: dict[str, Var] = {}
    if body.results[k].name in rv.active:
        rv.accumulate(rb, local, body.results[k], unit)
    with rv.shadows(temps), rv.inside_loop(), rv.reversing_trip_of(s):
        rv.reverse(body.body, local, rb)
    body = substitute(body, rv.subst)
    top = {p.name for p in body.params} | {o.name for st in body.body for o in st.outs}
    inner = {p.name for p in body.params} | {o.name for st in walk(body) for o in st.outs}
    lift: dict[str, Var] = {}
    want = {v.name for v in free_vars(Block((), tuple(rb.stmts), ())) if v.name in inner
            and v.name not in top}
    body = export(body, want, lift, names)
    rb.stmts = list(rename_block(Block((), tuple(rb.stmts), ()), lift).body)
    return rb, local, body


def _contributions(rv, s: While, k: int, ct: Var, known: float | None, outer: list[str],
                   outs: tuple[Var, ...], temps: dict, rows: dict, adj: dict,
                   b: Builder) -> None:
    """Where the loop is reversed: the contributions (times ct, unless already in)."""
    b.loc = s.loc
    scale = (lambda v: v) if known is not None else (lambda v: _times(rv, b, ct, v))  # noqa: E731
    if s.inits[k].name in rv.active:
        rv.accumulate(b, adj, s.inits[k], ct)
    by_name = {v.name: v for v in free_vars(s.body)}
    for n, o in zip(outer, outs):
        rv.accumulate(b, adj, by_name[n], scale(o))
    for name, t in temps.items():
        sh, parts = rv.shadow[name], rows.get(name, [t])
        dims = [b.emit("dim", t, attrs=(d,), type=I64) for d in range(ndim_of(t.type))]

        def add(b2: Builder, idx: list[Var], sh=sh, parts=parts) -> None:
            total = b2.emit("load", parts[0], *idx)
            for row in parts[1:]:  # the rows in the order their contributions came
                total = b2.add(total, b2.emit("load", row, *idx))
            b2.emit("accum", sh, *idx, _times(rv, b2, ct, total))
        for_each(b, dims, add)


def _times(rv, b: Builder, ct: Var, v: Var) -> Var:
    """`ct * v`: the contribution of the cotangent `ct` through `v`, what the trips added
    with cotangent 1. With strong zeros, 0 where either is 0: a zero cotangent gives zero
    even where a partial in `v` is inf (`s += sqrt(x[i])` with `s` unused on the path
    taken), and a zero `v` gives zero even where `ct` is inf (`sqrt(sum(x * x))` at 0,
    as the per-term rule of `mul` does); docs/gradients.md."""
    c = b.mul(ct, v)
    return b.strongzero(v, b.strongzero(ct, c)) if rv.strong_zeros else c


def _uses(block: Block, counts: Counter) -> Counter:
    """How often each name is read in `block` (nested blocks and results included)."""
    for st in block.body:
        if isinstance(st, Op):
            counts.update(a.name for a in st.args)
        elif isinstance(st, If):
            counts[st.cond.name] += 1
            _uses(st.then, counts)
            _uses(st.orelse, counts)
        else:
            counts.update(v.name for v in st.inits)
            _uses(st.cond, counts)
            _uses(st.body, counts)
    counts.update(r.name for r in block.results)
    return counts


def _pass_through(s: While, k: int) -> bool:
    """Whether carried value k of `s` only accumulates: its next value is the param plus or
    minus terms that do not read it (possibly through inner loops of the same kind, and
    through branches each of which adds terms or none: `if c: e -= t`), every value on
    that chain is read only by the next link, and the condition does not read it."""
    if _uses(s.cond, Counter())[s.cond.params[k].name]:
        return False
    target = s.body.params[k].name
    links: Counter = Counter({s.body.results[k].name: 1})  # uses of chain values by the chain
    origin = _origin(s.body, s.body.results[k].name, links, _depends(s.body, {target}))
    counts = _uses(s.body, Counter())
    return origin == target and all(counts[v] == n for v, n in links.items())


def _depends(block: Block, dep: set[str]) -> set[str]:
    """`dep` and the names of `block` (nested ones too) computed from a name in it."""
    for st in block.body:
        if isinstance(st, Op):
            if any(a.name in dep for a in st.args):
                dep.update(o.name for o in st.outs)
        elif isinstance(st, If):
            _depends(st.then, dep)
            _depends(st.orelse, dep)
            dep.update(o.name for j, o in enumerate(st.outs) if st.cond.name in dep
                       or {st.then.results[j].name, st.orelse.results[j].name} & dep)
        else:
            for _ in range(2):  # a carried value reached in the first pass feeds the second
                for j, v in enumerate(st.inits):
                    if v.name in dep or st.body.results[j].name in dep:
                        dep.update((st.cond.params[j].name, st.body.params[j].name,
                                    st.outs[j].name))
                _depends(st.cond, dep)
                _depends(st.body, dep)
    return dep


def _origin(block: Block, name: str, links: Counter, dep: set[str]) -> str | None:
    """Follow the accumulation chain from `name` back through `block` to the value it
    starts from (defined outside `block`), counting in `links` each use the chain makes of
    its values; None when a link is not an accumulation. `dep`: the values computed from
    the accumulator, which tell which operand of an addition continues the chain."""
    defs = {o.name: st for st in block.body for o in st.outs}
    while name in defs:
        st = defs[name]
        if isinstance(st, Op) and st.op in ("add", "sub") and st.outs[0].type == F64:
            a, c = st.args
            if a.name in dep and c.name in dep or st.op == "sub" and a.name not in dep:
                return None  # a term reads the chain, or the chain is subtracted
            name = a.name if a.name in dep else c.name
        elif isinstance(st, While):
            j = next(j for j, o in enumerate(st.outs) if o.name == name)
            if is_array(st.outs[j].type) or not _pass_through(st, j):
                return None
            name = st.inits[j].name
        elif isinstance(st, If) and st.cond.name not in dep:
            j = next(j for j, o in enumerate(st.outs) if o.name == name)
            starts = set()
            for b in (st.then, st.orelse):
                links[b.results[j].name] += 1  # the branch yields it
                starts.add(_origin(b, b.results[j].name, links, dep))
            if len(starts) != 1 or None in starts:
                return None
            name = starts.pop()
            continue  # the branches counted their uses of it
        else:
            return None
        links[name] += 1
    return name
