"""Reversing a loop with the tape, following its plan (plan.py).

The reverse trip is first written against the forward names (the fills re-run, then the
adjoint of the body); the plan then says how each forward value it reads comes back, and
the emission follows it:

- the forward loop (recorded in the Reverser's `subst`) gains a trip counter and, at the
  end of each trip, pushes the taped values;
- the reverse loop runs the same number of trips (from the bounds or the counter), pops
  them, rebuilds counters, re-creates constants and recomputes the rest, and carries the
  adjoints of the carried values and of the outer values the body reads.

Under a tape budget (`Reverser.budget`), a loop whose trips can re-run (rerun.py) keeps
checkpoints instead and its reverse goes segment by segment (checkpoint.py).
"""
from __future__ import annotations

from dataclasses import replace

from ..ir.builder import Builder
from ..errors import PyadInternalError
from ..ir.nodes import F64, I64, Block, Note, Op, Stmt, Var, While, free_vars, rename_block, walk
from ..ir.counting import range_bounds
from ..ir.opt import cse_block, dce_block
from . import checkpoint
from .close import Prefixed, as_run_again, export, substitute
from .plan import LoopPlan, plan_loop
from .refill import refills
from .rerun import Rerun, analyse


def reverse_taped(rv, s: While, act: list[int], cts: list, adj: dict[str, Var],
                  b: Builder) -> None:
    """Emit into `b` the reverse loop of `s` and record its forward loop in `rv.subst`.
    `act` are the indices of its active f64 carried values, `cts` their cotangents."""
    b.loc = s.loc
    fills, late = refills(s.body, rv.classes, rv.rereadable, rv.defs, rv.may_refill)
    late -= rv.rereadable
    rv.rereadable |= late
    trip = _reverse_trip(rv, s, act, fills)
    plan = plan_loop(s, trip.forward, trip.block, fills, late, rv.rereadable, rv.stored)
    rv.rereadable -= late
    rbody, forward, pushes, copies = _follow(rv, s, plan, trip)
    rerun = None if rv.budget is None else analyse(
        forward, pushes, rv.classes, rv.written_after.get(id(s), frozenset()))
    if isinstance(rerun, Rerun):
        note = replace(plan, trips_from_bounds=False).note(copies, rv.budget.plan(rerun))
        _checkpointed(rv, s, rerun, note, act, cts, trip, rbody, forward, pushes, adj, b)
        return
    _forward_loop(rv, s, forward, pushes)
    note = plan.note(copies, rerun and f"none, {rerun}")  # no budget, or why not
    _reverse_loop(rv, s, plan, note, act, cts, trip, rbody, adj, b)


def _checkpointed(rv, s: While, rerun: Rerun, note: Note, act: list[int], cts: list,
                  trip: "_Trip", rbody: Block, forward: Block, pushes: list[Op],
                  adj: dict[str, Var], b: Builder) -> None:
    """The forward and reverse loops of `s` under the budget (checkpoint.py)."""
    loop, trips, last = checkpoint.forward_loop(rv.names, s, forward, pushes, rv.budget, rerun)
    rv.subst[id(s)] = loop

    def reverse_trips(sb: Builder, start: Var, stop: Var, carried: list[Var]) -> list[Var]:
        return _reverse_trips(rv.names, s, note, rbody, sb, start, stop, carried)
    outs = checkpoint.reverse_loop(rv.names, s, forward, pushes, rerun, trips, last,
                                   _carried_inits(s, act, cts, trip, b), b, reverse_trips)
    _accumulate_outs(rv, s, act, trip, outs, adj, b)


class _Trip:
    """The reverse trip written against the forward names: its block (params: the trip
    counter, the carried adjoints, the accumulators of outer adjoints), the outer values
    whose adjoints it accumulates, and the forward body as the forward sweep runs it
    (nested loops counting trips and pushing)."""

    def __init__(self, block: Block, outer: list[str], forward: Block) -> None:
        self.block = block
        self.outer = outer
        self.forward = forward

    @property
    def counter(self) -> Var:
        return self.block.params[0]


def _reverse_trip(rv, s: While, act: list[int], fills: list[While]) -> _Trip:
    names, body = rv.names, s.body
    rb = Builder(names, s.loc)
    for fill in fills:
        rb.inline(Block((), (as_run_again(fill),), ()), [])
    adjc = {k: Var(names.adjoint(body.params[k].name), F64) for k in act}
    local: dict[str, Var] = {}
    for k in act:
        if body.results[k].name in rv.active:
            rv.accumulate(rb, local, body.results[k], adjc[k])
    with rv.inside_loop():
        rv.reverse(body.body, local, rb)
    forward = substitute(body, rv.subst)
    inner = {p.name for p in forward.params} | {o.name for st in walk(forward) for o in st.outs}
    new_adjc = [local.pop(body.params[k].name, None) or rb.const(0.0) for k in act]
    outer = [n for n in local if n not in inner]  # in the order the reverse met them
    acc_in = [Var(names.fresh("acc"), F64) for _ in outer]
    acc_out = [rb.add(a, local[n]) for a, n in zip(acc_in, outer)]
    cnt = Var(names.fresh("trip"), I64)
    next_cnt = rb.sub(cnt, rb.const(1, I64))
    params = (cnt,) + tuple(adjc[k] for k in act) + tuple(acc_in)
    block = dce_block(cse_block(Block(params, tuple(rb.stmts),
                                      (next_cnt, *new_adjc, *acc_out))), set())
    if not all(isinstance(st, While) for st in block.body[:len(fills)]):
        raise PyadInternalError("the re-run fills are not the first statements of a reverse "
                                "trip")
    return _Trip(block, outer, forward)


def _follow(rv, s: While, plan: LoopPlan,
            trip: _Trip) -> tuple[Block, Block, list[Op], dict[str, Var]]:
    """The reverse trip with every forward value it reads brought back as the plan says;
    the forward body with the taped values exported from its branches; the pushes the
    forward trip ends with; and the values brought back, by forward name."""
    names = rv.names
    mapping: dict[str, Var] = {}
    prologue: list[Stmt] = []

    def fresh(v: Var) -> Var:
        mapping[v.name] = Var(names.fresh(v.name), v.type)
        return mapping[v.name]

    for c in plan.consts:
        prologue.append(Op((fresh(c.outs[0]),), "const", (), c.attrs, s.loc))
    for v, step, init in plan.counters:  # at reverse trip t: init + (t - 1) * step
        pb = Builder(names, s.loc)
        if isinstance(step, int):
            step = pb.const(step, I64)
        j = pb.sub(trip.counter, pb.const(1, I64))
        pb.stmts.append(Op((fresh(v),), "add", (init, pb.mul(j, step)), (), s.loc))
        prologue += pb.stmts
    for v, final in plan.finals:
        mapping[v.name] = final
    lift: dict[str, Var] = {}
    body = export(trip.forward, {v.name for v in plan.taped}, lift, names)
    pushes = [Op((), "push", (lift.get(v.name, v),), (), s.loc) for v in plan.taped]
    for v in reversed(plan.taped):
        prologue.append(Op((fresh(v),), "pop", (), (), s.loc))
    late: list[Stmt] = []
    for st in map(as_run_again, plan.recomputed):
        new = Op((fresh(st.outs[0]),), st.op, st.args, st.attrs, st.loc)
        (late if st.outs[0].name in plan.after_fills else prologue).append(new)
    n = len(plan.fills)
    stmts = tuple(prologue) + trip.block.body[:n] + tuple(late) + trip.block.body[n:]
    rbody = rename_block(Block(trip.block.params, stmts, trip.block.results), mapping)
    return rbody, body, pushes, mapping


def _forward_loop(rv, s: While, body: Block, pushes: list[Op]) -> None:
    """The forward loop: one more carried value counts the trips; each trip ends with the
    pushes."""
    names = rv.names
    k_c, k_b = Var(names.fresh("k"), I64), Var(names.fresh("k"), I64)
    fb = Builder(names, s.loc)
    k_next = fb.add(k_b, fb.const(1, I64))
    zero = Op((Var(names.fresh("k0"), I64),), "const", (), (0,), s.loc)
    trips = Var(names.fresh("trips"), I64)
    loop = While(s.outs + (trips,), s.inits + (zero.outs[0],),
                 Block(s.cond.params + (k_c,), s.cond.body, s.cond.results),
                 Block(body.params + (k_b,), body.body + tuple(pushes) + tuple(fb.stmts),
                       body.results + (k_next,)), s.loc, s.note)
    rv.subst[id(s)] = Prefixed((zero,), loop)


def _reverse_loop(rv, s: While, plan: LoopPlan, note: Note, act: list[int], cts: list,
                  trip: _Trip, rbody: Block, adj: dict[str, Var], b: Builder) -> None:
    trips = _range_trips(s, b) if plan.trips_from_bounds else rv.subst[id(s)].stmt.outs[-1]
    outs = _reverse_trips(rv.names, s, note, rbody, b, trips, None,
                          _carried_inits(s, act, cts, trip, b))
    _accumulate_outs(rv, s, act, trip, outs, adj, b)


def _carried_inits(s: While, act: list[int], cts: list, trip: _Trip, b: Builder) -> list[Var]:
    """What the reverse trips start from: the cotangents of the active carried values, and
    zero for the adjoints of the outer values they accumulate."""
    return [cts[k] if cts[k] is not None else b.const(0.0) for k in act] \
        + [b.const(0.0) for _ in trip.outer]


def _reverse_trips(names, s: While, note: Note, rbody: Block, b: Builder, start: Var,
                   stop: Var | None, carried: list[Var]) -> list[Var]:
    """Emit into `b` the reverse trips start, start - 1, ..., stop + 1 (stop: 0 when None)
    carrying `carried`; the carried values after them."""
    rc = Builder(names, s.loc)
    cparams = tuple(Var(names.fresh(p.name), p.type) for p in rbody.params)
    go = rc.gt(cparams[0], stop if stop is not None else rc.const(0, I64))
    outs = tuple(Var(names.fresh(p.name), p.type) for p in rbody.params)
    b.stmts.append(While(outs, (start, *carried), Block(cparams, tuple(rc.stmts), (go,)), rbody,
                         s.loc, note))
    return list(outs[1:])


def _accumulate_outs(rv, s: While, act: list[int], trip: _Trip, outs: list[Var],
                     adj: dict[str, Var], b: Builder) -> None:
    """Add the adjoints the reverse of `s` ends with to those of the loop's inits and of the
    outer values its body reads."""
    for k, o in zip(act, outs):
        if s.inits[k].name in rv.active:
            rv.accumulate(b, adj, s.inits[k], o)
    by_name = {v.name: v for blk in (s.cond, s.body) for v in free_vars(blk)}
    for n, o in zip(trip.outer, outs[len(act):]):
        rv.accumulate(b, adj, by_name[n], o)


def _range_trips(s: While, b: Builder) -> Var:
    """The trip count of a counted loop (loops.range_bounds) computed in `b` from its bounds,
    max(0, ceil((hi - lo) / step)). Counted trips of an inner loop would be taped by the
    outer one; the bounds usually are not."""
    _, lo, hi, step = range_bounds(s)
    if isinstance(step, int):
        step = b.const(step, I64)
    # a loop that ran at all had step > 0 (else it would not have ended); guard the division
    one = b.const(1, I64)
    step1 = b.max(step, one)
    n = b.floordiv(b.add(b.sub(hi, lo), b.sub(step1, one)), step1)
    return b.select(b.gt(hi, lo), n, b.const(0, I64))
