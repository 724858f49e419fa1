"""Where a program could tell a copy from a view.

Some NumPy functions return a view of their argument (`a.reshape(...)`, `a.ravel()`,
`np.diagonal(a)`, `np.broadcast_to(a, ...)`, ...) where pyad computes a new array. The two
agree until the program writes into one of them and then reads the other: NumPy sees the
write through the shared memory, pyad does not. `conflicts` finds such a write and read, so
the frontend can refuse them (a silent difference from NumPy would be a wrong value).

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


class _Order:
    def __init__(self, block: Block) -> None:
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
        return any(not self.fresh_in(l, roots) for l in self.common_loops(x, y))

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


def conflicts(block: Block, copy: str, source: str, own: frozenset[int]) \
        -> tuple[Op, Op | None] | None:
    """A write and a later read that would tell the array `copy` (filled by the stores
    `own`, which are not counted) from a view of the array `source`: (write, read), the read
    None when the array read is the function's result; None if there is none."""
    order = _Order(block)
    made = order.defined.get(copy)
    if made is None:
        return None
    mine, theirs = {copy}, order.pts.get(source, set())
    returned = set().union(*(order.pts.get(v.name, set()) for v in block.results))
    for written, read in ((mine, theirs), (theirs, mine)):
        for w in order.writes(written, own):
            if not order.may_follow(made, w, written):
                continue
            for r in order.reads(read):
                if order.between(made, w, r, read):
                    return w, r
            if returned & read:
                return w, None
    return None


def written_after(block: Block, copies: list[tuple[Stmt, str]]) -> tuple[int, Op] | None:
    """The first of `copies` (the statement that copied an array, the array's name) with a
    write into that array, or an array sharing its memory, that may run after the copy:
    (its index, the write); None if there is none. A holder of the array itself (a list, in
    CPython) would see that write, a holder of the copy does not."""
    order = _Order(block)
    at = order.index
    for k, (stmt, name) in enumerate(copies):
        if id(stmt) not in at:   # lowered in a scratch builder that was dropped
            continue
        roots = order.pts.get(name, set())
        for w in order.writes(roots, frozenset()):
            made = order.defined.get(w.args[0].name)
            if order.pts.get(w.args[0].name) == {w.args[0].name} and made is not None:
                # a write into the array `made` allocated, the last time it ran: the copy
                # saw that array only if it ran in between
                later = at[id(made)] < at[id(stmt)] < at[id(w)]
            else:
                later = order.may_follow(stmt, w, roots)
            if later:
                return k, w
    return None
