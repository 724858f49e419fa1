"""Scratch arrays private to the trips of a loop: every element a trip reads, the same trip
wrote before.

    xc = np.zeros(d)                    # made before the loop, used nowhere else
    for i in range(n):
        for j in range(d):              # each trip first writes every element of xc ...
            xc[j] = x[i, j] - mu[j]
        ... reads and updates of xc ... # ... then reads only what it wrote

An array is private to loop L's trips when its alias class is one allocation and views of
it, nothing outside L uses it (but for its size), and either

- it is allocated inside L's body (a new array each trip), or
- the first statement of L's body that touches it fills it completely: a loop
  `for j in range(n)` (from 0, step 1) over a 1-D array of length n whose body stores
  `A[j] = v` once at its top level and touches A nowhere else; or that first statement is
  an inner loop it is private to, or a branch whose blocks each satisfy this rule in
  turn (`if i != j: fill, then use`), and no other statement of L's body touches it.

Then no trip reads what another trip wrote, and the adjoint of such an array is all zero
between trips (the reverse of the fill clears every element a trip's reverse may have added
into): the reverse trips do not depend on each other through it, so an accumulating loop
can still run each trip's reverse right after the trip (fused.py).
"""
from __future__ import annotations

from .memory import VIEW_OPS, AliasClasses
from .nodes import Block, If, Op, Stmt, While, blocks_of, walk
from .loops import fills_whole


def private_arrays(block: Block, classes: AliasClasses) -> dict[int, frozenset[str]]:
    """For every loop of `block` (nested ones too), by id: the alias classes (by root
    name) private to its trips."""
    defs = {o.name: st for st in walk(block) if isinstance(st, Op) for o in st.outs}
    scratch = _scratch_classes(classes, defs, block)
    touching: dict[str, set[int]] = {c: set() for c in scratch}  # ids of the ops touching c
    for st in walk(block):
        if isinstance(st, Op) and st.op != "dim":
            for c in _classes(st, classes, scratch):
                touching[c].add(id(st))
    found: dict[int, frozenset[str]] = {}

    def visit(blk: Block) -> None:
        for st in blk.body:
            if isinstance(st, While):
                visit(st.body)  # inner loops first: a class private to one may be to st
                found[id(st)] = frozenset(c for c in scratch
                                          if _private(st, c, scratch[c], touching[c],
                                                      defs, found))
                visit(st.cond)
            elif not isinstance(st, Op):
                for b in (st.then, st.orelse):
                    visit(b)

    visit(block)
    return found


def _scratch_classes(classes: AliasClasses, defs: dict, block: Block) -> dict[str, Op]:
    """The alias classes made of one allocation and views of it, not returned: root ->
    the allocation."""
    members: dict[str, list[str]] = {}
    for name in classes.parent:
        members.setdefault(classes.find(name), []).append(name)
    returned = {classes.find(v.name) for v in block.results if v.name in classes.parent}
    found = {}
    for root, names in members.items():
        ops = [defs.get(n) for n in names]
        allocs = [st for st in ops if st is not None and st.op == "alloc"]
        if root not in returned and len(allocs) == 1 and all(
                st is not None and (st.op == "alloc" or st.op in VIEW_OPS) for st in ops):
            found[root] = allocs[0]
    return found


def _classes(st: Op, classes: AliasClasses, scratch: dict) -> set[str]:
    return {c for a in st.args if a.name in classes.parent
            for c in (classes.find(a.name),) if c in scratch}


def _private(loop: While, c: str, alloc: Op, touching: set[int], defs: dict,
             found: dict[int, frozenset[str]]) -> bool:
    inside = {id(st) for st in walk(loop.body)}
    if not touching <= inside:
        return False  # used outside the body (after the loop, or by its condition)
    if id(alloc) in inside:
        return True   # a new array each trip
    return bool(touching) and _writes_first(loop.body, c, alloc, touching, defs, found)


def _writes_first(block: Block, c: str, alloc: Op, touching: set[int], defs: dict,
                  found: dict[int, frozenset[str]]) -> bool:
    """Whether every element of class `c` that `block` reads, `block` wrote before: its
    first statement touching c fills it completely, or is an inner loop c is private to,
    or a branch both of whose blocks write first, and in the last two cases no later
    statement touches c."""
    touches = [st for st in block.body if any(id(t) in touching for t in _stmts(st))]
    if not touches:
        return True
    first, alone = touches[0], len(touches) == 1
    if isinstance(first, While):
        return alone and c in found.get(id(first), ()) \
            or _fills(first, alloc, touching, defs)
    if isinstance(first, If) and alone:
        return all(_writes_first(b, c, alloc, touching, defs, found)
                   for b in (first.then, first.orelse))
    return False


def _stmts(st: Stmt) -> list[Stmt]:
    """`st` and the statements nested in it."""
    return [st] + [t for b in blocks_of(st) for t in walk(b)]


def _fills(loop: While, alloc: Op, touching: set[int], defs: dict) -> bool:
    """Whether `loop` writes every element of the 1-D array `alloc` makes and touches it
    only by that store (module docstring)."""
    mine = [st for st in walk(loop.body) if id(st) in touching]
    return len(mine) == 1 and any(st is mine[0] for st in loop.body.body) \
        and mine[0].args[0] == alloc.outs[0] and fills_whole(loop, mine[0], defs)
