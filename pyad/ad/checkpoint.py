"""Checkpointing a taped loop under a tape budget (`jit_grad(..., max_tape_bytes=N)`).

A taped loop (taped.py) pushes its plan's values at the end of every trip, so its tape grows
with the trip count. Under a budget of N bytes it keeps at most one *segment* of trips taped:

- forward: before the loop, a checkpoint (the carried values and the trip number, 0) goes on
  the tape; a segment is half of what the budget leaves then (N/2 for a loop that starts on
  an empty tape, less for an inner loop). At the start of a trip, when the tape has grown by
  a segment or more since the last checkpoint, the trips taped since then are cut off the
  tape (`tapecut`, which notes the peak) and a checkpoint of the current carried values and
  trip number is pushed; a MemoryError names the loop's line when a checkpoint leaves no
  room for a segment under the budget (the first one too: a state too large for it). The
  loop also yields its trip count and the first trip of the last segment.
- reverse: segment by segment, last first. The last segment's trips are still on the tape:
  they are reversed as without a budget, and its checkpoint is dropped. For every earlier
  segment, the checkpoint is popped, the segment's trips re-run forward from it (pushing
  their taped values again), and are then reversed. Every reverse trip sees the values the
  unbudgeted forward trip pushed, and the adjoints are added in the same order: the gradient
  is bit for bit the unbudgeted one; the price is one more forward run of the segments
  before the last.

So the tape holds the checkpoints and at most a segment of trips (plus one trip), never more
than N bytes but for one trip's: a loop of T trips taping p bytes a trip, with c bytes of
carried values, fits when its T * c * 2p / N bytes of checkpoints stay under N/2. The
segments are found by the tape's size, not by a trip count, so loops whose trip count is not
known in advance (while loops, early exits) and trips whose tape varies (inner loops) are
cut the same way.

A trip can re-run from its carried values only when it reads no memory that was written
after it ran, and the arrays made before the loop that it writes are restored from the
checkpoint (rerun.py says what a checkpoint holds, or why a loop cannot re-run); a loop that
cannot is taped as without a budget, and its plan says why.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

from ..ir.builder import Builder, NameGen
from ..ir.loops import for_each, for_range, while_loop
from ..ir.nodes import BOOL, I64, Block, If, Op, Var, While, elem_type, ndim_of
from .close import Prefixed, as_run_again
from .rerun import Rerun


#: The budget of `jit_grad(max_tape_bytes=None)`: none, the tape grows as the loops need.
DEFAULT_MAX_TAPE_BYTES = None


def budget(max_tape_bytes: int | None) -> "Budget | None":
    """The budget of `jit_grad(max_tape_bytes=...)`, checked."""
    n = DEFAULT_MAX_TAPE_BYTES if max_tape_bytes is None else max_tape_bytes
    if n is None:
        return None
    try:
        if isinstance(n, bool):
            raise TypeError
        n = operator.index(n)  # Python and NumPy integers
    except TypeError:
        raise TypeError(f"max_tape_bytes must be an int (bytes) or None, got {n!r}") from None
    if n < 1024:
        raise ValueError(f"max_tape_bytes={n} is too small: a budget is at least 1024 bytes")
    return Budget(n)


@dataclass(frozen=True)
class Budget:
    """A tape budget: `max_bytes` for the whole tape."""
    max_bytes: int

    def plan(self, rerun: Rerun) -> str:
        """The checkpoint line of a loop's printed plan."""
        n = len(rerun.carried) + len(rerun.outer)
        arrays = f", the contents of {n} array{'s' if n > 1 else ''} it writes" if n else ""
        return (f"the carried values{arrays} and the trip number each time the trips have taped "
                f"half of what {self.describe()} leaves when the loop starts; the reverse "
                "re-runs each segment but the last from its checkpoint")

    def describe(self) -> str:
        return f"max_tape_bytes={_size(self.max_bytes)}"


def _size(n: int) -> str:
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k and n % k == 0:
            return f"{n // k} {unit}"
    return f"{n} bytes"


# ------------------------------------------------------------------ the forward loop
def forward_loop(names: NameGen, s: While, body: Block, pushes: list[Op], budget: Budget,
                 rerun: Rerun) -> tuple[Prefixed, Var, Var]:
    """The forward loop of `s` under `budget` (its body `body` as the forward sweep runs it,
    ending with `pushes`; what its checkpoints hold: `rerun`): the loop with its prologue,
    its trip count and the first trip of its last segment (forward values the reverse
    sweep reads)."""
    pb = Builder(names, s.loc)
    k0 = pb.const(0, I64)
    _push_checkpoint(pb, list(s.inits), k0, rerun)
    m0 = pb.emit("tapemark", type=I64)
    # a segment: half of what the budget leaves when the loop starts (an inner loop starts
    # above its outer loop's checkpoints and segment)
    seg = pb.floordiv(pb.sub(pb.const(budget.max_bytes, I64), m0), pb.const(2, I64))
    _check_room(pb, m0, seg, budget)
    k_b, m_b, l_b = (Var(names.fresh(h), I64) for h in ("k", "mark", "seg"))
    fb = Builder(names, s.loc)
    grown = fb.sub(fb.emit("tapemark", type=I64), m_b)
    cut = fb.ge(grown, seg)
    tb = Builder(names, s.loc)
    tb.emit("tapecut", m_b)
    _push_checkpoint(tb, list(body.params), k_b, rerun)
    m_new = tb.emit("tapemark", type=I64)
    _check_room(tb, m_new, seg, budget)
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
def reverse_loop(names: NameGen, s: While, body: Block, pushes: list[Op], rerun: Rerun,
                 trips: Var, last: Var, carried: list[Var], b: Builder,
                 reverse_trips) -> list[Var]:
    """Emit into `b` the reverse of `s` segment by segment (module docstring). `body` and
    `pushes` are the forward trip re-run for a segment; `trips` and `last` the forward
    loop's trip count and first trip of its last segment; `carried` the initial adjoints
    the reverse trips carry. `reverse_trips(builder, start, stop, carried)` emits the
    reverse trips start, ..., stop + 1 and returns the carried values after them.
    Returns the carried values after the whole reverse.

    The segment loop also carries, for each adjoint array the trips carry
    (`carried_shadows`), the one of the checkpoint of the segment reversed last: the
    re-run of the segment before it makes a new one, into which those adjoints are copied.
    The arrays the loop writes are copied before and restored after."""
    sh = rerun.shadows
    where = f" at line {s.loc.line}" if s.loc else ""
    kept = [s.outs[k] for k in rerun.carried] + list(rerun.outer)
    copies = [_copy(b, a, None) for a in kept]
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
    j0, state = _pop_checkpoint(again, body.params, rerun)
    k = Var(names.fresh("k"), I64)
    count = Builder(names, s.loc)
    nxt = count.add(k, count.const(1, I64))
    trip = Block(body.params + (k,),  # run before: its index checks passed
                 tuple(map(as_run_again, body.body)) + tuple(pushes) + tuple(count.stmts),
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
    _, dropped = _pop_checkpoint(drop, body.params, rerun)
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
                         Block((hi, first) + b_params + bnd, tuple(sb.stmts), results), s.loc,
                         (f"segments of the loop{where}, last first: each but the last re-runs "
                          "from its checkpoint, then its trips are reversed",)))
    for a, c in zip(kept, copies):
        _copy(b, c, a)
    return list(o_carried)


def _check_room(b: Builder, mark: Var, seg: Var, budget: Budget) -> None:
    """After a checkpoint, with `mark` bytes on the tape: a MemoryError when the budget has
    no room left for a segment of `seg` bytes (at least 1)."""
    full = b.select(b.lt(seg, b.const(1, I64)), b.const(True, BOOL),
                    b.gt(b.add(mark, seg), b.const(budget.max_bytes, I64)))
    b.emit("raise_if", full, attrs=("MemoryError", (
        f"the checkpoints of this loop leave no room under {budget.describe()} for its "
        "trips' tape: pass a larger max_tape_bytes to jit_grad")))


def _copy(b: Builder, src: Var, dst: Var | None) -> Var:
    """dst[...] = src[...] (arrays of one shape); dst None: a new array."""
    dims = [b.emit("dim", src, attrs=(d,), type=I64) for d in range(ndim_of(src.type))]
    if dst is None:
        dst = b.emit("alloc", *dims, type=src.type)
    for_each(b, dims, lambda bb, idx: bb.emit("store", dst, *idx, bb.emit("load", src, *idx)))
    return dst


def _push_checkpoint(b: Builder, state: list[Var], trip: Var, rerun: Rerun) -> None:
    """Push a checkpoint: the contents of the arrays the loop writes (`rerun`), the carried
    values `state`, the trip number."""
    for a in _written(state, rerun):
        _each(b, a, False, lambda bb, idx, a=a: bb.emit("push", bb.emit("load", a, *idx)))
    for v in state:
        b.emit("push", v)
    b.emit("push", trip)


def _pop_checkpoint(b: Builder, params: tuple[Var, ...],
                    rerun: Rerun) -> tuple[Var, list[Var]]:
    """Pop a checkpoint, restoring the arrays the loop writes; its trip number and carried
    values."""
    j0 = b.emit("pop", type=I64)
    state = [b.emit("pop", type=p.type) for p in reversed(params)][::-1]
    for a in reversed(_written(state, rerun)):
        _each(b, a, True, lambda bb, idx, a=a: bb.emit(
            "store", a, *idx, bb.emit("pop", type=elem_type(a.type))))
    return j0, state


def _written(state: list[Var], rerun: Rerun) -> list[Var]:
    return [state[k] for k in rerun.carried] + list(rerun.outer)


def _each(b: Builder, a: Var, backwards: bool, body) -> None:
    """`body(builder, index)` for every element of `a`, in row-major order or backwards."""
    dims = [b.emit("dim", a, attrs=(d,), type=I64) for d in range(ndim_of(a.type))]
    size = b.const(1, I64)
    for d in dims:
        size = b.mul(size, d)

    def element(bb: Builder, t: Var, _) -> list:
        flat = bb.sub(bb.sub(size, bb.const(1, I64)), t) if backwards else t
        idx = []
        for d in reversed(dims):
            idx.append(bb.mod(flat, d))
            flat = bb.floordiv(flat, d)
        body(bb, idx[::-1])
        return []
    for_range(b, size, [], element)
