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
- the first statement of L's body that touches it fills it completely (below); or that
  first statement is an inner loop it is private to, or a branch whose blocks each satisfy
  this rule in turn (`if i != j: fill, then use`), and no other statement of L's body
  touches it.

A loop fills array A completely when it is `for j in range(n)` (from 0, step 1) over an
axis of A of length n, every touch of A in its body is at index j on that axis, and its
body writes the whole slice it owns before reading any of it: the first statement of the
body touching A stores the element (`A[j] = v`, all axes fixed), or is an inner loop
filling the slice over another axis in the same way, or a branch both of whose blocks do.
So each trip reads only elements it wrote itself:

    for r in range(d):                  # the whole row r is written first ...
        y[r] = 0.0
        for c in range(r + 1):
            y[r] += Q[r, c] * xc[c]     # ... then updated in place
    for r in range(n):
        for c in range(m):
            M[r, c] = ...               # a 2-D fill, row by row

Then no trip reads what another trip wrote, and the adjoint of such an array is all zero
between trips (the reverse of the fill clears every element a trip's reverse may have added
into): the reverse trips do not depend on each other through it, so an accumulating loop
can still run each trip's reverse right after the trip (fused.py).
"""
from __future__ import annotations

from .memory import VIEW_OPS, AliasClasses
from .nodes import Block, If, Op, Stmt, Var, While, blocks_of, walk
from .loops import counts_from_zero


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
    """Whether `loop` writes every element of the array `alloc` makes before reading it and
    touches it only directly (module docstring)."""
    a = alloc.outs[0]
    mine = [st for st in walk(loop.body) if id(st) in touching]
    return all(st.op in ("load", "store") and st.args[0] == a for st in mine) \
        and _covers_by(loop, a, alloc, {}, mine, defs)


def _covers_by(loop: While, a: Var, alloc: Op, fixed: dict[int, Var], mine: list[Op],
               defs: dict) -> bool:
    """Whether `loop` runs over a free axis of `a` (the one its counter indexes) and each
    trip writes the slice of `a` at the `fixed` indices and its counter before reading it."""
    counted_up = counts_from_zero(loop, defs)
    if counted_up is None:
        return False
    k, hi = counted_up
    j = loop.body.params[k]
    inside = {id(st) for st in walk(loop.body)}
    touches = [st for st in mine if id(st) in inside]
    for ax in range(len(alloc.args)):
        if ax not in fixed and _length(alloc, a, ax, hi, defs) \
                and all(_at(st, ax, j, defs) for st in touches):
            return _written_first(loop.body, a, alloc, {**fixed, ax: j}, touches, defs)
    return False


def _written_first(block: Block, a: Var, alloc: Op, fixed: dict[int, Var], mine: list[Op],
                   defs: dict) -> bool:
    """Whether the first statement of `block` touching `a` writes the whole slice at the
    `fixed` indices: a store of the element, a loop covering it, or a branch both of whose
    blocks do."""
    ids = {id(st) for st in mine}
    first = next((st for st in block.body if any(id(t) in ids for t in _stmts(st))), None)
    if isinstance(first, Op):
        return first.op == "store" and len(fixed) == len(alloc.args)
    if isinstance(first, While):
        return _covers_by(first, a, alloc, fixed, mine, defs)
    if isinstance(first, If):
        return all(_written_first(b, a, alloc, fixed, mine, defs)
                   for b in (first.then, first.orelse))
    return False


def _length(alloc: Op, a: Var, ax: int, n: Var, defs: dict) -> bool:
    """Whether `n` is the length of axis `ax` of `a`: its size in the allocation, or
    `dim a, ax`."""
    d = defs.get(n.name)
    return alloc.args[ax] == n or (d is not None and d.op == "dim" and d.args[0] == a
                                   and d.attrs == (ax,))


def _at(st: Op, ax: int, j: Var, defs: dict) -> bool:
    """Whether load/store `st` indexes axis `ax` at counter `j`."""
    idx = st.args[1 + ax] if len(st.args) > 1 + ax else None
    d = defs.get(idx.name) if idx is not None else None
    return d is not None and d.op == "normidx" and d.args[0] == j
