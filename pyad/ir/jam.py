"""Unroll and jam: a loop whose trips are independent, around inner loops that run the same
number of trips each time, runs LANES trips at once, their inner loops fused into one.

    for j in range(n):                       for j in range(0, n - 3, 4):   (while j + 3 < n)
        a = b[j]                                 a0, a1, a2, a3 = b[j], ..., b[j + 3]
        for f in range(m):            ->         for f in range(m):
            a += x[f] * w[f, j]                      a0 += x[f] * w[f, j]; ...; a3 += x[f] * w[f, j + 3]
        h[j] = tanh(a)                           h[j] = tanh(a0); ...; h[j + 3] = tanh(a3)
                                             for j in range(j, n): the loop as it was

A sum the user wrote is a chain of dependent adds, one add latency per trip (strict IEEE
keeps its order, so it cannot be split); four chains side by side run in the time of one, and
the lanes' elements `w[f, j..j+3]`, strided in the inner loop, are neighbours that SLP packs
into vectors. Each lane does the operations of its trip in the same order on the same
values, so every value has the bits of the loop alone; only the interleaving of different
trips changes, which the conditions below make unobservable:

- the loop counts with a constant step to a bound fixed in it (`loops.counted`, `i -= 1`
  too), and carries nothing else but values stepping by constants (the AD's trip counters);
- its inner loops at the top of its body count the same way with a start, bound and step
  fixed in the outer loop (every lane runs the same trips), and contain no loops;
- tape operations (push, pop) sit in one stretch of the body between inner loops, so the
  lanes push and pop in the order the trips did; no calls, no checkpoint marks;
- every array the body writes, other than arrays it allocates itself, is either
  * accessed (loads and writes) only through one array value, at one index on some axis
    that is the same non-negative affine function of the counter for every access: the lanes
    touch different elements; or
  * only added into (`accum`), in one stretch of the body, or in one inner loop at one
    index on some axis that is a non-negative affine function of the inner counter and of
    values fixed in the outer loop: an element then receives its contributions from the
    lanes at one inner trip, lane after lane, the order of the loop alone.

An index out of bounds still raises IndexError naming its line; when several trips of a
jammed loop would raise, the one reported may be a later trip's (docs/arrays.md).

Only loops with an inner loop that carries a float chain (fewer than LANES of them) or
reads or writes along the last axis at the outer counter are jammed: elsewhere LLVM's own
vectorizer does as well.
"""
from __future__ import annotations

from dataclasses import dataclass

from .builder import NameGen, names_of
from .loops import invariant_test
from .memory import VIEW_OPS, AliasClasses
from .nodes import F64, I64, Block, Func, If, Op, Stmt, Var, While, blocks_of, defined_in, \
    is_array, rename_note, walk
from .ops import OPS

__all__ = ["LANES", "jam_loops"]

#: trips run at once
LANES = 4

#: effects a jammed body may have besides memory writes: the tape, in one stretch; an error
_TAPE = frozenset({"push", "pop", "tapepeak"})
_ERRORS = frozenset({"raise_if"})
_ACCESS = frozenset({"load", "store", "accum"})


def jam_loops(func: Func) -> Func:
    """`func` with every loop the conditions above allow jammed (the same Func if none)."""
    if not any(isinstance(s, While) for s in walk(func.block)):
        return func
    consts = {s.outs[0].name: s.attrs[0] for s in walk(func.block)
              if isinstance(s, Op) and s.op == "const" and s.outs[0].type == I64}
    ctx = _Context(names_of(func), consts, AliasClasses(func.block))
    block, changed = _block(func.block, ctx)
    return Func(func.name, block, func.filename, func.arg_names) if changed else func


@dataclass
class _Context:
    names: NameGen
    consts: dict[str, int]
    classes: AliasClasses


def _block(block: Block, ctx: _Context) -> tuple[Block, bool]:
    body: list[Stmt] = []
    changed = False
    for s in block.body:
        if isinstance(s, While):
            plan = _plan(s, ctx)
            if plan is not None:
                body.extend(_jammed(s, plan, ctx))
                changed = True
                continue
        if isinstance(s, (If, While)):
            blocks = []
            for b in blocks_of(s):
                nb, ch = _block(b, ctx)
                blocks.append(nb)
                changed |= ch
            if isinstance(s, If):
                s = If(s.outs, s.cond, blocks[0], blocks[1], s.loc)
            else:
                s = While(s.outs, s.inits, blocks[0], blocks[1], s.loc, s.note)
        body.append(s)
    return Block(block.params, tuple(body), block.results), changed


# ----------------------------------------------------------------------------- analysis

@dataclass(frozen=True)
class _Count:
    """A counted loop: carried value k is the counter, tested by `test` ("lt"/"gt") against
    `bound`; `steps` maps every carried value's index to its constant step."""
    k: int
    bound: Var
    test: str
    steps: dict[int, int]
    low: int | None  # a lower bound of the counter in every trip, when known


def _count(loop: While, ctx: _Context, fixed, *, carries_more: bool = False) -> _Count | None:
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
    return _Count(k, bound, test.op, steps, low)


def _const(v: Var, ctx: _Context, local: dict) -> int | None:
    st = local.get(v.name)
    if st is not None:
        return st.attrs[0] if st.op == "const" and isinstance(st.attrs[0], int) else None
    c = ctx.consts.get(v.name)
    return c if isinstance(c, int) and not isinstance(c, bool) else None


def _affine(v: Var, counter: str, defs: dict, fixed, ctx: _Context):
    """`v` as coef * counter + offset: (coef, (offset value name or None, constant)), for
    add, sub, and mul by a constant over the counter, constants and values `fixed` accepts;
    None otherwise."""
    if v.name == counter:
        return 1, (None, 0)
    c = _const(v, ctx, {})
    if c is not None:
        return 0, (None, c)
    st = defs.get(v.name)
    if st is not None and st.op in ("add", "sub", "mul"):
        a, b = (_affine(x, counter, defs, fixed, ctx) for x in st.args)
        if a is None or b is None:
            return None
        if st.op == "mul":
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


def _separating(idx: Var, counter: str, count: _Count, defs: dict, fixed, ctx: _Context):
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
class _Plan:
    count: _Count
    inner: dict[int, _Count]  # body statement position -> count of that inner loop


def _plan(loop: While, ctx: _Context) -> _Plan | None:
    count = _count(loop, ctx, lambda v: True)
    if count is None:
        return None
    fixed = invariant_test(loop)
    counter = loop.body.params[count.k].name
    defs = {o.name: st for st in walk(loop.body) if isinstance(st, Op) for o in st.outs}
    inner: dict[int, _Count] = {}
    where: dict[int, object] = {}   # id(op) -> its stretch: ("s", n) or ("m", position)
    section = 0
    for pos, s in enumerate(loop.body.body):
        if isinstance(s, While):
            c = _count(s, ctx, fixed, carries_more=True)
            if c is None or not fixed(s.inits[c.k]) or any(isinstance(t, While) for t in walk(s.body)):
                return None
            inner[pos] = c
            for t in walk(s.body):
                where[id(t)] = ("m", pos)
            section += 1
            continue
        where[id(s)] = ("s", section)
        for b in blocks_of(s):
            for t in walk(b):
                where[id(t)] = ("s", section)
    if not inner or any(isinstance(t, Op) and OPS[t.op].memory for t in walk(loop.cond)):
        return None
    ops = [t for t in walk(loop.body) if isinstance(t, Op)]
    tape = set()
    for t in ops:
        row = OPS[t.op]
        if t.op in _TAPE:
            tape.add(where[id(t)])
        elif row.effect and t.op not in _ACCESS and t.op not in _ERRORS or row.lower[0] == "call":
            return None
    if len(tape) > 1 or any(w[0] == "m" for w in tape):
        return None
    if not _memory_ok(loop, ops, where, inner, count, counter, defs, fixed, ctx):
        return None
    if not any(_profitable(loop.body.body[pos], defs, counter, fixed, ctx) for pos in inner):
        return None
    return _Plan(count, inner)


def _memory_ok(loop, ops, where, inner, count, counter, defs, fixed, ctx) -> bool:
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
            return False
        else:   # reads whole arrays: none of them may be written by another lane
            for a in arrays:
                by_class.setdefault(classes.find(a.name), []).append(t)
    for root, accesses in by_class.items():
        if all(t.op == "load" for t in accesses):
            continue
        members = classes.members(root)
        if all(m in inside for m in members) and not any(
                m == p.name for m in members for p in loop.body.params):
            continue  # allocated in each trip: every lane has its own
        if not (_disjoint(accesses, counter, count, defs, fixed, ctx)
                or _added_in_order(accesses, where, inner, loop, defs, fixed, ctx)):
            return False
    return True


def _disjoint(accesses, counter, count, defs, fixed, ctx) -> bool:
    if any(t.op not in _ACCESS for t in accesses) or len({t.args[0] for t in accesses}) != 1:
        return False
    nidx = len(accesses[0].args) - (1 if accesses[0].op == "load" else 2)
    for axis in range(nidx):
        forms = {_separating(t.args[1 + axis], counter, count, defs, fixed, ctx)
                 for t in accesses}
        if None not in forms and len(forms) == 1:
            return True
    return False


def _added_in_order(accesses, where, inner, loop, defs, fixed, ctx) -> bool:
    if any(t.op != "accum" for t in accesses):
        return False
    stretches = {where[id(t)] for t in accesses}
    if len(stretches) != 1:
        return False
    kind, pos = next(iter(stretches))
    if kind == "s":
        return True
    m, count = loop.body.body[pos], inner[pos]
    counter = m.body.params[count.k].name
    nidx = len(accesses[0].args) - 2
    for axis in range(nidx):
        idx = {t.args[1 + axis] for t in accesses}
        if len(idx) == 1 and _separating(next(iter(idx)), counter, count, defs, fixed, ctx):
            return True
    return False


def _profitable(m: While, defs, counter, fixed, ctx) -> bool:
    """Whether inner loop `m` carries a float chain (fewer than LANES of them: more already
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
            form = _affine(last, counter, defs, fixed, ctx)
            if form is not None and form[0] != 0 and not all(map(walks, idx[:-1])):
                return True
    return False


# ----------------------------------------------------------------------------- rewriting

class _Cloner:
    """Copies statements with fresh names, uses renamed through `mapping` (updated)."""

    def __init__(self, names: NameGen, mapping: dict[str, Var]) -> None:
        self.names, self.mapping = names, mapping

    def use(self, v: Var) -> Var:
        return self.mapping.get(v.name, v)

    def define(self, v: Var) -> Var:
        self.mapping[v.name] = Var(self.names.fresh(v.name.split(".")[0]), v.type)
        return self.mapping[v.name]

    def block(self, blk: Block) -> Block:
        params = tuple(self.define(p) for p in blk.params)
        body = tuple(self.stmt(s) for s in blk.body)
        return Block(params, body, tuple(map(self.use, blk.results)))

    def stmt(self, s: Stmt) -> Stmt:
        if isinstance(s, Op):
            args = tuple(map(self.use, s.args))
            return Op(tuple(map(self.define, s.outs)), s.op, args, s.attrs, s.loc)
        if isinstance(s, If):
            cond, then, orelse = self.use(s.cond), self.block(s.then), self.block(s.orelse)
            return If(tuple(map(self.define, s.outs)), cond, then, orelse, s.loc)
        inits, cond, body = tuple(map(self.use, s.inits)), self.block(s.cond), self.block(s.body)
        return While(tuple(map(self.define, s.outs)), inits, cond, body, s.loc,
                     rename_note(s.note, self.use))


def _fresh(names: NameGen, vs) -> tuple[Var, ...]:
    return tuple(Var(names.fresh(v.name.split(".")[0]), v.type) for v in vs)


def _const_op(names: NameGen, value: int, loc) -> tuple[Op, Var]:
    v = Var(names.fresh(), I64)
    return Op((v,), "const", (), (value,), loc), v


def _jammed(loop: While, plan: _Plan, ctx: _Context) -> list[Stmt]:
    """The jammed loop, then `loop` itself running the trips that are left."""
    names, loc, count = ctx.names, loop.loc, plan.count
    # the condition: the last lane's counter passes the test
    cps = _fresh(names, loop.cond.params)
    cc = _Cloner(names, {p.name: q for p, q in zip(loop.cond.params, cps)})
    cbody = [cc.stmt(s) for s in loop.cond.body]
    op, step = _const_op(names, (LANES - 1) * count.steps[count.k], loc)
    last, go = Var(names.fresh("last"), I64), Var(names.fresh(), "bool")
    cbody += [op, Op((last,), "add", (cps[count.k], step), (), loc),
              Op((go,), count.test, (last, cc.use(count.bound)), (), loc)]
    cond = Block(cps, tuple(cbody), (go,))
    # the body: each lane's carried values, the statements lane by lane, the inner loops jammed
    bps = _fresh(names, loop.body.params)
    stmts: list[Stmt] = []

    def stepped(q: Var, by: int) -> Var:
        op, c = _const_op(names, by, loc)
        v = Var(names.fresh(q.name.split(".")[0]), I64)
        stmts.extend([op, Op((v,), "add", (q, c), (), loc)])
        return v
    lanes = [{p.name: (q if u == 0 else stepped(q, u * count.steps[j]))
              for j, (p, q) in enumerate(zip(loop.body.params, bps))} for u in range(LANES)]
    nexts = [stepped(q, LANES * count.steps[j]) for j, q in enumerate(bps)]
    run: list[Stmt] = []
    for pos, s in enumerate(loop.body.body + (None,)):
        if s is not None and pos not in plan.inner:
            run.append(s)
            continue
        for lane in lanes:
            cl = _Cloner(names, lane)
            stmts.extend(cl.stmt(t) for t in run)
        run = []
        if s is not None:
            stmts.append(_jam_inner(s, plan.inner[pos], lanes, names))
    body = Block(bps, tuple(stmts), tuple(nexts))
    outs = _fresh(names, loop.outs)
    jammed = While(outs, loop.inits, cond, body, loc)
    rest = While(loop.outs, outs, loop.cond, loop.body, loc, loop.note)
    return [jammed, rest]


def _jam_inner(m: While, count: _Count, lanes: list[dict[str, Var]], names: NameGen) -> While:
    """Inner loop `m` run for every lane at once: one counter, each lane's other carried
    values, the body lane after lane. Adds `m`'s outs to each lane's mapping."""
    k = count.k
    others = [j for j in range(len(m.inits)) if j != k]
    width = len(others)

    def carried(block: Block) -> list[Var]:
        return [Var(names.fresh("i"), I64)] + [Var(names.fresh("c"), block.params[j].type)
                                               for _ in lanes for j in others]
    inits = [lanes[0].get(m.inits[k].name, m.inits[k])] + [
        lane.get(m.inits[j].name, m.inits[j]) for lane in lanes for j in others]
    # the condition reads the counter and values fixed in the outer loop (lane 0's copies)
    cps = carried(m.cond)
    cc = _Cloner(names, dict(lanes[0]))
    cc.mapping.update({p.name: q for p, q in zip([m.cond.params[k]]
                                                 + [m.cond.params[j] for j in others], cps)})
    cond = Block(tuple(cps), tuple(cc.stmt(s) for s in m.cond.body),
                 tuple(map(cc.use, m.cond.results)))
    bps = carried(m.body)
    stmts: list[Stmt] = []
    results: list[Var] = []
    for u, lane in enumerate(lanes):
        cl = _Cloner(names, dict(lane))
        cl.mapping[m.body.params[k].name] = bps[0]
        for n, j in enumerate(others):
            cl.mapping[m.body.params[j].name] = bps[1 + u * width + n]
        stmts.extend(cl.stmt(s) for s in m.body.body)
        if u == 0:
            results.append(cl.use(m.body.results[k]))
        results += [cl.use(m.body.results[j]) for j in others]
    body = Block(tuple(bps), tuple(stmts), tuple(results))
    outs = [Var(names.fresh("i"), I64)] + [Var(names.fresh(m.outs[j].name.split(".")[0]),
                                                m.outs[j].type) for _ in lanes for j in others]
    for u, lane in enumerate(lanes):
        lane[m.outs[k].name] = outs[0]
        for n, j in enumerate(others):
            lane[m.outs[j].name] = outs[1 + u * width + n]
    return While(tuple(outs), tuple(inits), cond, body, m.loc)
