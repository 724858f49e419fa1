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

- the loop counts with a constant step to a bound fixed in it (`i -= 1` too), and carries
  nothing else but values stepping by constants (the AD's trip counters);
- a loop in its body (at the top, or at the top of a fused loop's body, any depth) is fused
  when it counts the same way with a start, bound and step that are the same in every lane
  (fixed in the outer loop, or computed from the counters of fused loops around it:
  `for c in range(r)` inside `for r in range(d)`); other inner loops run lane after lane;
- tape operations (push, pop) sit in one stretch of the body outside fused loops, so the
  lanes push and pop in the order the trips did; no calls, no checkpoint marks;
- every array the body writes, other than arrays it allocates itself, is either
  * private to the trips (ir/private.py: each trip writes it completely before reading
    it, nothing after the loop reads it): lanes 1..3 get arrays of their own, allocated
    before the loop;
  * accessed (loads and writes) only through one array value, at one index on some axis
    that is the same non-negative affine function of the counter for every access: the lanes
    touch different elements; or
  * only added into (`accum`), in one stretch of the body, or in one stretch of a fused
    loop at the top of the body at one index on some axis that is a non-negative affine
    function of that loop's counter: an element then receives its contributions from the
    lanes at one inner trip, lane after lane, the order of the loop alone.

An index out of bounds still raises IndexError naming its line; when several trips of a
jammed loop would raise, the one reported may be a later trip's (docs/arrays.md).

Only loops with a fused loop that carries a float chain (fewer than LANES of them) or reads
or writes along the last axis at the outer counter are jammed: elsewhere LLVM's own
vectorizer does as well. A fused loop whose running sums split_sums splits (their terms in
vectors, when it runs MIN_TRIPS trips or more) is fused only while it runs fewer trips: the
jammed loop's test asks for that too, and longer rows run in the loop after it, split (the
four lanes' work loop would stay scalar: a row's `np.sum(np.exp(a), axis=1)` 6.7 ns an
element jammed, 2.0 split; jam_plan.py `_short`). A loop whose fused loops update in place
an array each lane gets a copy of (`qxc[r] += a * xc[j]`) is not: the lanes' updates would
be separate chains through memory (ADBench's GMM primal 1.2-2x slower jammed). The pass
runs after AD on every kernel (pipeline.native); a loop whose forward sweep pushes inside
an inner loop (W2's value and gradient) is left alone, as jamming it would reorder the
tape.
"""
from __future__ import annotations

from .builder import Builder, NameGen
from .jam_plan import LANES, Context, Count, Plan, context, plan as plan_of
from .loops import rewrite_outermost
from .split_sums import MIN_TRIPS
from .nodes import I64, Block, Func, Op, Stmt, Var, While, walk

__all__ = ["LANES", "jam_loops"]

_NOTE = (f"{LANES} trips at once (unroll and jam: pyad/ir/jam.py); the loop after it runs the "
         "trips left over",)


def jam_loops(func: Func) -> Func:
    """`func` with every loop the conditions above allow jammed (the same Func if none)."""
    if not any(isinstance(s, While) for s in walk(func.block)):
        return func
    ctx = context(func)

    def rewrite(loop: While) -> list[Stmt] | None:
        plan = plan_of(loop, ctx)
        return None if plan is None else _jammed(loop, plan, ctx)
    block, changed = rewrite_outermost(func.block, rewrite)
    return Func(func.name, block, func.filename, func.arg_names) if changed else func



def _fresh(names: NameGen, vs) -> tuple[Var, ...]:
    return tuple(Var(names.fresh(v.name.split(".")[0]), v.type) for v in vs)


def _const_op(names: NameGen, value: int, loc) -> tuple[Op, Var]:
    v = Var(names.fresh(), I64)
    return Op((v,), "const", (), (value,), loc), v


def _jammed(loop: While, plan: Plan, ctx: Context) -> list[Stmt]:
    """The jammed loop, then `loop` itself running the trips that are left."""
    names, loc, count = ctx.names, loop.loc, plan.count
    # the condition: the last lane's counter passes the test
    cps = _fresh(names, loop.cond.params)
    cb = Builder(names, loc)
    bound, = cb.inline(Block(loop.cond.params, loop.cond.body, (count.bound,)), list(cps))
    cbody = cb.stmts
    op, step = _const_op(names, (LANES - 1) * count.steps[count.k], loc)
    last, go = Var(names.fresh("last"), I64), Var(names.fresh(), "bool")
    cbody += [op, Op((last,), "add", (cps[count.k], step), (), loc),
              Op((go,), count.test, (last, bound), (), loc)]
    gb = Builder(names, loc)   # and the inner loops split_sums splits run few trips
    for start, end, by in plan.short:
        few = gb.lt(gb.sub(end, start), gb.const(MIN_TRIPS * by, I64))
        go = gb.select(go, few, gb.const(False, "bool"))
    cond = Block(cps, tuple(cbody + gb.stmts), (go,))
    # the body: each lane's carried values, the statements lane by lane, the inner loops fused
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
    pre: list[Stmt] = []
    for alloc in plan.private:  # lane 0 keeps the array, the others get their own
        for lane in lanes[1:]:
            v = Var(names.fresh(alloc.outs[0].name.split(".")[0]), alloc.outs[0].type)
            pre.append(Op((v,), "alloc", alloc.args, alloc.attrs, loc))
            lane[alloc.outs[0].name] = v
    stmts += _lanes(loop.body.body, lanes, names, plan.jammed)
    body = Block(bps, tuple(stmts), tuple(nexts))
    outs = _fresh(names, loop.outs)
    jammed = While(outs, loop.inits, cond, body, loc, _NOTE, True)
    rest = While(loop.outs, outs, loop.cond, loop.body, loc, loop.note)
    return pre + [jammed, rest]


def _lanes(body: tuple[Stmt, ...], lanes: list[dict[str, Var]], names: NameGen,
           jammed: dict[int, Count]) -> list[Stmt]:
    """`body` for every lane: the loops in `jammed` fused, the statements between them
    lane after lane. Adds the values each lane defines to its mapping."""
    out: list[Stmt] = []
    run: list[Stmt] = []
    for s in body + (None,):
        if s is not None and id(s) not in jammed:
            run.append(s)
            continue
        b = Builder(names)
        for lane in lanes:
            b.inline(Block((), tuple(run), ()), [], lane)
        out += b.stmts
        run = []
        if s is not None:
            out.append(_fused(s, jammed[id(s)], lanes, names, jammed))
    return out


def _fused(m: While, count: Count, lanes: list[dict[str, Var]], names: NameGen,
           jammed: dict[int, Count]) -> While:
    """Inner loop `m` run for every lane at once: one counter, each lane's other carried
    values, the body lane by lane (its own inner loops fused in turn). Adds `m`'s outs to
    each lane's mapping."""
    k = count.k
    others = [j for j in range(len(m.inits)) if j != k]
    width = len(others)

    def carried(block: Block) -> list[Var]:
        return [Var(names.fresh("i"), I64)] + [Var(names.fresh("c"), block.params[j].type)
                                               for _ in lanes for j in others]
    inits = [lanes[0].get(m.inits[k].name, m.inits[k])] + [
        lane.get(m.inits[j].name, m.inits[j]) for lane in lanes for j in others]
    # the condition reads the counter and values the same in every lane (lane 0's copies)
    cps = carried(m.cond)
    cb = Builder(names, m.loc)
    params = [m.cond.params[k]] + [m.cond.params[j] for j in others]
    go = cb.inline(Block(tuple(params), m.cond.body, m.cond.results), cps[:len(params)],
                   dict(lanes[0]))
    cond = Block(tuple(cps), tuple(cb.stmts), tuple(go))
    bps = carried(m.body)
    inner = []
    for u, lane in enumerate(lanes):
        mine = dict(lane)
        mine[m.body.params[k].name] = bps[0]
        for n, j in enumerate(others):
            mine[m.body.params[j].name] = bps[1 + u * width + n]
        inner.append(mine)
    stmts = _lanes(m.body.body, inner, names, jammed)
    results = [inner[0].get(m.body.results[k].name, m.body.results[k])] + [
        mine.get(m.body.results[j].name, m.body.results[j]) for mine in inner for j in others]
    body = Block(tuple(bps), tuple(stmts), tuple(results))
    outs = [Var(names.fresh("i"), I64)] + [Var(names.fresh(m.outs[j].name.split(".")[0]),
                                                m.outs[j].type) for _ in lanes for j in others]
    for u, lane in enumerate(lanes):
        lane[m.outs[k].name] = outs[0]
        for n, j in enumerate(others):
            lane[m.outs[j].name] = outs[1 + u * width + n]
    return While(tuple(outs), tuple(inits), cond, body, m.loc, (), True)
