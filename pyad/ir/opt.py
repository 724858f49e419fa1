"""Simplifying passes on IR blocks: dead-code elimination, constant folding and CSE.

All ops are pure except those marked `effect` in the op table (tape pushes and pops, error
checks, array stores), which are never removed, merged or evaluated at compile time;
allocations and other `memory` rows are never merged either, and a load only with an
earlier load of the same element when nothing may have written memory in between. An op whose results
are unused is removed, and an If whose results are unused loses those results (and is
removed when none is left and it has no effects). An op that can raise (division, int
conversion) is removed too when unused: like Numba, pyad does not keep work alive only for
its errors (explicit checks such as range()'s step are `raise_if` effects and stay).
"""
from __future__ import annotations

from .nodes import (Block, Func, If, Op, Stmt, Var, While, blocks_of, free_vars, rename_block,
                    rename_note, walk)
from .ops import OPS


def has_effects(s: Stmt) -> bool:
    if isinstance(s, Op):
        return OPS[s.op].effect
    return any(has_effects(t) for b in blocks_of(s) for t in walk(b))


def dce_block(block: Block, live: set[str]) -> Block:
    """Remove statements of `block` that nothing in `live` (names needed after it) uses.
    `live` is updated with the names the kept statements use."""
    live.update(r.name for r in block.results)
    kept: list[Stmt] = []
    for s in reversed(block.body):
        if isinstance(s, Op):
            if not OPS[s.op].effect and not any(o.name in live for o in s.outs):
                continue
            live.update(a.name for a in s.args)
            kept.append(s)
            continue
        if isinstance(s, While):
            if not has_effects(s) and not any(o.name in live for o in s.outs):
                continue
            cond = dce_block(s.cond, set())
            body = dce_block(s.body, set())
            live.update(v.name for v in s.inits)
            for b in (cond, body):
                live.update(v.name for v in free_vars(b))
            kept.append(While(s.outs, s.inits, cond, body, s.loc, s.note, s.unrolled))
            continue
        idx = [i for i, o in enumerate(s.outs) if o.name in live]
        if not idx and not has_effects(s):
            continue
        branches = []
        for b in (s.then, s.orelse):
            pruned = Block(b.params, b.body, tuple(b.results[i] for i in idx))
            branches.append(dce_block(pruned, set()))
        live.add(s.cond.name)
        for b in branches:
            live.update(v.name for v in free_vars(b))
        kept.append(If(tuple(s.outs[i] for i in idx), s.cond, branches[0], branches[1], s.loc))
    return Block(block.params, tuple(reversed(kept)), block.results)


def dce(func: Func) -> Func:
    return Func(func.name, dce_block(func.block, set()), func.filename, func.arg_names)


def fold_constants(func: Func) -> Func:
    """Evaluate ops whose arguments are all constants (when evaluation cannot raise)."""
    consts: dict[str, object] = {}

    def fold(block: Block) -> Block:
        body: list[Stmt] = []
        for s in block.body:
            if isinstance(s, If):
                s = If(s.outs, s.cond, fold(s.then), fold(s.orelse), s.loc)
            elif isinstance(s, While):
                s = While(s.outs, s.inits, fold(s.cond), fold(s.body), s.loc, s.note, s.unrolled)
            elif s.op == "const":
                consts[s.outs[0].name] = s.attrs[0]
            elif s.args and all(a.name in consts for a in s.args) and len(s.outs) == 1 \
                    and not OPS[s.op].effect and not OPS[s.op].memory \
                    and OPS[s.op].py is not None:
                try:
                    value = OPS[s.op].py(*(consts[a.name] for a in s.args), *s.attrs)
                except (ArithmeticError, ValueError, LookupError):
                    value = None
                if isinstance(value, (bool, int, float)):
                    out: Var = s.outs[0]
                    value = {"f64": float, "i64": int, "bool": bool}[out.type](value)
                    consts[out.name] = value
                    s = Op(s.outs, "const", (), (value,), s.loc)
            body.append(s)
        return Block(block.params, tuple(body), block.results)

    return Func(func.name, fold(func.block), func.filename, func.arg_names)


def invariant_carried(func: Func) -> Func:
    """A loop-carried value that every trip yields unchanged is its initial value: its
    params and the loop's result are replaced by that value, and the slot is dropped (a list
    appended to in place carries its buffer so; so does a value passed through a loop). The
    AD pass then sees it as loop-invariant: nothing of it is saved per trip."""
    mapping: dict[str, Var] = {}

    def drop(block: Block) -> Block:
        body: list[Stmt] = []
        for s in block.body:
            if isinstance(s, If):
                body.append(If(s.outs, s.cond, drop(s.then), drop(s.orelse), s.loc))
                continue
            if not isinstance(s, While):
                body.append(s)
                continue
            fixed = {i for i, (p, y) in enumerate(zip(s.body.params, s.body.results))
                     if p.name == y.name}
            for i in fixed:
                for v in (s.cond.params[i], s.body.params[i], s.outs[i]):
                    mapping[v.name] = s.inits[i]
            keep = [i for i in range(len(s.inits)) if i not in fixed]

            def pick(t: tuple) -> tuple:
                return tuple(t[i] for i in keep)
            cond, loop = drop(s.cond), drop(s.body)
            body.append(While(pick(s.outs), pick(s.inits),
                              Block(pick(cond.params), cond.body, cond.results),
                              Block(pick(loop.params), loop.body, pick(loop.results)),
                              s.loc, s.note))
        return Block(block.params, tuple(body), block.results)

    block = drop(func.block)

    def resolve(v: Var) -> Var:
        while v.name in mapping:
            v = mapping[v.name]
        return v
    mapping = {k: resolve(v) for k, v in mapping.items()}
    return Func(func.name, rename_block(block, mapping), func.filename, func.arg_names)


def dead_carried(func: Func) -> Func:
    """Drop the loop-carried values nothing needs: a slot whose result is unused after the
    loop and whose params feed only the slot's own next value (an array element turned into
    a scalar that every trip rewrites before reading, or a value passed around unchanged in
    some branches). Plain DCE keeps them: each trip's value is used by the next trip."""
    live = {r.name for r in func.block.results}
    while True:
        size = len(live)
        _mark(func.block, live)
        if len(live) == size:
            break
    return Func(func.name, _drop_slots(func.block, live), func.filename, func.arg_names)


def _mark(block: Block, live: set[str]) -> None:
    """Add to `live` the names the needed statements of `block` read (one pass)."""
    for s in reversed(block.body):
        if isinstance(s, Op):
            if OPS[s.op].effect or any(o.name in live for o in s.outs):
                live.update(a.name for a in s.args)
        elif isinstance(s, If):
            if any(o.name in live for o in s.outs) or has_effects(s):
                live.add(s.cond.name)
                for j, o in enumerate(s.outs):
                    if o.name in live:
                        live.update((s.then.results[j].name, s.orelse.results[j].name))
                _mark(s.then, live)
                _mark(s.orelse, live)
        else:
            for k, o in enumerate(s.outs):
                slot = (o, s.cond.params[k], s.body.params[k])
                if any(v.name in live for v in slot):
                    live.update(v.name for v in slot)
                    live.update((s.inits[k].name, s.body.results[k].name))
            if any(o.name in live for o in s.outs) or has_effects(s):
                live.update(r.name for r in s.cond.results)
                _mark(s.cond, live)
                _mark(s.body, live)


def _drop_slots(block: Block, live: set[str]) -> Block:
    body: list[Stmt] = []
    for s in block.body:
        if isinstance(s, If):
            s = If(s.outs, s.cond, _drop_slots(s.then, live), _drop_slots(s.orelse, live), s.loc)
        elif isinstance(s, While):
            keep = [k for k, o in enumerate(s.outs) if o.name in live]

            def pick(t: tuple) -> tuple:
                return tuple(t[k] for k in keep)
            cond, loop = _drop_slots(s.cond, live), _drop_slots(s.body, live)
            s = While(pick(s.outs), pick(s.inits), Block(pick(cond.params), cond.body,
                                                         cond.results),
                      Block(pick(loop.params), loop.body, pick(loop.results)), s.loc, s.note)
        body.append(s)
    return Block(block.params, tuple(body), block.results)


#: effects that touch no array memory: a load may be reused across them
_NO_MEMORY_EFFECT = frozenset({"push", "pop", "tapemark", "tapecut", "tapepeak", "raise_if"})


def clobbers(s: Stmt) -> bool:
    """Whether `s` may write array memory (a store, an accumulation, a native call, or a
    statement holding one)."""
    if isinstance(s, Op):
        row = OPS[s.op]
        return row.memory == "write" or s.op in ("call", "callfwd", "callbwd") \
            or row.effect and s.op not in _NO_MEMORY_EFFECT
    return any(clobbers(t) for b in blocks_of(s) for t in walk(b))


def cse_block(block: Block, known: dict | None = None) -> Block:
    """Common-subexpression elimination: an op repeated with the same arguments reuses the
    first result (ops are pure). Values of enclosing blocks are visible in nested ones.
    A load repeated (same array value, same indices) with no write to memory in between
    reuses the first load too; into a loop's blocks only when the loop writes nothing."""
    return _cse(block, dict(known or {}), {})


def _cse(block: Block, known: dict, merged: dict[str, Var]) -> Block:
    """`block` with repeated ops removed; `merged` maps each removed result to the value
    that replaces it (names are unique in a function, so one map serves every block).
    `known` maps op keys to their first result; loads are keyed ("load", ...) and dropped
    from it at the first statement that may write memory."""
    known = dict(known)  # what this block computes is not visible after it
    body: list[Stmt] = []

    def r(v: Var) -> Var:
        return merged.get(v.name, v)

    def forget_loads() -> None:
        for key in [k for k in known if k[0] == "load"]:
            del known[key]

    for s in block.body:
        if isinstance(s, If):
            then, orelse = _cse(s.then, known, merged), _cse(s.orelse, known, merged)
            body.append(If(s.outs, r(s.cond), then, orelse, s.loc))
            if clobbers(s):
                forget_loads()
            continue
        if isinstance(s, While):
            inits = tuple(map(r, s.inits))
            if clobbers(s):  # a later trip may see what an earlier one wrote
                forget_loads()
            cond, loop_body = _cse(s.cond, known, merged), _cse(s.body, known, merged)
            body.append(While(s.outs, inits, cond, loop_body, s.loc, rename_note(s.note, r)))
            continue
        s = Op(s.outs, s.op, tuple(map(r, s.args)), s.attrs, s.loc)
        # attributes by repr: 0.0 == -0.0 (and 1 == 1.0 == True), but they are not one constant
        key = (s.op, tuple(a.name for a in s.args), tuple(map(repr, s.attrs)),
               tuple(o.type for o in s.outs))
        if clobbers(s):
            forget_loads()
        if s.op != "load" and (OPS[s.op].effect or OPS[s.op].memory or len(s.outs) != 1):
            body.append(s)
            continue
        if key in known:
            merged[s.outs[0].name] = known[key]
            continue
        known[key] = s.outs[0]
        body.append(s)
    return Block(block.params, tuple(body), tuple(map(r, block.results)))


def cse(func: Func) -> Func:
    return Func(func.name, cse_block(func.block), func.filename, func.arg_names)
