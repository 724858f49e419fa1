"""Loop versioning on invariant index conditions: a loop whose element indices are chosen by
a condition that cannot change while it runs gets a second copy with that condition fixed.

Broadcasting makes such indices: `h + b` over shapes known only at run time reads
`h[i, select(dim(h, 1) == 1, 0, j)]`, because an axis of length 1 is read at index 0. An
index that may be constant gives a store or `accum` that may hit one element on every trip
(and a load that is a gather), so LLVM keeps the loop scalar, and a loop of `tanh` stays
several times slower than the same loop over plain indices. The common case is that no axis
broadcasts; this pass turns

    while ... { ... select %c, %a, %b (an index) ... }      %c invariant in the loop

into

    if <every such %c has the value that makes its index vary with the loop>:
        the loop with each %c replaced by that constant (the selects fold away)
    else:
        the loop as it was

The preferred value of `%c` is the one that picks the arm which is not invariant (false for
`select %c, 0, %i`). The arms of an index select are indices too: an operand of an
expression that is itself broadcast is read at `select %c1, 0, select %c2, 0, %i`, and both
conditions are fixed in the copy (with the inner one left, `np.exp(v) + u * u - v` added
into v's shadow at two index expressions, and its gradient loop stayed scalar). Both copies
compute the same operations in the same order on the same elements, so the results are bit
for bit those of the loop alone; only the address arithmetic differs.

Which loop is copied: the outermost one in which the conditions are invariant (a versioned
loop's inner loops are not versioned again, so code grows at most twofold), unless it has
more than MAX_COPIED statements; then its inner loops are considered in turn. A loop that
large is typically a time loop around many whole-array operations, and copying it doubled
the LLVM IR of the function and its compile time (a GRU sequence's gradient: 1.05 s before,
0.56 s with this rule and the emitter's shared error blocks), while the guard evaluated
once per trip of it instead of once in all costs nothing measurable next to its body. The
loops of the bench workloads (at most 45 statements) are all copied whole.
"""
from __future__ import annotations

from .builder import Builder, NameGen, names_of
from .nodes import BOOL, I64, Block, Func, If, Op, Stmt, Var, While, \
    rename_block, walk
from .loops import invariant_test, rewrite_outermost
from .ops import OPS

__all__ = ["MAX_COPIED", "version_loops"]

#: the most statements a versioned loop may have; a larger loop is not copied, its inner
#: loops are versioned instead (module docstring)
MAX_COPIED = 100


def version_loops(func: Func) -> Func:
    """`func` with every loop that has invariant index conditions versioned (the same Func
    if there is none)."""
    if not any(isinstance(s, While) for s in walk(func.block)):
        return func
    names = names_of(func)

    def rewrite(loop: While) -> list[Stmt] | None:
        if _size(loop) > MAX_COPIED:
            return None  # its inner loops are versioned instead
        conds = _conditions(loop)
        return _versioned(loop, conds, names) if conds else None
    block, changed = rewrite_outermost(func.block, rewrite)
    return Func(func.name, block, func.filename, func.arg_names) if changed else func


def _size(loop: While) -> int:
    """The statements of `loop` (nested ones included)."""
    return sum(1 for b in (loop.cond, loop.body) for _ in walk(b))


def _conditions(loop: While) -> dict[str, tuple[Var, bool]]:
    """The invariant conditions of index selects in `loop` (nested loops included), in
    program order: name -> (the condition, its preferred value)."""
    ops = [s for b in (loop.cond, loop.body) for s in walk(b) if isinstance(s, Op)]
    invariant = invariant_test(loop, lambda op: op.op in _HOISTABLE)
    index_uses = {a.name for s in ops if OPS[s.op].memory in ("read", "write")
                  for a in s.args[1:]}
    selects = [s for s in ops if s.op == "select" and s.outs[0].type == I64]
    grown = True
    while grown:   # the arms of an index select are indices too (nested broadcasts:
        grown = False   # `select %c1, 0, select %c2, 0, %i`)
        for s in selects:
            if s.outs[0].name in index_uses and not {a.name for a in s.args[1:]} <= index_uses:
                index_uses.update(a.name for a in s.args[1:])
                grown = True
    found: dict[str, tuple[Var, bool]] = {}
    refused: set[str] = set()
    for op in ops:
        if op.op != "select" or op.outs[0].type != I64 or op.outs[0].name not in index_uses:
            continue
        c, a, b = op.args
        if not invariant(c) or invariant(a) == invariant(b):
            continue
        want = not invariant(a)   # true picks `a`: prefer it when `a` varies
        if found.get(c.name, (c, want))[1] != want:
            refused.add(c.name)
        found[c.name] = (c, want)
    return {k: v for k, v in found.items() if k not in refused}


#: ops that may be computed before the loop, whether or not the loop would have reached
#: them: no effects, no memory reads, and no traps (no integer division)
_HOISTABLE = frozenset({"const", "dim", "eq", "ne", "lt", "le", "gt", "ge", "not", "select",
                        "add", "sub", "mul", "neg", "min", "max", "fmaximum", "fminimum"})


def _versioned(loop: While, conds: dict[str, tuple[Var, bool]], names: NameGen) -> list[Stmt]:
    """The guard's statements and the If holding both copies of `loop`: each copy reads the
    conditions as computed before the loop (their definitions inside it go unused), the
    fast one with them fixed to constants."""
    loc = loop.loc
    pre = Builder(names, loc)
    defs = {s.outs[0].name: s for b in (loop.cond, loop.body) for s in walk(b)
            if isinstance(s, Op) and len(s.outs) == 1}
    hoisted: dict[str, Var] = {}

    def hoist(v: Var) -> Var:
        """`v` outside the loop: itself, or a copy of the pure ops that compute it."""
        if v.name in defs and v.name not in hoisted:
            op = defs[v.name]
            hoisted[v.name] = pre.emit(op.op, *map(hoist, op.args), attrs=op.attrs,
                                       type=v.type)
        return hoisted.get(v.name, v)

    outside = [hoist(c) for c, _ in conds.values()]
    guard: Var | None = None
    for h, (_, want) in zip(outside, conds.values()):
        term = h if want else pre.emit("not", h)
        guard = term if guard is None else pre.emit("select", guard, term, pre.const(False, BOOL))
    seen = {c.name: h for (c, _), h in zip(conds.values(), outside)}
    loop = While(loop.outs, loop.inits, rename_block(loop.cond, seen),
                 rename_block(loop.body, seen), loc, loop.note)
    whole = Block(tuple(outside), (loop,), loop.outs)
    fb, sb = Builder(names, loc), Builder(names, loc)
    fast = fb.inline(whole, [fb.const(want, BOOL) for _, want in conds.values()])
    slow = sb.inline(whole, outside)
    return pre.stmts + [If(loop.outs, guard, Block((), tuple(fb.stmts), tuple(fast)),
                           Block((), tuple(sb.stmts), tuple(slow)), loc)]
