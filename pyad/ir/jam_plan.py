"""What unroll and jam (jam.py) may do with a loop: `plan` checks the conditions of jam.py's
docstring and says which inner loops to fuse and which arrays each lane gets a copy of."""
from __future__ import annotations

from dataclasses import dataclass

from .builder import NameGen, names_of
from .counting import pure
from .loops import invariant_test
from .memory import VIEW_OPS, AliasClasses
from .nodes import F64, I64, Block, Func, Op, Var, While, blocks_of, defined_in, is_array, walk
from .ops import OPS
from .private import private_arrays
from .split_sums import split_bounds

__all__ = ["LANES", "Context", "Count", "Plan", "context", "plan"]

#: trips run at once
LANES = 4

#: effects a jammed body may have besides memory writes: the tape, in one stretch; an error
_TAPE = frozenset({"push", "pop", "tapepeak"})
_ERRORS = frozenset({"raise_if"})
_ACCESS = frozenset({"load", "store", "accum"})



@dataclass
class Context:
    names: NameGen
    consts: dict[str, int]
    classes: AliasClasses
    defs: dict[str, Op]
    private: dict[int, frozenset[str]]  # by id(loop): alias classes private to its trips


def context(func: Func) -> Context:
    """What `plan` reads of `func` (made once per function)."""
    consts = {s.outs[0].name: s.attrs[0] for s in walk(func.block)
              if isinstance(s, Op) and s.op == "const" and s.outs[0].type == I64}
    classes = AliasClasses(func.block)
    defs = {o.name: s for s in walk(func.block) if isinstance(s, Op) for o in s.outs}
    return Context(names_of(func), consts, classes, defs, private_arrays(func.block, classes))


@dataclass(frozen=True)
class Count:
    """A counted loop: carried value k is the counter, tested by `test` ("lt"/"gt") against
    `bound`; `steps` maps every carried value's index to its constant step."""
    k: int
    bound: Var
    test: str
    steps: dict[int, int]
    low: int | None  # a lower bound of the counter in every trip, when known


def _count(loop: While, ctx: Context, fixed, *, carries_more: bool = False) -> Count | None:
    """The counting of `loop` if its condition is `counter < bound` (step > 0) or `counter >
    bound` (step < 0), with the bound and every other value of the condition fixed in the
    loop (and accepted by `fixed`, a test of being fixed in an enclosing loop), and every
    carried value steps by a constant (only the counter with `carries_more`)."""
    defs = {st.outs[0].name: st for st in loop.body.body if isinstance(st, Op) and st.outs}
    steps: dict[int, int] = {}
    for j, (p, r) in enumerate(zip(loop.body.params, loop.body.results)):
        st = defs.get(r.name)
        c = None
        if p.type == I64 and st is not None and st.op in ("add", "sub") and st.args[0] == p:
            c = _const(st.args[1], ctx, defs)
        if c:
            steps[j] = c if st.op == "add" else -c
        elif not carries_more:
            return None
    test = next((st for st in loop.cond.body if isinstance(st, Op)
                 and st.outs == loop.cond.results), None)
    if test is None or test.op not in ("lt", "gt"):
        return None
    i, bound = test.args
    params = [p.name for p in loop.cond.params]
    if i.name not in params or params.index(i.name) not in steps:
        return None
    k = params.index(i.name)
    inv = invariant_test(loop)
    for st in loop.cond.body:
        if not isinstance(st, Op):
            return None
        if st is not test and not all(inv(o) and fixed(o) for o in st.outs):
            return None
    if not (inv(bound) and fixed(bound)) or (test.op == "lt") != (steps[k] > 0):
        return None
    if test.op == "lt":
        low = _const(loop.inits[k], ctx, {})
    else:
        b = _const(bound, ctx, {})
        low = None if b is None else b + 1
    return Count(k, bound, test.op, steps, low)


def _const(v: Var, ctx: Context, local: dict) -> int | None:
    st = local.get(v.name)
    if st is not None:
        return st.attrs[0] if st.op == "const" and isinstance(st.attrs[0], int) else None
    c = ctx.consts.get(v.name)
    return c if isinstance(c, int) and not isinstance(c, bool) else None


def _affine(v: Var, counter: str, defs: dict, fixed, ctx: Context):
    """`v` as coef * counter + offset: (coef, (offset value name or None, constant)), for
    add, sub, and mul by a constant over the counter, constants and values `fixed` accepts;
    None otherwise."""
    if v.name == counter:
        return 1, (None, 0)
    c = _const(v, ctx, {})
    if c is not None:
        return 0, (None, c)
    st = defs.get(v.name)
    if st is not None and st.op in ("add", "sub", "mul", "imul"):
        a, b = (_affine(x, counter, defs, fixed, ctx) for x in st.args)
        if a is None or b is None:
            return None
        if st.op in ("mul", "imul"):
            if a[0] == 0 and a[1][0] is None:
                a, b = b, a
            if b[0] != 0 or b[1][0] is not None or a[1][0] is not None and b[1][1] != 1:
                return None
            m = b[1][1]
            return a[0] * m, (a[1][0], a[1][1] * m)
        sign = 1 if st.op == "add" else -1
        if b[1][0] is not None and (sign < 0 or a[1][0] is not None):
            return None
        return a[0] + sign * b[0], (a[1][0] or b[1][0], a[1][1] + sign * b[1][1])
    if fixed(v):
        return 0, (v.name, 0)
    return None


def _separating(idx: Var, counter: str, count: Count, defs: dict, fixed, ctx: Context):
    """The affine form of index `idx` (through normidx/wrapidx) in `counter` if it varies
    with it and is never negative (so never wraps); None otherwise."""
    st = defs.get(idx.name)
    if st is not None and st.op in ("normidx", "wrapidx"):
        idx = st.args[0]
    form = _affine(idx, counter, defs, fixed, ctx)
    if form is None or form[0] <= 0 or form[1][0] is not None or count.low is None:
        return None
    if form[0] * count.low + form[1][1] < 0:
        return None
    return form


@dataclass(frozen=True)
class Plan:
    count: Count
    jammed: dict[int, Count]  # id(loop) -> its counting: the inner loops fused across lanes
    private: tuple[Op, ...]    # allocations before the loop whose arrays each lane gets anew
    short: tuple[tuple[Var, Var, int], ...] = ()  # the jammed loop runs while each of these
    # (start, bound, step) counts fewer than MIN_TRIPS trips (`_short`)


def plan(loop: While, ctx: Context) -> Plan | None:
    count = _count(loop, ctx, lambda v: True)
    if count is None or any(isinstance(t, Op) and OPS[t.op].memory for t in walk(loop.cond)):
        return None
    counter = loop.body.params[count.k].name
    defs = {o.name: st for st in walk(loop.body) if isinstance(st, Op) for o in st.outs}
    inside = defined_in(loop)
    shared: set[str] = set()  # the counters of the loops fused so far: one for all lanes

    def uniform(v: Var) -> bool:
        """Whether `v` has the same value in every lane (in the trips of a fused loop)."""
        memo: dict[str, bool] = {}

        def same(x: Var) -> bool:
            if x.name not in inside or x.name in shared:
                return True
            if x.name not in memo:
                memo[x.name] = False
                st = defs.get(x.name)
                memo[x.name] = st is not None and pure(st) and all(map(same, st.args))
            return memo[x.name]
        return same(v)

    jammed: dict[int, Count] = {}
    where: dict[int, tuple] = {}  # id(op) -> its stretch: ("s", n), ("m", loop id, n), ("deep",)

    def visit(body: Block, depth: int, owner: int) -> None:
        section = 0
        for s in body.body:
            c = _count(s, ctx, uniform, carries_more=True) if isinstance(s, While) else None
            if c is not None and uniform(s.inits[c.k]):
                jammed[id(s)] = c
                shared.update({s.body.params[c.k].name, s.cond.params[c.k].name})
                visit(s.body, depth + 1, id(s) if depth == 0 else owner)
                section += 1
                continue
            tag = ("s", section) if depth == 0 else ("m", owner, section) if depth == 1 \
                else ("deep",)
            for t in [s] + [t for blk in blocks_of(s) for t in walk(blk)]:
                where[id(t)] = tag
    visit(loop.body, 0, 0)
    if not jammed:
        return None
    ops = [t for t in walk(loop.body) if isinstance(t, Op)]
    tape = set()
    for t in ops:
        row = OPS[t.op]
        if t.op in _TAPE:
            tape.add(where.get(id(t), ("deep",)))
        elif row.effect and t.op not in _ACCESS and t.op not in _ERRORS or row.lower[0] == "call":
            return None
    if len(tape) > 1 or any(w[0] != "s" for w in tape):
        return None
    loops = {id(t): t for t in walk(loop.body) if isinstance(t, While)}
    private = _memory(loop, ops, where, jammed, loops, count, counter, defs, uniform, ctx)
    if private is None or not any(_profitable(loops[i], defs, counter, uniform, ctx)
                                  for i in jammed) \
            or _updates_lane_arrays(loop, [loops[i] for i in jammed], ctx):
        return None
    short = _short([loops[i] for i in jammed], defined_in(loop), ctx)
    return None if short is None else Plan(count, jammed, private, short)


def _short(fused: list[While], inside: set[str], ctx: Context):
    """The (start, bound, step) of each fused loop that split_sums splits when it runs
    MIN_TRIPS trips or more (a running sum of vectorizable terms, along the last axis):
    split, it runs as fast as the lanes would (its terms in vectors), and jammed, the work
    loop of four lanes does not vectorize (four exp a trip: 6.7 ns an element instead of
    2.0), so the jammed loop runs only while these loops have fewer trips, the loop as
    written (split) otherwise. None (do not jam) when a start or bound is computed in the
    loop, where the jammed loop's test cannot read it."""
    out = []
    for m in fused:
        found = split_bounds(m, ctx.consts)
        if found is not None:
            if found[0].name in inside or found[1].name in inside:
                return None
            out.append(found)
    return tuple(out)


def _updates_lane_arrays(loop: While, fused: list[While], ctx: Context) -> bool:
    """Whether a fused loop updates in place (loads and writes) an array each lane gets a
    copy of (`qxc[r] += a * xc[j]`, ADBench's GMM): the lanes' updates are then separate
    chains through memory, which neither pack into vectors nor overlap better than one lane
    after another (measured: that GMM's primal 2x slower jammed)."""
    private = ctx.private.get(id(loop), frozenset())
    if not private:
        return False
    for m in fused:
        ops = [t for t in walk(m.body) if isinstance(t, Op) and t.op in _ACCESS]
        read = {ctx.classes.find(t.args[0].name) for t in ops if t.op == "load"}
        if any(t.op != "load" and ctx.classes.find(t.args[0].name) in read & private
               for t in ops):
            return True
    return False


def _memory(loop, ops, where, jammed, loops, count, counter, defs, uniform, ctx):
    """The allocations to copy for each lane if every array the body writes passes the
    module docstring's conditions, else None."""
    inside = defined_in(loop)
    classes = ctx.classes
    by_class: dict[str, list[Op]] = {}
    for t in ops:
        arrays = [a for a in t.args if is_array(a.type)]
        if not arrays or t.op == "dim" or t.op in VIEW_OPS:
            continue
        if t.op in _ACCESS:
            by_class.setdefault(classes.find(t.args[0].name), []).append(t)
        elif OPS[t.op].memory not in ("read", "alloc") or OPS[t.op].effect:
            return None
        else:   # reads whole arrays: none of them may be written by another lane
            for a in arrays:
                by_class.setdefault(classes.find(a.name), []).append(t)
    private = ctx.private.get(id(loop), frozenset())
    copies: list[Op] = []
    for root, accesses in by_class.items():
        if all(t.op == "load" for t in accesses):
            continue
        members = classes.members(root)
        if all(m in inside for m in members) and not any(
                m == p.name for m in members for p in loop.body.params):
            continue  # allocated in each trip: every lane has its own
        if root in private:  # written before read in each trip: a copy for each lane
            copies += [ctx.defs[m] for m in members if m not in inside
                       and ctx.defs.get(m) is not None and ctx.defs[m].op == "alloc"]
            continue
        if not (_disjoint(accesses, counter, count, defs, uniform, ctx)
                or _added_in_order(accesses, where, jammed, loops, defs, uniform, ctx)):
            return None
    return tuple(copies)


def _disjoint(accesses, counter, count, defs, uniform, ctx) -> bool:
    if any(t.op not in _ACCESS for t in accesses) or len({t.args[0] for t in accesses}) != 1:
        return False
    nidx = len(accesses[0].args) - (1 if accesses[0].op == "load" else 2)
    for axis in range(nidx):
        forms = {_separating(t.args[1 + axis], counter, count, defs, uniform, ctx)
                 for t in accesses}
        if None not in forms and len(forms) == 1:
            return True
    return False


def _added_in_order(accesses, where, jammed, loops, defs, uniform, ctx) -> bool:
    if any(t.op != "accum" for t in accesses):
        return False
    stretches = {where.get(id(t), ("deep",)) for t in accesses}
    if len(stretches) != 1:
        return False
    stretch = next(iter(stretches))
    if stretch[0] == "s":
        return True
    if stretch[0] != "m":
        return False
    m, count = loops[stretch[1]], jammed[stretch[1]]
    counter = m.body.params[count.k].name
    nidx = len(accesses[0].args) - 2
    if any(len(t.args) - 2 != nidx for t in accesses):   # views of several ranks: unproven
        return False
    for axis in range(nidx):
        idx = {t.args[1 + axis] for t in accesses}
        if len(idx) == 1 and _separating(next(iter(idx)), counter, count, defs, uniform, ctx):
            return True
    return False


def _profitable(m: While, defs, counter, uniform, ctx) -> bool:
    """Whether fused loop `m` carries a float chain (fewer than LANES of them: more already
    overlap), or walks an array along one axis while the lanes' elements are neighbours on
    the last (`w[f, j]`, f the inner counter, j the outer one)."""
    chains = sum(1 for p, r in zip(m.body.params, m.body.results) if p.type == F64 and p != r)
    if 0 < chains < LANES:
        return True
    walks = invariant_test(m)
    for t in walk(m.body):
        if isinstance(t, Op) and t.op in _ACCESS:
            idx = t.args[1:len(t.args) - (0 if t.op == "load" else 1)]
            last = idx[-1]
            st = defs.get(last.name)
            if st is not None and st.op in ("normidx", "wrapidx"):
                last = st.args[0]
            form = _affine(last, counter, defs, uniform, ctx)
            if form is not None and form[0] != 0 and not all(map(walks, idx[:-1])):
                return True
    return False
