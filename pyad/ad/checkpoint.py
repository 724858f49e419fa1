"""Checkpointing a taped loop under a tape budget (`jit_grad(..., max_tape_bytes=N)`).

A taped loop (taped.py) pushes its plan's values at the end of every trip, so its tape grows
with the trip count. Under a budget of N bytes it keeps at most one *segment* of trips taped:

- forward: before the loop, a checkpoint (the carried values and the trip number, 0) goes on
  the tape. At the start of a trip, when the tape has grown by N/2 bytes or more since the
  last checkpoint, the trips taped since then are cut off the tape (`tapecut`, which notes
  the peak) and a checkpoint of the current carried values and trip number is pushed;
  a MemoryError names the loop's line when the checkpoints leave less than N/2 bytes of the
  budget. The loop also yields its trip count and the first trip of the last segment.
- reverse: segment by segment, last first. The last segment's trips are still on the tape:
  they are reversed as without a budget, and its checkpoint is dropped. For every earlier
  segment, the checkpoint is popped, the segment's trips re-run forward from it (pushing
  their taped values again), and are then reversed. Every reverse trip sees the values the
  unbudgeted forward trip pushed, and the adjoints are added in the same order: the gradient
  is bit for bit the unbudgeted one; the price is one more forward run of the segments
  before the last.

So the tape holds the checkpoints and at most N/2 bytes of trips (plus one trip): a loop of
T trips taping p bytes a trip, with c bytes of carried values, fits when T * c * 2p / N
<= N/2 bytes of checkpoints. The segments are found by the tape's size, not by a trip
count, so loops whose trip count is not known in advance (while loops, early exits) and
trips whose tape varies (inner loops) are cut the same way.

A trip can re-run from its carried values only when it reads no memory that was written
after it ran and writes none outside its own allocations (`refusal` says why not); such a
loop is taped as without a budget, and its plan says why.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.builder import Builder
from ..ir.loops import for_each, while_loop
from ..ir.memory import VIEW_OPS, WRITE_OPS, AliasClasses
from ..ir.nodes import BOOL, I64, Block, If, Op, Var, While, blocks_of, is_array, ndim_of, walk
from .close import Prefixed


#: The budget of `jit_grad(max_tape_bytes=None)`: none, the tape grows as the loops need.
DEFAULT_MAX_TAPE_BYTES = None


def budget(max_tape_bytes: int | None) -> "Budget | None":
    """The budget of `jit_grad(max_tape_bytes=...)`, checked."""
    n = DEFAULT_MAX_TAPE_BYTES if max_tape_bytes is None else max_tape_bytes
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"max_tape_bytes must be an int (bytes) or None, got {n!r}")
    if n < 1024:
        raise ValueError(f"max_tape_bytes={n} is too small: a budget is at least 1024 bytes")
    return Budget(n)


@dataclass(frozen=True)
class Budget:
    """A tape budget: `max_bytes` for the whole tape; loops cut a segment at half of it."""
    max_bytes: int

    @property
    def segment(self) -> int:
        return max(self.max_bytes // 2, 1)

    def plan(self) -> str:
        """The checkpoint line of a loop's printed plan."""
        return (f"the carried values and trip number each time the trips have taped "
                f"{_size(self.segment)} ({self.describe()}); the reverse re-runs each segment "
                "but the last from its checkpoint")

    def describe(self) -> str:
        return f"max_tape_bytes={_size(self.max_bytes)}"


def _size(n: int) -> str:
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k and n % k == 0:
            return f"{n // k} {unit}"
    return f"{n} bytes"


# ------------------------------------------------------------------ can a trip re-run?
def loops_written_after(block: Block, classes: AliasClasses) -> dict[int, frozenset[str]]:
    """For every loop of `block` (nested ones too), by id: the alias classes that may be
    written after it has run (by later statements of its block or of an enclosing block, or
    by later trips of an enclosing loop)."""
    found: dict[int, frozenset[str]] = {}

    def writes(s) -> set[str]:
        stmts = [s] if isinstance(s, Op) else [t for b in blocks_of(s) for t in walk(b)]
        return {classes.find(t.args[0].name) for t in stmts if isinstance(t, Op)
                and t.op in WRITE_OPS and t.args[0].name in classes.parent}

    def visit(blk: Block, later: set[str]) -> None:
        suffix: list[set[str]] = [set() for _ in range(len(blk.body) + 1)]
        for i in range(len(blk.body) - 1, -1, -1):
            suffix[i] = suffix[i + 1] | writes(blk.body[i])
        for i, s in enumerate(blk.body):
            after = later | suffix[i + 1]
            if isinstance(s, While):
                found[id(s)] = frozenset(after)
                around = after | writes(s)
                visit(s.cond, around)
                visit(s.body, around)
            elif isinstance(s, If):
                visit(s.then, after)
                visit(s.orelse, after)

    visit(block, set())
    return found


def refusal(s: While, forward: Block, pushes: list[Op], classes: AliasClasses,
            written_after: frozenset[str]) -> str | None:
    """Why loop `s` is not checkpointed, or None: its trips tape nothing, or cannot re-run
    from its carried values. `forward` is its body as the forward sweep runs it (inner
    loops pushing, branches exporting), ending with `pushes`; `written_after` the alias
    classes written after the loop."""
    if not pushes and not any(isinstance(st, Op) and st.op in ("push", "callfwd")
                              for st in walk(forward)):
        return "its trips tape nothing"
    if any(r.name in _adjoint_arrays(forward) for k, r in enumerate(forward.results)
           if k not in carried_shadows(forward)):
        return "an adjoint array made in a trip reaches the next one through a branch"
    local = _trip_arrays(forward)
    for st in walk(forward):
        if not isinstance(st, Op):
            continue
        line = f" (line {st.loc.line})" if st.loc else ""
        if st.op in ("call", "callfwd", "callbwd"):
            return f"it calls a natively compiled function{line}"
        if st.op in WRITE_OPS:
            if st.args[0].name not in local:
                return f"it writes into an array made before the loop{line}"
            continue
        if st.op in VIEW_OPS or st.op in ("dim", "push"):
            continue  # no element is read
        for a in st.args:
            if is_array(a.type) and a.name not in local and (
                    a.name not in classes.parent or classes.find(a.name) in written_after):
                return f"it reads an array written after the loop{line}"
    return None


def carried_shadows(body: Block) -> list[int]:
    """The carried values of a loop body that are adjoint (shadow) arrays a trip makes: the
    next trip's reverse adds into them, so after a segment re-runs (and makes new ones) the
    reverse copies the adjoints there (`reverse_loop`)."""
    made = {st.outs[0].name for st in walk(body)
            if isinstance(st, Op) and st.op == "alloc" and st.attrs == ("shadow",)}
    return [k for k, r in enumerate(body.results) if r.name in made]


def _adjoint_arrays(body: Block) -> set[str]:
    """Shadow arrays a trip makes, and the views, branch and inner-loop results that may be
    one of them."""
    found = {st.outs[0].name for st in walk(body)
             if isinstance(st, Op) and st.op == "alloc" and st.attrs == ("shadow",)}
    for _ in range(2):
        for st in walk(body):
            if isinstance(st, Op) and st.op in VIEW_OPS and st.args[0].name in found:
                found.add(st.outs[0].name)
            elif isinstance(st, If):
                found |= {o.name for k, o in enumerate(st.outs)
                          if {st.then.results[k].name, st.orelse.results[k].name} & found}
            elif isinstance(st, While):
                found |= {o.name for k, o in enumerate(st.outs)
                          if {st.inits[k].name, st.body.results[k].name} & found}
    return found


def _trip_arrays(body: Block) -> set[str]:
    """The arrays each trip of a loop with body `body` makes afresh: allocations in it,
    views of them, and branch or inner-loop results that are always such arrays."""
    local: set[str] = set()
    for _ in range(2):  # inner loops carrying arrays: a second round sees their params
        for st in walk(body):
            if isinstance(st, Op) and st.outs and is_array(st.outs[0].type):
                if st.op == "alloc" or st.op in VIEW_OPS and st.args[0].name in local:
                    local.add(st.outs[0].name)
            elif isinstance(st, If):
                for k, o in enumerate(st.outs):
                    if {st.then.results[k].name, st.orelse.results[k].name} <= local:
                        local.add(o.name)
            elif isinstance(st, While):
                for k, o in enumerate(st.outs):
                    if is_array(o.type) and {st.inits[k].name, st.body.results[k].name} <= local:
                        local |= {o.name, st.cond.params[k].name, st.body.params[k].name}
    return local


# ------------------------------------------------------------------ the forward loop
def forward_loop(names, s: While, body: Block, pushes: list[Op],
                 budget: Budget) -> tuple[Prefixed, Var, Var]:
    """The forward loop of `s` under `budget` (its body `body` as the forward sweep runs it,
    ending with `pushes`): the loop with its prologue, its trip count and the first trip of
    its last segment (forward values the reverse sweep reads)."""
    pb = Builder(names, s.loc)
    k0 = pb.const(0, I64)
    for v in s.inits:
        pb.emit("push", v)
    pb.emit("push", k0)
    m0 = pb.emit("tapemark", type=I64)
    k_b, m_b, l_b = (Var(names.fresh(h), I64) for h in ("k", "mark", "seg"))
    fb = Builder(names, s.loc)
    grown = fb.sub(fb.emit("tapemark", type=I64), m_b)
    cut = fb.ge(grown, fb.const(budget.segment, I64))
    tb = Builder(names, s.loc)
    tb.emit("tapecut", m_b)
    for v in body.params:
        tb.emit("push", v)
    tb.emit("push", k_b)
    m_new = tb.emit("tapemark", type=I64)
    full = tb.gt(tb.add(m_new, tb.const(budget.segment, I64)), tb.const(budget.max_bytes, I64))
    tb.emit("raise_if", full, attrs=("MemoryError", (
        f"the checkpoints of this loop leave less than half of {budget.describe()} for "
        "its trips' tape: pass a larger max_tape_bytes to jit_grad")))
    m2, l2 = Var(names.fresh("mark"), I64), Var(names.fresh("seg"), I64)
    fb.stmts.append(If((m2, l2), cut, Block((), tuple(tb.stmts), (m_new, k_b)),
                       Block((), (), (m_b, l_b)), s.loc))
    k_next = Builder(names, s.loc)
    nxt = k_next.add(k_b, k_next.const(1, I64))
    extra = tuple(Var(names.fresh(h), I64) for h in ("trips", "mark", "seg"))
    cps = tuple(Var(names.fresh(h), I64) for h in ("k", "mark", "seg"))
    loop = While(s.outs + extra, s.inits + (k0, m0, k0),
                 Block(s.cond.params + cps, s.cond.body, s.cond.results),
                 Block(body.params + (k_b, m_b, l_b),
                       tuple(fb.stmts) + body.body + tuple(pushes) + tuple(k_next.stmts),
                       body.results + (nxt, m2, l2)), s.loc, s.note)
    return Prefixed(tuple(pb.stmts), loop), extra[0], extra[2]


# ------------------------------------------------------------------ the reverse loop
def reverse_loop(names, s: While, body: Block, pushes: list[Op], trips: Var, last: Var,
                 carried: list[Var], b: Builder, reverse_trips) -> list[Var]:
    """Emit into `b` the reverse of `s` segment by segment (module docstring). `body` and
    `pushes` are the forward trip re-run for a segment; `trips` and `last` the forward
    loop's trip count and first trip of its last segment; `carried` the initial adjoints
    the reverse trips carry. `reverse_trips(builder, start, stop, carried)` emits the
    reverse trips start, ..., stop + 1 and returns the carried values after them.
    Returns the carried values after the whole reverse.

    The segment loop also carries, for each adjoint array the trips carry
    (`carried_shadows`), the one of the checkpoint of the segment reversed last: the
    re-run of the segment before it makes a new one, into which those adjoints are copied."""
    sh = carried_shadows(body)
    hi_c, first_c = Var(names.fresh("hi"), I64), Var(names.fresh("first"), BOOL)
    c_params = tuple(Var(names.fresh("c"), v.type) for v in carried)
    bnd_c = tuple(Var(names.fresh("bnd"), body.params[k].type) for k in sh)
    cb = Builder(names, s.loc)
    go = cb.select(first_c, cb.const(True, BOOL), cb.gt(hi_c, cb.const(0, I64)))
    hi, first = Var(names.fresh("hi"), I64), Var(names.fresh("first"), BOOL)
    b_params = tuple(Var(names.fresh("c"), v.type) for v in carried)
    bnd = tuple(Var(names.fresh("bnd"), body.params[k].type) for k in sh)
    sb = Builder(names, s.loc)
    # the first segment reversed is the last one run, still on the tape; for the others,
    # pop the checkpoint and re-run the segment's trips
    again = Builder(names, s.loc)
    j0, state = _pop_checkpoint(again, body.params)
    k = Var(names.fresh("k"), I64)
    count = Builder(names, s.loc)
    nxt = count.add(k, count.const(1, I64))
    trip = Block(body.params + (k,), body.body + tuple(pushes) + tuple(count.stmts),
                 body.results + (nxt,))
    ends = while_loop(again, [*state, j0], lambda cb2, ps: cb2.lt(ps[-1], hi),
                      lambda bb, ps: bb.inline(trip, ps))
    for pos, old in zip(sh, bnd):
        _copy(again, old, ends[pos])
    lo = Var(names.fresh("lo"), I64)
    starts = tuple(Var(names.fresh("bnd"), v.type) for v in bnd)
    sb.stmts.append(If((lo,) + starts, first, Block((), (), (last, *bnd)),
                       Block((), tuple(again.stmts), (j0, *(state[p] for p in sh))), s.loc))
    outs = reverse_trips(sb, hi, lo, list(b_params))
    drop = Builder(names, s.loc)
    _, dropped = _pop_checkpoint(drop, body.params)
    nb = tuple(Var(names.fresh("bnd"), v.type) for v in bnd)
    sb.stmts.append(If(nb, first, Block((), tuple(drop.stmts), tuple(dropped[p] for p in sh)),
                       Block((), (), starts), s.loc))
    results = (lo, sb.const(False, BOOL), *outs, *nb)
    o_hi, o_first = Var(names.fresh("hi"), I64), Var(names.fresh("first"), BOOL)
    o_carried = tuple(Var(names.fresh("c"), v.type) for v in carried)
    o_bnd = tuple(Var(names.fresh("bnd"), v.type) for v in bnd)
    b.stmts.append(While((o_hi, o_first) + o_carried + o_bnd,
                         (trips, b.const(True, BOOL), *carried, *(s.inits[p] for p in sh)),
                         Block((hi_c, first_c) + c_params + bnd_c, tuple(cb.stmts), (go,)),
                         Block((hi, first) + b_params + bnd, tuple(sb.stmts), results), s.loc))
    return list(o_carried)


def _copy(b: Builder, src: Var, dst: Var) -> None:
    """dst[...] = src[...] (arrays of one shape)."""
    dims = [b.emit("dim", dst, attrs=(d,), type=I64) for d in range(ndim_of(dst.type))]
    for_each(b, dims, lambda bb, idx: bb.emit("store", dst, *idx, bb.emit("load", src, *idx)))


def _pop_checkpoint(b: Builder, params: tuple[Var, ...]) -> tuple[Var, list[Var]]:
    """Pop a checkpoint (pushed as the carried values, then the trip number)."""
    j0 = b.emit("pop", type=I64)
    state = [b.emit("pop", type=p.type) for p in reversed(params)]
    return j0, state[::-1]

