"""Running sums split out of the loops that compute their terms, so the terms vectorize and
the sums keep their order.

    for i in range(n):                    for i0 in range(0, n, BLOCK):
        v = <work of trip i>                  for i in range(i0, min(n, i0 + BLOCK)):    # vectorizes
        s = s + v                 ->              buf[i - i0] = <work of trip i>
                                              for q in range(the trips of the block):      # in order
                                                  s = s + buf[q]

A float sum `s += v` in a loop is a chain of dependent adds: under strict IEEE rules its
order is fixed, so LLVM keeps a loop that carries one scalar, and with it the loop's other
work (the square roots, divisions, exponentials and gradient terms of every trip). Here
every trip's work runs first, a block of trips at a time, storing the terms of each sum in
a small buffer; then the terms are added, in the order the loop added them. Every value,
sum and gradient has the bits of the loop as written (the adds are the same adds in the same
order; nothing else moves), and the work loop carries no float chain, so LLVM vectorizes it
(LLVM's ordered-reduction vectorization did the same inside LLVM, and miscompiled some
loops: codegen/passes.py).

A loop is split when
- it counts up (`for i in range(lo, hi, step)`, `while i < n: ... i += step`: the counter
  tested only by `counter < bound`, the bound fixed before the loop, the step a positive
  constant);
- its body is straight-line code of ops that vectorize (`VECTOR_OPS`: arithmetic, compares,
  selects, sqrt and pyad's own exp/log/tanh kernels, loads, stores, accumulations, index
  normalization, pushes on the tape: a counted loop's pushes are stores at offsets of the
  trip, codegen/lower/emit.py `while_`): no inner loop, branch, call, pop or check but
  index checks and
  one division of floats (`/`, ZeroDivisionError: checked for the whole block after its
  trips, when nothing else in the work loop can raise and the body writes only arrays the
  function allocates or the gradient arrays it returns (`outputs`: the callers discard them
  when the call fails; the C library says they may be partly written), so no one sees what
  trips after the failing one wrote);
- it walks arrays along their last axis only (a stride LLVM can take to be 1);
- it carries at least one sum: a float value whose only use in the body is the first of a
  chain of `add`s (either operand) and `sub`s (`s - v`), each of whose results is used only
  by the next, the last being the value carried to the next trip (`s += a; s -= b`:
  several terms per trip, added in the order written);
- and the work of a trip, other than the sums' adds, is worth it (`_pays`: about more
  scalar operations than the CPU issues while the sums' adds wait for each other; a loop
  doing less is as fast scalar, its time the chain of adds).

The split loop runs when the loop has at least MIN_TRIPS trips to run and its counter stays
within CAP of 0 (no index computed from it can wrap), the loop as written otherwise: both are
compiled, and the test is on the counter's start and bound. A block checks the indices the
body would check, when they are the counter plus a constant or fixed in the loop, before
its trips: at its first and last trip (every index between lies between them). When they
are all in bounds and >= 0, the work loop reads and writes without checks (so it
vectorizes: LLVM cannot always prove the bounds of a loop nested this way); otherwise the
block runs the loop as written, which raises the IndexError at the trip that makes it.
Other carried values (the counter, trip counters, a value handed to the next trip) stay in
the work loop.

The pass runs after AD and unroll-and-jam on every kernel (pipeline.native). The buffers
are allocated once per call, at the top of the function, BLOCK floats per term of the loop
with the most terms, and shared by the loops split.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from .builder import Builder, NameGen, names_of
from .counting import range_bounds
from .loops import invariant_test, rewrite_outermost
from .memory import VIEW_OPS
from .nodes import BOOL, F64, I64, Block, Func, If, Op, Stmt, Var, While, walk

__all__ = ["BLOCK", "MIN_TRIPS", "split_bounds", "split_sums"]

#: trips per block: the terms of one sum in a block fill BLOCK floats (L1-resident)
BLOCK = 128

#: the cost model (`_pays`): cycles of an add, floats in a vector, the least gain per trip
LATENCY, LANES, MIN_GAIN = 4, 4, 1.0

#: the least number of trips a split loop runs split (it runs as written below that: a
#: short loop does not fill the vectors, and its sums wait for little work)
MIN_TRIPS = 32

#: the largest bound (in size) of a loop that is split
CAP = 2 ** 62

#: ops that LLVM vectorizes in a loop body, with their weight (about scalar operations)
_WEIGHT = {
    **dict.fromkeys(("add", "sub", "mul", "neg", "select", "abs", "max", "min", "fmaximum",
                     "fminimum", "copysign",
                     "floor", "ceil", "rint", "strongzero", "store", "accum",
                     "push"), 1.0),   # a push: a store at the trip's offset (emit.py)
    **dict.fromkeys(("lt", "le", "gt", "ge", "eq", "ne", "not", "tofloat", "tobool"), 0.5),
    "load": 0.5, "fdiv": 4.0, "div": 4.0, "sqrt": 6.0,
    **dict.fromkeys(("exp", "expm1", "log", "log1p", "tanh"), 20.0),  # codegen/lower/vecmath.py
}
#: ops that run on the one divide unit of a core (not two a cycle when scalar)
_DIVIDER = frozenset({"fdiv", "div", "sqrt"})
#: ops that cost nothing once vectorized, or are folded by LLVM
_FREE = frozenset({"const", "dim", "normidx", "wrapidx"})
VECTOR_OPS = frozenset(_WEIGHT) | _FREE


@dataclass(frozen=True)
class _Sum:
    k: int                                  # the index of the carried value
    ops: tuple[Op, ...]                     # its chain, in order
    terms: tuple[Var, ...]                  # what each op adds (or subtracts)


@dataclass(frozen=True)
class _Plan:
    k: int           # the counter's carried index
    step: int        # > 0
    bound: Var       # the counter runs while below it
    sums: tuple[_Sum, ...]
    checks: tuple = ()  # (normidx op, offset of its index from the counter, None: fixed)
    defs: dict = field(default_factory=dict)  # the body's ops, by the names they define
    div: Op | None = None  # a checked division (`/` of floats), checked for the block

    @property
    def n_terms(self) -> int:
        return sum(len(s.terms) for s in self.sums)


def split_sums(func: Func, outputs: frozenset[str] = frozenset()) -> Func:
    """`func` with every loop the conditions above allow split (the same Func if none).
    `outputs`: the names of array params that are gradients the callers discard when the
    call fails (the shadows of a gradient kernel)."""
    if not any(isinstance(s, While) for s in walk(func.block)):
        return func
    names = names_of(func)
    consts = {s.outs[0].name: s.attrs[0] for s in walk(func.block)
              if isinstance(s, Op) and s.op == "const" and s.outs[0].type == I64}
    local = set(outputs)  # arrays the function allocates or returns as gradients, and views
    for st in walk(func.block):
        if isinstance(st, Op) and (st.op == "alloc" or st.op in VIEW_OPS and st.args[0].name
                                   in local):
            local.add(st.outs[0].name)
    top = Builder(names)
    size = top.const(BLOCK, I64)
    buffers: list[Var] = []

    def rewrite(loop: While) -> list[Stmt] | None:
        plan = _plan(loop, consts, local)
        if plan is None:
            return None
        while len(buffers) < plan.n_terms:
            buffers.append(top.emit("alloc", size, type="f64[1d]", hint="terms"))
        return _guarded(loop, plan, buffers, names)
    block, changed = rewrite_outermost(func.block, rewrite)
    if not changed:
        return func
    block = Block(block.params, tuple(top.stmts) + block.body, block.results)
    return Func(func.name, block, func.filename, func.arg_names)


def split_bounds(loop: While, consts: dict[str, int]) -> tuple[Var, Var, int] | None:
    """(the counter's start, its bound, its step) if `split_sums` splits `loop` (it does
    when the loop runs MIN_TRIPS trips or more: `bound - start >= MIN_TRIPS * step`), as far
    as the loop itself tells (a division's check may still keep it whole); else None.
    `consts`: the function's int constants, by name."""
    plan = _plan(loop, consts, set())
    return None if plan is None else (loop.inits[plan.k], plan.bound, plan.step)


def _plan(loop: While, consts: dict[str, int], local: set[str]) -> _Plan | None:
    body = loop.body
    divs = [s for s in body.body if isinstance(s, Op) and s.op == "div"]
    if len(divs) > 1 or not all(isinstance(s, Op) and s.op in VECTOR_OPS or s in divs
                                for s in body.body):
        return None
    count = _count(loop, consts)
    if count is None or _strided(loop):
        return None
    uses: dict[str, list[Op | None]] = {}  # None: a use as a carried result
    for s in body.body:
        for a in s.args:
            uses.setdefault(a.name, []).append(s)
    for r in body.results:
        uses.setdefault(r.name, []).append(None)
    sums = [s for k, p in enumerate(body.params)
            if k != count[0] and (s := _chain(k, p, body.results[k], uses)) is not None]
    if not sums:
        return None
    chained = {id(op) for s in sums for op in s.ops}
    work = [s.op for s in body.body if id(s) not in chained
            and (not s.outs or s.outs[0].type != I64)]  # index arithmetic: folded
    if not _pays(sum(_WEIGHT.get(op, 0.0) for op in work),
                 sum(_WEIGHT[op] for op in work if op in _DIVIDER),
                 sum(len(s.ops) for s in sums), max(len(s.ops) for s in sums)):
        return None
    defs = {o.name: s for s in body.body for o in s.outs}
    checks = _checks(loop, count[0], consts, defs)
    if divs and not _deferrable(body, checks, local):
        return None
    return _Plan(*count, tuple(sums), checks, defs, divs[0] if divs else None)


def _strided(loop: While) -> bool:
    """Whether the body walks an array along an axis other than its last (a row of a
    matrix per trip): that stride is rarely 1, and LLVM vectorizes such loops for stride 1
    only (or with gathers), so the work loop would not vectorize."""
    inv = invariant_test(loop)
    for s in loop.body.body:
        if s.op in ("load", "store", "accum"):
            idx = s.args[1:] if s.op == "load" else s.args[1:-1]
            if any(not inv(i) for i in idx[:-1]):
                return True
    return False


def _deferrable(body: Block, checks: tuple, local: set[str]) -> bool:
    """Whether a block may check its division after its trips: nothing else in the work
    loop can raise (every index check is the block's) and the body writes only arrays the
    function allocates (after the error, nobody sees what later trips wrote)."""
    checked = {id(op) for op, _ in checks}
    return all(s.op != "normidx" or id(s) in checked for s in body.body) and \
        all(s.args[0].name in local for s in body.body if s.op in ("store", "accum"))


def _checks(loop: While, k: int, consts: dict[str, int], defs: dict[str, Op]) -> tuple:
    """The index checks of the body that a block can make before its trips: of an index
    that is the counter plus a constant, or fixed in the loop, into an axis fixed in it."""
    inv, counter = invariant_test(loop), loop.body.params[k]
    found = []
    for s in loop.body.body:
        if s.op != "normidx" or len(s.attrs) != 1 or not inv(s.args[1]):
            continue
        idx = s.args[0]
        if inv(idx):
            found.append((s, None))
            continue
        d = defs.get(idx.name)
        if idx == counter:
            found.append((s, 0))
        elif d is not None and d.op in ("add", "sub") and d.args[0] == counter \
                or d is not None and d.op == "add" and d.args[1] == counter:
            c = consts.get((d.args[1] if d.args[0] == counter else d.args[0]).name)
            if isinstance(c, int) and not isinstance(c, bool) and abs(c) <= 2 ** 32:
                found.append((s, c if d.op == "add" else -c))
    return tuple(found)


def _pays(work: float, divider: float, terms: int, longest: int) -> bool:
    """Whether splitting a loop saves time, by a model in cycles per trip of a CPU issuing two
    float operations a cycle, an add taking LATENCY cycles, vectors of LANES floats, and one
    unit for divisions and square roots (`divider`: their part of `work`): the loop as
    written takes the longest chain of adds or the issue of the other work, whichever is
    longer, and the divider's work on top (scalar divisions and square roots, of long
    latency, are not hidden behind the chain: measured, `s += m[i] / math.sqrt(x[i] ** 2 +
    0.01)` ran at 3.8 ns per trip as written and 1.0 split); the split loop the work in
    vectors, then the chains or their issue, plus a store and a load per term."""
    as_written = max(LATENCY * longest, (work - divider + terms) / 2) + divider
    split = work / (2 * LANES) + max(LATENCY * longest, terms / 2) + terms
    return as_written - split >= MIN_GAIN


def _count(loop: While, consts: dict[str, int]) -> tuple[int, int, Var] | None:
    """(carried index of the counter, its step, the bound) of a loop whose condition is only
    `counter < bound` (loops.range_bounds), the counter stepping by a constant from 1 to
    2**32. `consts`: the function's i64 constants."""
    found = range_bounds(loop)
    if found is None:
        return None
    k, _, bound, step = found
    step = step if isinstance(step, int) else consts.get(step.name)
    if not isinstance(step, int) or isinstance(step, bool) or not 0 < step <= 2 ** 32:
        return None
    return k, step, bound


def _chain(k: int, p: Var, result: Var, uses: dict) -> _Sum | None:
    """The sum carried as value k (param `p`, next value `result`), if it is one."""
    if p.type != F64:
        return None
    ops, terms, cur = [], [], p
    while True:
        u = uses.get(cur.name, [])
        if len(u) != 1:
            return None
        op = u[0]
        if op is None:  # carried to the next trip: the chain's end
            return _Sum(k, tuple(ops), tuple(terms)) if cur == result and ops else None
        if op.op == "add" and op.args[0] == cur and op.args[1] != cur:
            terms.append(op.args[1])
        elif op.op == "add" and op.args[1] == cur and op.args[0] != cur:
            terms.append(op.args[0])
        elif op.op == "sub" and op.args[0] == cur and op.args[1] != cur:
            terms.append(op.args[1])
        else:
            return None
        ops.append(op)
        cur = op.outs[0]


def _guarded(loop: While, plan: _Plan, buffers: list[Var], names: NameGen) -> list[Stmt]:
    """The split loop if the loop has at least MIN_TRIPS trips to run and its counter starts
    and ends within CAP of 0 (so neither the blocks' counters nor an index the counter plus
    a constant wraps), else a copy of the loop as written."""
    b = Builder(names, loop.loc)
    first, no = loop.inits[plan.k], b.const(False, BOOL)
    many = b.ge(b.sub(plan.bound, first), b.const(MIN_TRIPS * plan.step, I64))
    cap = b.const(CAP, I64)
    small = b.select(b.le(plan.bound, cap), b.ge(first, b.neg(cap)), no)
    go = b.select(many, small, no)
    tb = Builder(names, loop.loc)
    capped = tb.min(plan.bound, cap)  # the bound itself, here
    split = _split(loop, replace(plan, bound=capped), buffers, names)
    tb.stmts.append(split)
    counted = tuple(split.outs[-1] if j == plan.k else o for j, o in enumerate(split.outs[:-1]))
    copy = Builder(names, loop.loc)
    outs = copy.inline(Block((), (loop,), loop.outs), [])
    b.stmts.append(If(loop.outs, go, Block((), tuple(tb.stmts), counted),
                      Block((), tuple(copy.stmts), tuple(outs)), loop.loc))
    return b.stmts


def _split(loop: While, plan: _Plan, buffers: list[Var], names: NameGen) -> While:
    """The loop over blocks: each block runs the work loop and then the sums, or, when an
    index the body checks may be out of bounds in the block, the loop as written."""
    def fresh(vs) -> tuple[Var, ...]:
        return tuple(Var(names.fresh(v.name.split(".")[0]), v.type) for v in vs)

    ob = Builder(names, loop.loc)  # the body of the loop over blocks
    bp = fresh(loop.body.params)
    last = ob.add(bp[plan.k], ob.const(plan.step * BLOCK, I64))
    limit = ob.min(plan.bound, last)
    fast = Builder(names, loop.loc)
    nxt = _work_and_sums(fast, loop, plan, buffers, bp, limit)
    if plan.checks:
        slow = Builder(names, loop.loc)
        written = While(loop.outs, bp, Block(loop.cond.params, (Op(
            (loop.cond.results[0],), "lt", (loop.cond.params[plan.k], limit)),),
            loop.cond.results), loop.body, loop.loc)
        outs = slow.inline(Block((), (written,), loop.outs), [])
        ok = _in_bounds(ob, plan, bp[plan.k], limit)
        joined = fresh(nxt)
        ob.stmts.append(If(joined, ok, Block((), tuple(fast.stmts), tuple(nxt)),
                           Block((), tuple(slow.stmts), tuple(outs)), loop.loc))
        nxt = list(joined)
    else:
        ob.stmts += fast.stmts
    # the counter steps by whole blocks; its value after the loop is the work loop's last
    ocp = fresh(loop.cond.params) + (Var(names.fresh("i"), I64),)
    oc = Builder(names, loop.loc)
    go = oc.lt(ocp[plan.k], plan.bound)
    note = loop.note + (("\n" if loop.note else "") + f"in blocks of {BLOCK} trips: the "
                        "running sums' terms first, then the sums, in order "
                        "(pyad/ir/split_sums.py)",)
    outs_ = fresh(loop.outs)
    outs_ = outs_[:plan.k] + (Var(names.fresh("i"), I64),) + outs_[plan.k + 1:] + (outs_[plan.k],)
    results = tuple(last if k == plan.k else v for k, v in enumerate(nxt)) + (nxt[plan.k],)
    return While(outs_, loop.inits + (loop.inits[plan.k],), Block(ocp, tuple(oc.stmts), (go,)),
                 Block(bp + (Var(names.fresh("i"), I64),), tuple(ob.stmts), results),
                 loop.loc, note)


def _work_and_sums(b: Builder, loop: While, plan: _Plan, buffers: list[Var], bp, limit: Var):
    """Emit into `b` the block's work loop (the body as written, each sum's adds now stores
    of its terms, the checks of `plan.checks` left to the block) and then the sums, in the
    order the loop added them; the carried values after the block, in the loop's order."""
    names, body = b.names, loop.body
    kept = [k for k in range(len(body.params)) if k not in {s.k for s in plan.sums}]
    zero, one = b.const(0, I64), b.const(1, I64)
    slot = {}
    for s in plan.sums:
        for op, term in zip(s.ops, s.terms):
            slot[id(op)] = (buffers[len(slot)], term)
    q = Var(names.fresh("q"), I64)
    wb = Builder(names, loop.loc)
    flag = Var(names.fresh("zero"), BOOL) if plan.div is not None else None
    _work(wb, loop, plan, slot, q, flag)
    steps = (wb.add(q, one),) + ((wb.select(wb.eq(plan.div.args[1], wb.const(0.0)),
                                            wb.const(True, BOOL), flag),) if flag else ())
    fresh = lambda v: Var(names.fresh(v.name.split(".")[0]), v.type)  # noqa: E731
    extra = (q,) + ((flag,) if flag else ())
    cp = tuple(fresh(body.params[k]) for k in kept) + tuple(map(fresh, extra))
    cb = Builder(names, loop.loc)
    go = cb.lt(cp[kept.index(plan.k)], limit)
    outs = tuple(fresh(body.params[k]) for k in kept) + tuple(map(fresh, extra))
    b.stmts.append(While(
        outs, tuple(bp[k] for k in kept) + (zero,) + ((b.const(False, BOOL),) if flag else ()),
        Block(cp, tuple(cb.stmts), (go,)),
        Block(tuple(body.params[k] for k in kept) + extra, tuple(wb.stmts),
              tuple(body.results[k] for k in kept) + steps), loop.loc,
        unrolled=loop.unrolled))
    if flag:  # the division's check, for the whole block (docstring)
        b.stmts.append(Op((), "raise_if", (outs[-1],),
                          ("ZeroDivisionError", "float division by zero"), plan.div.loc))
        outs = outs[:-1]
    sp = (fresh(q),) + tuple(fresh(body.params[s.k]) for s in plan.sums)
    sb = tuple(map(fresh, sp))
    ab = Builder(names, loop.loc)
    acc, n = list(sb[1:]), 0
    for j, s in enumerate(plan.sums):
        for op in s.ops:
            acc[j] = ab.emit(op.op, acc[j], ab.load(buffers[n], sb[0]))
            n += 1
    q_next = ab.add(sb[0], one)
    sc = Builder(names, loop.loc)
    go2 = sc.lt(sp[0], outs[-1])  # the block's trips
    sums = tuple(map(fresh, sp))
    b.stmts.append(While(sums, (zero,) + tuple(bp[s.k] for s in plan.sums),
                         Block(sp, tuple(sc.stmts), (go2,)),
                         Block(sb, tuple(ab.stmts), (q_next, *acc)), loop.loc))
    nxt = dict(zip(kept, outs[:-1]))
    nxt.update((s.k, v) for s, v in zip(plan.sums, sums[1:]))
    return [nxt[k] for k in range(len(body.params))]


def _work(wb: Builder, loop: While, plan: _Plan, slot: dict, q: Var, flag: Var | None) -> None:
    """The body of the work loop: each sum's adds a store of its term at slot q, the checks
    of `plan.checks` left to the block, the division unchecked (the block checks `flag`)."""
    unchecked = {id(op) for op, _ in plan.checks}
    for s in loop.body.body:
        if id(s) in slot:
            wb.stmts.append(Op((), "store", (slot[id(s)][0], q, slot[id(s)][1]), (), s.loc))
        elif id(s) in unchecked:  # in bounds in this block, and >= 0: the index itself
            wb.stmts.append(Op(s.outs, "wrapidx", s.args, (s.attrs[0], True), s.loc))
        elif s is plan.div:
            wb.stmts.append(Op(s.outs, "fdiv", s.args, (), s.loc))
        else:
            wb.stmts.append(s)


def _in_bounds(b: Builder, plan: _Plan, first: Var, limit: Var) -> Var:
    """Whether every index of `plan.checks` is in bounds (and >= 0) in every trip of the
    block from counter `first` to `limit`: they are the counter plus a constant, or fixed
    in the loop, so the block's first and last trips decide."""
    step = b.const(plan.step, I64)
    gap = b.sub(b.sub(limit, first), b.const(1, I64))
    last = b.add(first, b.mul(b.floordiv(gap, step), step))
    ok = b.const(True, BOOL)
    zero = b.const(0, I64)
    copies: dict[str, Var] = {}
    for op, offset in plan.checks:
        n = _outside(b, op.args[1], plan.defs, copies)
        for at in ((first, last) if offset is not None else (None,)):
            idx = _outside(b, op.args[0], plan.defs, copies) if offset is None \
                else b.add(at, b.const(offset, I64))
            good = b.select(b.ge(idx, zero), b.lt(idx, n), b.const(False, BOOL))
            ok = b.select(ok, good, b.const(False, BOOL))
    return ok


def _outside(b: Builder, v: Var, defs: dict[str, Op], copies: dict[str, Var]) -> Var:
    """`v`, a value fixed in the loop, for use before the block: itself if it is defined
    outside the loop, else a copy of the pure ops the body computes it with."""
    op = defs.get(v.name)
    if op is None:
        return v
    if v.name not in copies:
        args = tuple(_outside(b, a, defs, copies) for a in op.args)
        copies[v.name] = b.emit(op.op, *args, attrs=op.attrs, type=v.type)
    return copies[v.name]
