"""Reverse-mode AD: a primal Func to a forward Func and a backward (adjoint) Func.

    fwd(params)          -> (results..., saved...)
    bwd(saved..., cts...) -> (grad of each differentiated param...)

`cts` has one cotangent per f64 result. The backward sweep walks the Wengert list in reverse,
applies each op's adjoint rule from the op table, and adds up the contributions to a value
used several times (the seeds' `accum`). Only values that depend on a differentiated
parameter (active values) are differentiated. An `If` is reversed as an `If` on the same
condition; values computed inside a branch that the backward branch needs are exported from
the forward `If` as extra results. Constants are re-created in the backward function instead
of being saved; everything else it reads from the forward sweep is saved.

`fused(grad)` glues the two into one function (forward then backward, saved values stay in
registers): the value-and-gradient kernel.
"""
from __future__ import annotations

from dataclasses import dataclass

from .builder import Builder, NameGen
from .custom import RULES
from .fused_loops import fusable, reverse_fused
from .refill import refills
from .errors import PyadInternalError
from .ir import (BOOL, F64, I64, Block, Func, If, Op, Stmt, Var, While, blocks_of, free_vars,
                 is_array, ndim_of, rename_block, walk)
from .loops import for_each, loop_counters, range_bounds
from .memory import AliasClasses, final_loads
from .opt import cse_block, dce_block, has_effects
from .ops import CHEAP, OPS
from .shadow import augment, is_float_array


class _Active(set):
    """Names of the active values (f64 scalars and f64 arrays), with the shadow of each
    active array and the loads the reverse sweep may repeat (memory.final_loads)."""

    shadow: dict[str, Var]
    rereadable: set[str]
    known: dict[str, float]  # cotangents known to be constants (fused_loops.py)
    classes: AliasClasses    # of the primal's arrays
    defs: dict[str, Op]      # every op of the augmented primal, by the names it defines
    depth: int = 0           # loops around the statement being reversed


@dataclass(frozen=True)
class Gradient:
    primal: Func
    fwd: Func
    bwd: Func
    wrt: tuple[int, ...]      # indices of the differentiated params
    n_results: int            # results of the primal (fwd returns these, then the saved values)
    saved: tuple[Var, ...]    # fwd results after the primal ones == first bwd params
    cts: tuple[Var, ...]      # bwd params after the saved ones: one per f64 result


def differentiate(func: Func, wrt: tuple[int, ...]) -> Gradient:
    names = NameGen({v.name for s in walk(func.block) for v in s.outs}
                    | {p.name for s in walk(func.block) for b in blocks_of(s) for p in b.params}
                    | {p.name for p in func.params})
    classes = AliasClasses(func.block)
    active = _activity_of(func.block, {func.params[i].name for i in wrt
                                       if func.params[i].type == F64
                                       or is_float_array(func.params[i].type)}, classes)
    active.rereadable = final_loads(func.block, classes)
    active.known = {}
    aug, active.shadow, _ = augment(func.block, active,
                                    [func.params[i] for i in wrt if is_array(func.params[i].type)],
                                    names)
    active.classes = classes
    active.defs = {o.name: st for st in walk(aug) if isinstance(st, Op) for o in st.outs}
    bb = Builder(names)
    cts: list[Var] = []
    adj: dict[str, Var] = {}
    for r in func.results:
        if r.type == F64 or is_float_array(r.type):
            ct = Var(names.fresh("ct"), r.type)
            cts.append(ct)
            if r.name in active and r.type == F64:
                _accumulate(bb, adj, r, ct)
            elif r.name in active:  # shadow(r) += ct, element by element
                sh = active.shadow[r.name]
                dims = [bb.emit("dim", r, attrs=(k,), type=I64) for k in range(ndim_of(r.type))]
                for_each(bb, dims, lambda b2, idx, sh=sh, ct=ct:
                         b2.emit("accum", sh, *idx, b2.emit("load", ct, *idx)))
    subst: dict[int, While] = {}
    _reverse(aug.body, adj, active, bb, subst)
    grads = []
    for i in wrt:
        p = func.params[i]
        g = active.shadow[p.name] if is_array(p.type) else adj.get(p.name)
        grads.append(g if g is not None else bb.const(0.0))
    bwd_block = dce_block(cse_block(Block((), tuple(bb.stmts), tuple(grads))), set())

    primal = _substitute(aug, subst)  # loops gain trip counts and tape pushes
    fwd_block, bwd_block, saved = _close(primal, bwd_block, names, {c.name for c in cts})
    fwd_block = dce_block(Block(fwd_block.params, fwd_block.body,
                                fwd_block.results + tuple(saved)), set())
    fwd = Func(f"{func.name}.fwd", fwd_block, func.filename, func.arg_names)
    bwd = Func(f"{func.name}.bwd", Block(tuple(saved) + tuple(cts), bwd_block.body,
                                         bwd_block.results), func.filename)
    return Gradient(func, fwd, bwd, tuple(wrt), len(func.results), tuple(saved), tuple(cts))


def fused(g: Gradient, seed: float | None = None) -> Func:
    """One function computing results and gradients. With `seed`, the (single) cotangent is
    that constant; otherwise the cotangents are extra params after the primal ones."""
    fwd, bwd = g.fwd, g.bwd
    body: list[Stmt] = list(fwd.block.body)
    params = list(fwd.params)
    for ct in g.cts:
        if seed is None:
            params.append(ct)
        else:
            body.append(Op((ct,), "const", (), (float(seed),)))
    body.extend(bwd.block.body)
    results = fwd.results[:g.n_results] + bwd.results
    return Func(f"{g.primal.name}.vg", Block(tuple(params), tuple(body), results),
                g.primal.filename, g.primal.arg_names)


# ----------------------------------------------------------------------------- activity

def _floaty(t: str) -> bool:
    return t == F64 or is_float_array(t)


def _activity_of(block: Block, seeds: set[str], classes: AliasClasses) -> _Active:
    """Active values: f64 values depending on a seed, and the f64 arrays that hold such a
    value anywhere in the program (a store activates every array sharing the memory)."""
    active = _Active(seeds)
    while True:
        before = len(active)
        _activity(block, active)
        for n in [n for n in active if n in classes.parent]:
            active.update(classes.members(n))
        if len(active) == before:
            return active


def _activity(block: Block, active: set[str]) -> set[str]:
    """Names of the f64 values that depend on an active value (nested blocks included)."""
    for s in block.body:
        if isinstance(s, Op):
            if s.op == "store":
                if s.args[-1].name in active and is_float_array(s.args[0].type):
                    active.add(s.args[0].name)
            elif any(a.name in active for a in s.args):
                active.update(o.name for o in s.outs if _floaty(o.type))
        elif isinstance(s, If):
            _activity(s.then, active)
            _activity(s.orelse, active)
            for o, t, e in zip(s.outs, s.then.results, s.orelse.results):
                if _floaty(o.type) and (t.name in active or e.name in active):
                    active.add(o.name)
        else:  # While: a carried value is active if its init or its next value is
            while True:
                for k, v in enumerate(s.inits):
                    if v.name in active or s.body.results[k].name in active:
                        for blk in (s.cond, s.body):
                            if _floaty(blk.params[k].type):
                                active.add(blk.params[k].name)
                before = len(active)
                _activity(s.cond, active)
                _activity(s.body, active)
                if len(active) == before:
                    break
            for k, o in enumerate(s.outs):
                if s.body.params[k].name in active:
                    active.add(o.name)
    return active


# ----------------------------------------------------------------------------- reverse sweep

def _accumulate(b: Builder, adj: dict[str, Var], v: Var, contribution: Var) -> None:
    prev = adj.get(v.name)
    adj[v.name] = contribution if prev is None else b.add(prev, contribution)


def _reverse(body: tuple[Stmt, ...], adj: dict[str, Var], active: set[str], b: Builder,
             subst: dict[int, While]) -> None:
    """Emit into `b` the adjoint of `body`; `adj` maps names to their accumulated cotangent
    and ends up holding the cotangents of the values `body` reads from outside."""
    for s in reversed(body):
        if isinstance(s, Op) and s.op in ("load", "store"):
            _reverse_memory(s, adj, active, b)
        elif isinstance(s, Op) and s.op == "call":
            _reverse_call(s, adj, active, b, subst)
        elif isinstance(s, Op):
            out = s.outs[0] if s.outs else None
            ct = adj.pop(out.name, None) if out is not None else None
            if ct is None or out.name not in active:
                continue
            row = OPS[s.op]
            if row.adjoint is None:
                raise PyadInternalError(f"op {s.op} has no adjoint but is on a gradient path")
            b.loc = s.loc
            if s.op == "custom_vjp":
                contribs = _rule_adjoint(b, ct, s)
            else:
                contribs = row.adjoint(b, ct, out, *s.args)
            if row.strong_zero:
                contribs = _strong_zero(b, ct, contribs)
            for a, c in zip(s.args, contribs):
                if c is not None and a.name in active:
                    _accumulate(b, adj, a, c)
        elif isinstance(s, If):
            _reverse_if(s, adj, active, b, subst)
        else:
            _reverse_while(s, adj, active, b, subst)


def _strong_zero(b: Builder, ct: Var, contribs: tuple) -> tuple:
    """Contributions that are 0 where the cotangent is 0, whatever the rule's partial
    derivatives are there (0 * inf would be nan: d/dg exp(-inf / g) is 0)."""
    return tuple(None if c is None else b.strongzero(ct, c) for c in contribs)


def _rule_adjoint(b: Builder, ct: Var, s: Op) -> tuple:
    """The adjoint of `y_k = custom_vjp(y_k, residuals..., args...)`: the rule's backward
    function, inlined, with cotangent `ct` for value leaf k and zero for the others."""
    rule = RULES[s.attrs[0]]
    res, xs = s.args[1:1 + rule.n_res], s.args[1 + rule.n_res:]
    zero = {F64: 0.0, I64: 0, BOOL: False}
    cts = [ct if j == s.attrs[1] else b.const(zero[t], t) for j, t in enumerate(rule.ct_types)]
    grads = b.inline(rule.bwd.block, [*res, *cts])
    return (None,) * (1 + rule.n_res) + tuple(g if x.type == F64 else None
                                               for g, x in zip(grads, xs))


def _reverse_call(s: Op, adj: dict[str, Var], active: set[str], b: Builder,
                  subst: dict) -> None:
    """`ys = call f(xs)` with an active argument: the forward sweep runs f's forward half
    (`callfwd`, which pushes f's saved values on the tape) and the reverse sweep its backward
    half (`callbwd`, which pops them), always, even when no cotangent reaches ys, so that
    every push has its pop."""
    cts = [adj.pop(o.name, None) for o in s.outs]
    if not any(a.name in active for a in s.args):
        return
    subst[id(s)] = Op(s.outs, "callfwd", s.args, s.attrs, s.loc)
    b.loc = s.loc
    ct_args = tuple(c if c is not None else b.const(0.0)
                    for o, c in zip(s.outs, cts) if o.type == F64)
    floats = [a for a in s.args if a.type == F64]
    grads = tuple(Var(b.names.fresh("d" + a.name), F64) for a in floats)
    b.stmts.append(Op(grads, "callbwd", ct_args, s.attrs, s.loc))
    for a, g in zip(floats, grads):
        if a.name in active:
            _accumulate(b, adj, a, g)


def callee_gradient(callee) -> tuple[Func, Func]:
    """The forward and backward halves of a natively called function (`ir.Callee`), with
    respect to all its f64 params: fwd(params) -> results, pushing the saved values on the
    tape; bwd(cotangents of the f64 results) -> cotangents of the f64 params, popping them.
    Made once per callee (its own calls refer back to it by the Callee)."""
    if callee.gradient is None:
        f = callee.func
        g = differentiate(f, tuple(i for i, p in enumerate(f.params) if p.type == F64))
        pushes = tuple(Op((), "push", (v,)) for v in g.saved)
        pops = tuple(Op((v,), "pop") for v in reversed(g.saved))
        fwd = Func(g.fwd.name, Block(g.fwd.params, g.fwd.block.body + pushes,
                                     g.fwd.results[:g.n_results]), f.filename, f.arg_names)
        bwd = Func(g.bwd.name, Block(g.cts, pops + g.bwd.block.body, g.bwd.results),
                   f.filename)
        callee.gradient = (fwd, bwd)
    return callee.gradient


def _reverse_memory(s: Op, adj: dict[str, Var], active, b: Builder) -> None:
    """`v = a[i]`: shadow(a)[i] += ct(v).  `a[i] = v`: ct(v) = shadow(a)[i], and
    shadow(a)[i] = 0 (the overwritten element's adjoint ends here)."""
    a, idx = s.args[0], s.args[1:]
    if s.op == "load":
        ct = adj.pop(s.outs[0].name, None)
        if ct is not None and s.outs[0].name in active:
            b.loc = s.loc
            b.emit("accum", active.shadow[a.name], *idx, ct)
        return
    if a.name not in active:
        return
    b.loc = s.loc
    sh, idx, v = active.shadow[a.name], idx[:-1], s.args[-1]
    ct = b.emit("load", sh, *idx)
    b.emit("store", sh, *idx, b.const(0.0))
    if v.name in active:
        _accumulate(b, adj, v, ct)


def _reverse_if(s: If, adj: dict[str, Var], active: set[str], b: Builder,
                subst: dict[int, While]) -> None:
    cts = [adj.pop(o.name, None) for o in s.outs]
    if all(c is None for c in cts) and not _has_reverse_effects(s, active):
        return
    b.loc = s.loc
    branch_adj, branch_code = [], []
    for block in (s.then, s.orelse):
        sub = Builder(b.names, s.loc)
        local: dict[str, Var] = {}
        for o, y, ct in zip(s.outs, block.results, cts):
            if ct is not None and o.name in active and y.name in active:
                _accumulate(sub, local, y, ct)
        _reverse(block.body, local, active, sub, subst)
        branch_adj.append(local)
        branch_code.append(sub)
    outer = sorted(set(branch_adj[0]) | set(branch_adj[1]))
    if not outer and not any(has_effects(t) for sub in branch_code for t in sub.stmts):
        return  # nothing flows out and no shadow is updated
    blocks = []
    for local, sub in zip(branch_adj, branch_code):
        ys = tuple(local[n] if n in local else sub.const(0.0) for n in outer)
        blocks.append(Block((), tuple(sub.stmts), ys))
    outs = tuple(Var(b.names.fresh("d" + n), F64) for n in outer)
    b.stmts.append(If(outs, s.cond, blocks[0], blocks[1], s.loc))
    by_name = {v.name: v for blk in (s.then, s.orelse) for v in free_vars(blk)}
    for n, o in zip(outer, outs):
        _accumulate(b, adj, by_name[n], o)


def _reverse_while(s: While, adj: dict[str, Var], active: set[str], b: Builder,
                   subst: dict[int, While]) -> None:
    """Reverse a loop with the tape. The forward loop (recorded in `subst`) counts its trips
    and, at the end of each iteration, pushes the values of that iteration the reverse body
    reads; the reverse loop runs the same number of trips, pops them, and carries the
    adjoints of the carried values and of the outer values the body reads."""
    cts = [adj.pop(o.name, None) for o in s.outs]
    act = [k for k, o in enumerate(s.outs) if o.name in active and o.type == F64]
    if all(cts[k] is None for k in act) and not _has_reverse_effects(s, active):
        return
    k = fusable(s, active, cts)
    if k is not None:  # an accumulating loop: reversed inside its forward sweep, no tape
        if cts[k] is not None:
            reverse_fused(s, k, cts[k], adj, active, b, subst)
        return
    names, body = b.names, s.body
    b.loc = s.loc
    # ---- the reverse body, written against its params; fills of scratch arrays re-run first
    fills, extra = refills(body, active.classes, active.rereadable, active.defs)
    extra -= active.rereadable
    active.rereadable |= extra
    rb = Builder(names, s.loc)
    for fill in fills:
        rb.inline(Block((), (fill,), ()), [])
    adjc = {k: Var(names.fresh("d" + body.params[k].name), F64) for k in act}
    local: dict[str, Var] = {}
    for k in act:
        if body.results[k].name in active:
            _accumulate(rb, local, body.results[k], adjc[k])
    active.depth += 1
    _reverse(body.body, local, active, rb, subst)
    active.depth -= 1
    body = _substitute(body, subst)  # nested loops now count trips and push
    inner = {p.name for p in body.params} | {o.name for st in walk(body) for o in st.outs}
    new_adjc = [local.pop(body.params[k].name, None) or rb.const(0.0) for k in act]
    outer = sorted(n for n in local if n not in inner)
    acc_in = [Var(names.fresh("acc"), F64) for _ in outer]
    acc_out = [rb.add(a, local[n]) for a, n in zip(acc_in, outer)]
    cnt = Var(names.fresh("trip"), I64)
    next_cnt = rb.sub(cnt, rb.const(1, I64))
    rparams = (cnt,) + tuple(adjc[k] for k in act) + tuple(acc_in)
    rbody = dce_block(cse_block(Block(rparams, tuple(rb.stmts),
                                      (next_cnt, *new_adjc, *acc_out))), set())
    # ---- what the reverse body reads from the forward iteration: constants are re-created,
    # values inside the body's Ifs are exported, the rest goes through the tape
    needed = [v for v in free_vars(rbody) if v.name in inner]
    mapping: dict[str, Var] = {}
    prologue: list[Stmt] = []
    consts = {st.outs[0].name: st for st in walk(body)
              if isinstance(st, Op) and st.op == "const" and st.outs}
    for v in needed:
        if v.name in consts:
            mapping[v.name] = Var(names.fresh(v.name), v.type)
            prologue.append(Op((mapping[v.name],), "const", (), consts[v.name].attrs, s.loc))
    remat = _rematerializable(body, [v for v in needed if v.name not in consts], inner,
                              active.rereadable)
    active.rereadable -= extra
    taped = [v for v in needed if v.name not in consts and v.name not in remat]
    taped += [p for p in body.params if p.name in remat.params_used and p not in taped]
    # range() counters are not taped: at reverse trip `cnt` the counter was init + (cnt-1)*step
    counters = loop_counters(s)
    for v in [v for v in taped if v.name in counters]:
        init, step = counters[v.name]
        j = Var(names.fresh("j"), I64)
        one = Var(names.fresh("one"), I64)
        jstep = Var(names.fresh("jstep"), I64)
        mapping[v.name] = Var(names.fresh(v.name), I64)
        if isinstance(step, int):
            step_c = Var(names.fresh("step"), I64)
            prologue.append(Op((step_c,), "const", (), (step,), s.loc))
            step = step_c
        prologue += [Op((one,), "const", (), (1,), s.loc), Op((j,), "sub", (cnt, one), (), s.loc),
                     Op((jstep,), "mul", (j, step), (), s.loc),
                     Op((mapping[v.name],), "add", (init, jstep), (), s.loc)]
        taped.remove(v)
    lift: dict[str, Var] = {}
    body = _export(body, {v.name for v in taped}, lift, names)
    pushes = [Op((), "push", (lift.get(v.name, v),), (), s.loc) for v in taped]
    for v in reversed(taped):
        mapping[v.name] = Var(names.fresh(v.name), v.type)
        prologue.append(Op((mapping[v.name],), "pop", (), (), s.loc))
    # recomputed from popped and outer values instead of taped; a value read from a
    # scratch array (or computed from one) only once the fills have re-run, which are the
    # first statements of the reverse body
    late: list[Stmt] = []
    late_names = set(extra)
    for st in remat.ops:
        mapping[st.outs[0].name] = Var(names.fresh(st.outs[0].name), st.outs[0].type)
        new = Op((mapping[st.outs[0].name],), st.op, st.args, st.attrs, st.loc)
        if st.outs[0].name in late_names or any(a.name in late_names for a in st.args):
            late_names.add(st.outs[0].name)
            late.append(new)
        else:
            prologue.append(new)
    if not all(isinstance(st, While) for st in rbody.body[:len(fills)]):
        raise PyadInternalError("the re-run fills are not the first statements of a reverse trip")
    body_stmts = rbody.body[:len(fills)] + tuple(late) + rbody.body[len(fills):]
    rbody = rename_block(Block(rbody.params, tuple(prologue) + body_stmts, rbody.results),
                         mapping)
    # ---- the forward loop: one more carried value counts the trips
    k_c, k_b = Var(names.fresh("k"), I64), Var(names.fresh("k"), I64)
    fb = Builder(names, s.loc)
    k_next = fb.add(k_b, fb.const(1, I64))
    zero = Op((Var(names.fresh("k0"), I64),), "const", (), (0,), s.loc)
    trips = Var(names.fresh("trips"), I64)
    fwd_loop = While(s.outs + (trips,), s.inits + (zero.outs[0],),
                     Block(s.cond.params + (k_c,), s.cond.body, s.cond.results),
                     Block(body.params + (k_b,), body.body + tuple(pushes) + tuple(fb.stmts),
                           body.results + (k_next,)), s.loc)
    subst[id(s)] = _Prefixed((zero,), fwd_loop)
    # ---- the reverse loop
    rc = Builder(names, s.loc)
    cparams = tuple(Var(names.fresh(p.name), p.type) for p in rparams)
    go = rc.gt(cparams[0], rc.const(0, I64))
    inits = [_range_trips(s, b) or trips] \
        + [cts[k] if cts[k] is not None else b.const(0.0) for k in act] \
        + [b.const(0.0) for _ in outer]
    outs = tuple(Var(names.fresh(p.name), p.type) for p in rparams)
    b.stmts.append(While(outs, tuple(inits), Block(cparams, tuple(rc.stmts), (go,)), rbody,
                         s.loc))
    for k, o in zip(act, outs[1:]):
        if s.inits[k].name in active:
            _accumulate(b, adj, s.inits[k], o)
    by_name = {v.name: v for blk in (s.cond, s.body) for v in free_vars(blk)}
    for n, o in zip(outer, outs[1 + len(act):]):
        _accumulate(b, adj, by_name[n], o)


def _range_trips(s: While, b: Builder) -> Var | None:
    """The trip count of a counted loop (loops.range_bounds) computed in `b` from its bounds,
    max(0, ceil((hi - lo) / step)), or None. Counted trips of an inner loop would be taped by
    the outer one; the bounds usually are not."""
    bounds = range_bounds(s)
    if bounds is None:
        return None
    _, lo, hi, step = bounds
    if isinstance(step, int):
        step = b.const(step, I64)
    # a loop that ran at all had step > 0 (else it would not have ended); guard the division
    one = b.const(1, I64)
    step1 = b.max(step, one)
    n = b.floordiv(b.add(b.sub(hi, lo), b.sub(step1, one)), step1)
    return b.select(b.gt(hi, lo), n, b.const(0, I64))


def _has_reverse_effects(s: Stmt, active) -> bool:
    """Whether a statement's reverse must run even when no scalar adjoint flows out of it:
    it loads from or stores into an active array (its reverse updates shadows), or calls a
    function with an active argument (its reverse pops what the forward call pushed)."""
    return any(isinstance(t, Op) and (t.op in ("load", "store") and t.args[0].name in active
                                      or t.op == "call" and any(a.name in active
                                                                 for a in t.args))
               for blk in blocks_of(s) for t in walk(blk))


@dataclass
class _Remat:
    ops: list        # body ops to re-execute in the reverse body, in body order
    params_used: set  # body params (carried values) they read: these go on the tape
    names: set

    def __contains__(self, name: str) -> bool:
        return name in self.names


def _rematerializable(body: Block, needed: list[Var], inner: set[str], rereadable: set[str],
                      depth: int = 4) -> _Remat:
    """Which needed values are cheaper to recompute in the reverse body than to tape: results
    of a few cheap ops (add, sub, mul, views, loads of memory nothing writes later) over
    carried values and outer values. Integer index arithmetic does not count against
    `depth` (it costs less than a tape push and pop)."""
    defs = {st.outs[0].name: st for st in body.body if isinstance(st, Op) and st.outs}
    params = {p.name for p in body.params}
    chosen: set[str] = set()
    used: set[str] = set()
    memo: dict[tuple[str, int], bool] = {}

    def ok(name: str, d: int) -> bool:
        if name not in inner or name in params:
            return True
        if (name, d) not in memo:
            st = defs.get(name)
            if st is None or st.op not in CHEAP or d == 0 and st.outs[0].type != I64:
                memo[name, d] = False
            elif st.op == "load" and st.outs[0].name not in rereadable:
                memo[name, d] = False
            else:
                nd = d if st.outs[0].type == I64 else d - 1
                memo[name, d] = all(ok(a.name, nd) for a in st.args)
        return memo[name, d]

    def take(name: str) -> None:
        if name in params:
            used.add(name)
        elif name in inner and name not in chosen:
            chosen.add(name)
            for a in defs[name].args:
                take(a.name)

    for v in needed:
        if v.name not in params and ok(v.name, depth):
            take(v.name)
    ops = [st for st in body.body if isinstance(st, Op) and st.outs and st.outs[0].name in chosen]
    return _Remat(ops, used, chosen)


@dataclass(frozen=True)
class _Prefixed:
    """A statement replaced by a short prologue and a new statement."""
    prologue: tuple[Stmt, ...]
    stmt: While


def _substitute(block: Block, subst: dict) -> Block:
    """`block` with each differentiated loop and call replaced by its forward version."""
    body: list[Stmt] = []
    for s in block.body:
        if id(s) in subst:
            rep = subst[id(s)]
            body += [*rep.prologue, rep.stmt] if isinstance(rep, _Prefixed) else [rep]
        elif isinstance(s, If):
            body.append(If(s.outs, s.cond, _substitute(s.then, subst),
                           _substitute(s.orelse, subst), s.loc))
        elif isinstance(s, While):
            body.append(While(s.outs, s.inits, s.cond, _substitute(s.body, subst), s.loc))
        else:
            body.append(s)
    return Block(block.params, tuple(body), block.results)


# ----------------------------------------------------------------------------- closing over the primal

def _close(primal: Block, bwd: Block, names: NameGen,
           inputs: set[str]) -> tuple[Block, Block, list[Var]]:
    """Make every primal value the backward block reads available to it: constants are
    re-created, values inside If branches are exported as extra If results, and the rest
    become saved values (returned in order). `inputs` are the bwd's own params (cts). Returns (fwd block, bwd block, saved)."""
    needed = {v.name: v for v in free_vars(bwd) if v.name not in inputs}
    consts: dict[str, Op] = {}
    for s in walk(primal):
        if isinstance(s, Op) and s.op == "const" and s.outs[0].name in needed:
            consts[s.outs[0].name] = s
    prologue, mapping = [], {}
    for n, c in consts.items():
        v = Var(names.fresh(n), c.outs[0].type)
        prologue.append(Op((v,), "const", (), c.attrs, c.loc))
        mapping[n] = v
    want = {n for n in needed if n not in consts}
    fwd = _export(primal, want, mapping, names)
    bwd = rename_block(Block((), tuple(prologue) + bwd.body, bwd.results), mapping)
    top = {p.name for p in primal.params} | {o.name for s in fwd.body for o in s.outs}
    saved = []
    for n in needed:
        if n in consts:
            continue
        v = mapping.get(n, needed[n])
        if v.name not in top:
            raise PyadInternalError(f"backward pass reads %{n}, which the forward pass lacks")
        saved.append(v)
    return fwd, bwd, saved


def _export(block: Block, want: set[str], mapping: dict[str, Var], names: NameGen) -> Block:
    """Rebuild `block` so each wanted name defined inside one of its Ifs is also a result of
    that If (recursively); `mapping` records the outer name of each exported value."""
    body: list[Stmt] = []
    for s in block.body:
        if not isinstance(s, If):
            body.append(s)
            continue
        inner = {o.name: o for blk in (s.then, s.orelse) for st in walk(blk) for o in st.outs}
        exported = [inner[n] for n in sorted(want & inner.keys())]
        if not exported:
            body.append(s)
            continue
        then = _export(s.then, want, mapping, names)
        orelse = _export(s.orelse, want, mapping, names)
        extra = []
        branches = []
        for blk in (then, orelse):
            sub = Builder(names, s.loc)
            here = {o.name for st in blk.body for o in st.outs}
            ys = []
            for v in exported:
                src = mapping.get(v.name, v)
                if src.name in here:
                    ys.append(src)
                elif is_array(v.type):  # a placeholder: an empty array
                    zero = sub.const(0, I64)
                    ys.append(sub.emit("alloc", *([zero] * ndim_of(v.type)), type=v.type))
                else:
                    ys.append(sub.const(0.0 if v.type == F64 else 0, v.type) if v.type != "bool"
                              else sub.const(False, "bool"))
            branches.append(Block((), blk.body + tuple(sub.stmts), blk.results + tuple(ys)))
        for v in exported:
            out = Var(names.fresh(v.name + ".s"), v.type)
            extra.append(out)
            mapping[v.name] = out
        body.append(If(s.outs + tuple(extra), s.cond, branches[0], branches[1], s.loc))
    return Block(block.params, tuple(body), block.results)
