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
`select %c, 0, %i`). Both copies compute the same operations in the same order on the same
elements, so the results are bit for bit those of the loop alone; only the address
arithmetic differs. A loop is versioned once, at the outermost loop in which the conditions
are invariant (a versioned loop's inner loops are not versioned again), so code grows at
most twofold.
"""
from __future__ import annotations

from .builder import NameGen, names_of
from .nodes import BOOL, I64, Block, Func, If, Op, Stmt, Var, While, blocks_of, \
    rename_note, walk
from .ops import OPS

__all__ = ["version_loops"]


def version_loops(func: Func) -> Func:
    """`func` with every loop that has invariant index conditions versioned (the same Func
    if there is none)."""
    if not any(isinstance(s, While) for s in walk(func.block)):
        return func
    names = names_of(func)
    block, changed = _block(func.block, names)
    return Func(func.name, block, func.filename, func.arg_names) if changed else func


def _block(block: Block, names: NameGen) -> tuple[Block, bool]:
    body: list[Stmt] = []
    changed = False
    for s in block.body:
        if isinstance(s, While):
            conds = _conditions(s)
            if conds:
                body.extend(_versioned(s, conds, names))
                changed = True
                continue
        if isinstance(s, (If, While)):
            blocks = []
            for b in blocks_of(s):
                nb, ch = _block(b, names)
                blocks.append(nb)
                changed |= ch
            if isinstance(s, If):
                s = If(s.outs, s.cond, blocks[0], blocks[1], s.loc)
            else:
                s = While(s.outs, s.inits, blocks[0], blocks[1], s.loc, s.note)
        body.append(s)
    return Block(block.params, tuple(body), block.results), changed


def _conditions(loop: While) -> dict[str, tuple[Var, bool]]:
    """The invariant conditions of index selects in `loop` (nested loops included): name ->
    (the condition, its preferred value)."""
    defs: dict[str, Op] = {}
    inside: set[str] = set()
    for s in walk(loop.cond):
        inside.update(o.name for o in s.outs)
    for b in (loop.cond, loop.body):
        inside.update(p.name for p in b.params)
        for s in walk(b):
            inside.update(o.name for o in s.outs)
            inside.update(p.name for c in blocks_of(s) for p in c.params)
            if isinstance(s, Op) and len(s.outs) == 1:
                defs[s.outs[0].name] = s
    memo: dict[str, bool] = {}

    def invariant(v: Var) -> bool:
        if v.name not in inside:
            return True
        if v.name not in memo:
            memo[v.name] = False  # no cycles in SSA; guards against surprises
            op = defs.get(v.name)
            memo[v.name] = op is not None and _pure(op) and all(map(invariant, op.args))
        return memo[v.name]

    index_uses = {a.name for b in (loop.cond, loop.body) for s in walk(b)
                  if isinstance(s, Op) and OPS[s.op].memory in ("read", "write")
                  for a in s.args[1:]}
    found: dict[str, tuple[Var, bool]] = {}
    refused: set[str] = set()
    for name in index_uses:
        op = defs.get(name)
        if op is None or op.op != "select" or op.outs[0].type != I64:
            continue
        c, a, b = op.args
        if not invariant(c) or invariant(a) == invariant(b):
            continue
        want = invariant(a) is False   # true picks `a`: prefer it when `a` varies
        if found.get(c.name, (c, want))[1] != want:
            refused.add(c.name)
        found[c.name] = (c, want)
    return {k: v for k, v in found.items() if k not in refused}


#: ops that may be computed before the loop, whether or not the loop would have reached
#: them: no effects, no memory reads, and no traps (no integer division)
_HOISTABLE = frozenset({"const", "dim", "eq", "ne", "lt", "le", "gt", "ge", "not", "select",
                        "add", "sub", "mul", "neg", "min", "max"})


def _pure(op: Op) -> bool:
    return op.op in _HOISTABLE


def _versioned(loop: While, conds: dict[str, tuple[Var, bool]], names: NameGen) -> list[Stmt]:
    """The guard's statements and the If holding both copies of `loop`."""
    pre: list[Stmt] = []
    hoisted: dict[str, Var] = {}
    defs = {s.outs[0].name: s for b in (loop.cond, loop.body) for s in walk(b)
            if isinstance(s, Op) and len(s.outs) == 1}

    def hoist(v: Var) -> Var:
        """`v` outside the loop: itself, or a copy of the pure ops that compute it."""
        if v.name not in defs:
            return v
        if v.name not in hoisted:
            op = defs[v.name]
            args = tuple(hoist(a) for a in op.args)
            out = Var(names.fresh(), v.type)
            pre.append(Op((out,), op.op, args, op.attrs, op.loc))
            hoisted[v.name] = out
        return hoisted[v.name]

    loc = loop.loc
    guard: Var | None = None
    for c, want in conds.values():
        term = hoist(c)
        if not want:
            neg = Var(names.fresh(), BOOL)
            pre.append(Op((neg,), "not", (term,), (), loc))
            term = neg
        if guard is None:
            guard = term
        else:
            false = Var(names.fresh(), BOOL)
            both = Var(names.fresh(), BOOL)
            pre += [Op((false,), "const", (), (False,), loc),
                    Op((both,), "select", (guard, term, false), (), loc)]
            guard = both
    fixed: list[Stmt] = []
    forced: dict[str, Var] = {}
    for c, want in conds.values():
        k = Var(names.fresh(), BOOL)
        fixed.append(Op((k,), "const", (), (want,), loc))
        forced[c.name] = k
    fast = _Copy(names, forced).stmt(loop)
    slow = _Copy(names, {}).stmt(loop)
    then = Block((), tuple(fixed) + (fast,), fast.outs)
    orelse = Block((), (slow,), slow.outs)
    return pre + [If(loop.outs, guard, then, orelse, loc)]


class _Copy:
    """A copy of a statement with fresh names for every value it defines; values named in
    `forced` read the given value instead (and their definitions are dropped)."""

    def __init__(self, names: NameGen, forced: dict[str, Var]) -> None:
        self.names = names
        self.map: dict[str, Var] = dict(forced)
        self.forced = set(forced)

    def use(self, v: Var) -> Var:
        return self.map.get(v.name, v)

    def define(self, v: Var) -> Var:
        stem = v.name.split(".")[0]
        new = Var(self.names.fresh("" if stem[:1].isdigit() else stem), v.type)
        self.map[v.name] = new
        return new

    def block(self, b: Block) -> Block:
        params = tuple(self.define(p) for p in b.params)
        body = tuple(t for t in (self.stmt(s) for s in b.body) if t is not None)
        return Block(params, body, tuple(map(self.use, b.results)))

    def stmt(self, s: Stmt) -> Stmt | None:
        if isinstance(s, Op):
            if s.outs and s.outs[0].name in self.forced:
                return None
            args = tuple(map(self.use, s.args))
            return Op(tuple(self.define(o) for o in s.outs), s.op, args, s.attrs, s.loc)
        if isinstance(s, If):
            cond = self.use(s.cond)
            then, orelse = self.block(s.then), self.block(s.orelse)
            return If(tuple(self.define(o) for o in s.outs), cond, then, orelse, s.loc)
        inits = tuple(map(self.use, s.inits))
        cond, body = self.block(s.cond), self.block(s.body)
        outs = tuple(self.define(o) for o in s.outs)
        return While(outs, inits, cond, body, s.loc, rename_note(s.note, self.use))
