"""Where a program could tell a copy from a view.

Some NumPy functions return a view of their argument (`a.reshape(...)`, `a.ravel()`,
`np.diagonal(a)`, `np.broadcast_to(a, ...)`, ...) where pyad computes a new array, and a
list of run-time length stores a copy of an appended array where CPython's list holds the
array itself. The two agree until the program writes into one of them and then reads the
other: CPython sees the write through the shared object, pyad does not. `conflicts` finds
such a write and read, so the frontend can refuse them (a silent difference from CPython
would be a wrong value).

Order is judged on the structured IR: statement `y` may run after statement `x` when it comes
later in program order, or when a loop encloses both and the array involved is not new in
each of its trips (allocated in the body and not carried to the next trip). A read of an
array that is new in each trip of a loop enclosing the copy and the read sees a write only
if the write comes between them in that trip. Branches are not told apart (a write in one
branch and a read in the other count), which can only refuse more.
"""
from __future__ import annotations

from typing import Iterator

from .memory import VIEW_OPS, WRITE_OPS, points_to
from .nodes import Block, Op, Stmt, While, blocks_of


def _positions(block: Block, loops: tuple = ()) -> Iterator[tuple[Stmt, tuple]]:
    """Every statement in program order with the While loops enclosing it (outermost first)."""
    for s in block.body:
        yield s, loops
        inner = loops + (s,) if isinstance(s, While) else loops
        for b in blocks_of(s):
            yield from _positions(b, inner)


class Order:
    """The statements of `block` in program order, their loops and the arrays' roots: what
    `conflicts` reads (made once per function)."""

    def __init__(self, block: Block) -> None:
        self.block = block
        self.stmts = list(_positions(block))
        self.index = {id(s): k for k, (s, _) in enumerate(self.stmts)}
        self.loops = {id(s): loops for s, loops in self.stmts}
        self.pts = points_to(block)
        self.defined = {o.name: s for s, _ in self.stmts if isinstance(s, Op) for o in s.outs}

    def fresh_in(self, loop: While, roots: set[str]) -> bool:
        """Each trip of `loop` has its own arrays `roots`: each is allocated in its body and
        none is carried to the next trip."""
        for r in roots:
            d = self.defined.get(r)
            if d is None or loop not in self.loops[id(d)]:
                return False
        return not any(self.pts.get(p.name, set()) & roots for p in loop.body.params)

    def common_loops(self, x: Stmt, y: Stmt) -> list[While]:
        return [l for l in self.loops[id(x)] if l in self.loops[id(y)]]

    def may_follow(self, x: Stmt, y: Stmt, roots: set[str]) -> bool:
        """`y` may run after `x` on the same arrays `roots` (see the module docstring)."""
        if self.index[id(y)] > self.index[id(x)]:
            return True
        return any(not self.fresh_in(l, roots) and not self.new_in_trip(y, l)
                   for l in self.common_loops(x, y))

    def new_in_trip(self, w: Stmt, loop: While) -> bool:
        """`w` writes (a view of) an array allocated in the same trip of `loop`: in a later
        trip, it is not the array an earlier trip saw."""
        if not (isinstance(w, Op) and w.op in WRITE_OPS):
            return False
        base = w.args[0]
        while (d := self.defined.get(base.name)) is not None and d.op in VIEW_OPS:
            base = d.args[0]
        return d is not None and d.op == "alloc" and loop in self.loops[id(d)]

    def between(self, made: Stmt, w: Stmt, r: Stmt, read: set[str]) -> bool:
        """`w` may run after `made` and before `r`, which reads the arrays `read` as they
        were when `made` ran."""
        common = self.common_loops(made, r)
        if common and self.fresh_in(common[-1], read):  # made and read in one trip
            return common[-1] in self.loops[id(w)] and \
                self.index[id(made)] < self.index[id(w)] < self.index[id(r)]
        return self.may_follow(w, r, read)

    def writes(self, roots: set[str], own: frozenset[int]) -> list[Op]:
        return [s for s, _ in self.stmts if isinstance(s, Op) and s.op in WRITE_OPS
                and id(s) not in own and self.pts.get(s.args[0].name, set()) & roots]

    def reads(self, roots: set[str]) -> list[Op]:
        def reads_from(s: Op) -> bool:
            args = s.args[1:] if s.op in WRITE_OPS else () if s.op in VIEW_OPS else s.args
            return any(self.pts.get(v.name, set()) & roots for v in args)
        return [s for s, _ in self.stmts if isinstance(s, Op) and reads_from(s)]


def conflicts(order: Order, copy: str, source: str, own: frozenset[int],
              internal: frozenset[int] = frozenset()) -> tuple[Op, Op | None] | None:
    """A write and a later read that would tell the array `copy` (filled by the stores
    `own`, which are not counted; the first of them is where it is made) from a view of the
    array `source`: (write, read), the read None when the array read is the function's
    result; None if there is none. Writes in `internal` (a list's own) are not counted
    either."""
    made = next((s for s, _ in order.stmts if id(s) in own), None)
    if made is None:
        return None
    mine, theirs = order.pts.get(copy, {copy}), order.pts.get(source, set())
    returned = set().union(*(order.pts.get(v.name, set()) for v in order.block.results))
    for written, read in ((mine, theirs), (theirs, mine)):
        for w in order.writes(written, own | internal):
            if not order.may_follow(made, w, written):
                continue
            for r in order.reads(read):
                if order.between(made, w, r, read):
                    return w, r
            if returned & read:
                return w, None
    return None

