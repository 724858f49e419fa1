"""Which array values share memory (alias classes), and facts about writes into them.

Two array values are in one class when one is a view of the other, or when they meet in an
If result or a loop-carried value. A class's roots are the parameters and allocations in it.
The frontend uses this to refuse writes into argument arrays; the AD pass uses it for the
activity of arrays (a store of an active value activates the whole class) and to know which
loads read memory that nothing writes afterwards (those elements can be re-read in the reverse
sweep instead of being saved).
"""
from __future__ import annotations

from typing import Iterator

from .counting import range_bounds
from .trip_order import TripOrder
from .nodes import Block, If, Op, Stmt, Var, While, blocks_of, defined_in, elem_type, is_array, \
    walk

VIEW_OPS = frozenset({"row", "col", "slice", "transpose", "view"})
WRITE_OPS = frozenset({"store", "accum", "addto"})


class AliasClasses:
    def __init__(self, block: Block) -> None:
        self.parent: dict[str, str] = {}
        for p in block.params:
            self._add(p)
        for s in walk(block):
            if isinstance(s, Op):
                for o in s.outs:
                    self._add(o)
                if s.op in VIEW_OPS:
                    self._union(s.outs[0], s.args[0])
            elif isinstance(s, If):
                for k, o in enumerate(s.outs):
                    self._add(o)
                    self._union(o, s.then.results[k])
                    self._union(o, s.orelse.results[k])
            elif isinstance(s, While):
                for k, o in enumerate(s.outs):
                    for v in (o, s.cond.params[k], s.body.params[k]):
                        self._add(v)
                    for v in (s.inits[k], s.cond.params[k], s.body.params[k],
                              s.body.results[k]):
                        self._union(o, v)

    def _add(self, v: Var) -> None:
        if is_array(v.type):
            self.parent.setdefault(v.name, v.name)

    def find(self, name: str) -> str:
        root = name
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[name] != root:
            self.parent[name], name = root, self.parent[name]
        return root

    def _union(self, a: Var, b: Var) -> None:
        if is_array(a.type) and is_array(b.type):
            self._add(a)
            self._add(b)
            self.parent[self.find(a.name)] = self.find(b.name)

    def members(self, name: str) -> list[str]:
        root = self.find(name)
        return [n for n in self.parent if self.find(n) == root]


def _writes(s: Stmt, classes: AliasClasses) -> set[str]:
    stmts = [s] if isinstance(s, Op) else [t for b in blocks_of(s) for t in walk(b)]
    return {classes.find(t.args[0].name) for t in stmts
            if isinstance(t, Op) and t.op in WRITE_OPS}


def written_after(block: Block, classes: AliasClasses) -> Iterator[tuple[Op, set[str]]]:
    """Every op of `block` (nested ones too) with the alias classes that may be written
    after it has run: by a later statement of its block or of an enclosing block, or by any
    trip of a loop around it (the next trip runs the whole loop again)."""
    def visit(blk: Block, later: set[str]) -> Iterator[tuple[Op, set[str]]]:
        suffix = [set() for _ in range(len(blk.body) + 1)]
        for i in range(len(blk.body) - 1, -1, -1):
            suffix[i] = suffix[i + 1] | _writes(blk.body[i], classes)
        for i, s in enumerate(blk.body):
            after = later | suffix[i + 1]
            if isinstance(s, Op):
                yield s, after
            elif isinstance(s, If):
                yield from visit(s.then, after)
                yield from visit(s.orelse, after)
            else:
                around = after | _writes(s, classes)
                yield from visit(s.cond, around)
                yield from visit(s.body, around)

    return visit(block, set())


def final_loads(block: Block, classes: AliasClasses) -> set[str]:
    """Names of the loads whose array is not written again once the load has run. The
    memory such a load read still holds the same value when the reverse sweep runs, so the
    reverse sweep may re-read it.

    Alias classes join the arrays a loop makes each trip with the ones it carries, so a
    store into this trip's new array would count as a write of last trip's, which the
    trip reads (`u = u + dt * f(u)`). A store through an allocation made in a loop's body
    (or a view of it) writes the array of the trip it runs in: it cannot write what an
    earlier trip made, which is all that a load through a carried value of that loop, or
    any load outside the loop, can read."""
    return final_accesses(block, classes)[0]


def final_accesses(block: Block, classes: AliasClasses) -> tuple[set[str], dict[str, Op]]:
    """(final_loads, the stores final_stores adds by the same test: a load of the stored
    element right after the store would be final), computed together."""
    order = TripOrder(block)
    defs = order.defs
    made_in = {}  # alloc name -> the innermost loop whose body makes it

    nested: dict[int, While] = {}   # the loops inside statements, keyed by the writes in them
    defined: dict[int, set[str]] = {}

    def inside(loop: While) -> set[str]:
        if id(loop) not in defined:
            defined[id(loop)] = defined_in(loop)
        return defined[id(loop)]

    def write_key(t: Op, owners: tuple[While, ...], later: While | None,
                  within: tuple[While, ...]) -> tuple:
        root = view_root(t.args[0].name, defs)
        loop = made_in.get(root)
        c = classes.find(t.args[0].name)
        if loop is not None:
            return ("new", c, id(loop))
        if later is not None and t.args[0].name in inside(later):
            return ("c", c)   # a view the trips make or carry: its layout changes with them
        at = frozenset((id(o), a, "later" if o is later else "now", k)
                       for o in owners for a, k in order.counter_offsets(t, o).items())
        if later is None:   # in the current trips only: a later trip runs `within` again
            at |= frozenset((id(q), a, "inside", 0) for q in within
                            for a in order.counter_axes(t, q))
        nested.update((id(q), q) for q in within)
        return ("at", c, at, t.args[0].name) if at else ("c", c)

    def keys(s: Stmt, owners: tuple[While, ...], later: While | None = None) -> set:
        """The write keys of `s`, run in a trip of each of `owners` (the loops around it,
        outermost first), in a later trip of `later`: a write at their counters, or at the
        counters of loops inside `s` (in the current trips only, where their bounds are
        what the load saw), is keyed by them (trip_order.py)."""
        return {write_key(t, owners, later, within) for t, within in _writes_in(s)}

    def note_allocs(blk: Block, loop) -> None:
        for st in blk.body:
            if isinstance(st, Op) and st.op == "alloc" and loop is not None:
                made_in[st.outs[0].name] = loop
            elif isinstance(st, While):
                note_allocs(st.body, st)
            elif isinstance(st, If):
                note_allocs(st.then, loop)
                note_allocs(st.orelse, loop)

    note_allocs(block, None)
    final: set[str] = set()
    stores: dict[str, Op] = {}

    def visit(blk: Block, later: set, loops: dict) -> None:
        owners = tuple(loops.values())
        suffix = [set() for _ in range(len(blk.body) + 1)]
        for i in range(len(blk.body) - 1, -1, -1):
            suffix[i] = suffix[i + 1] | keys(blk.body[i], owners)
        for i, s in enumerate(blk.body):
            after = later | suffix[i + 1]
            if isinstance(s, Op):
                if s.op == "load" and _rereadable(s, after, classes, loops, order, nested):
                    final.add(s.outs[0].name)
                if s.op == "store" and owners and blk is owners[-1].body \
                        and elem_type(s.args[0].type) == s.args[-1].type \
                        and s.args[0].name not in inside(owners[0]) \
                        and _rereadable(Op((), "load", s.args[:-1]), after, classes, loops,
                                        order, nested):
                    stores.setdefault(s.args[-1].name, s)
            elif isinstance(s, If):
                visit(s.then, after, loops)
                visit(s.orelse, after, loops)
            else:
                around, inner = after | keys(s, owners + (s,), s), {**loops, id(s): s}
                visit(s.cond, around, inner)
                visit(s.body, around, inner)

    visit(block, set(), {})
    return final, stores


def final_stores(block: Block, classes: AliasClasses, by_order: dict[str, Op]) -> dict[str, Op]:
    """Stores `store a, i..., v` after which the element keeps `v` until the reverse sweep,
    which may then load it instead of saving `v`: value name -> the store. Such a store
    runs unconditionally in the body of the loops around it; each of those is a counted
    loop (loops.range_bounds, or one counting down to a bound >= -1: trip_order.py) whose
    counter is one of the store's indices, so no later trip
    stores to the same element; `a` is made before the outermost of them; and no other
    write into `a`'s alias class may run after it (a later statement, a later trip of a
    loop around it), or (trip_order.py) each later write into the class is at a counter of
    a loop around the store that has moved past the stored element's index (`by_order`:
    those, as final_accesses found them)."""
    writes: list[tuple[Op, tuple[While, ...]]] = []   # in program order
    candidates: list[int] = []

    def visit(blk: Block, loops: tuple[While, ...], top: bool) -> None:
        for s in blk.body:
            if isinstance(s, Op) and s.op in WRITE_OPS:
                if s.op == "store" and top:
                    candidates.append(len(writes))
                writes.append((s, loops))
            elif isinstance(s, If):
                visit(s.then, loops, False)
                visit(s.orelse, loops, False)
            elif isinstance(s, While):
                visit(s.cond, loops + (s,), False)
                visit(s.body, loops + (s,), True)

    visit(block, (), False)
    order = TripOrder(block)
    defs = order.defs
    found: dict[str, Op] = {}
    for k in candidates:
        st, loops = writes[k]
        a, v = st.args[0], st.args[-1]
        if elem_type(a.type) != v.type or a.name in defined_in(loops[0]):
            continue
        idx = {i.name for i in st.args[1:-1]}
        idx |= {defs[n].args[0].name for n in idx if n in defs and defs[n].op == "normidx"}
        if not all(_counts_through(loop, idx, defs) or order.counter_axes(st, loop)
                   for loop in loops):
            continue
        c, around = classes.find(a.name), {id(loop) for loop in loops}
        if all(m < k and not around & {id(loop) for loop in t_loops}
               for m, (t, t_loops) in enumerate(writes)
               if m != k and classes.find(t.args[0].name) == c):
            found.setdefault(v.name, st)
    for name, st in by_order.items():
        found.setdefault(name, st)
    return found


def _writes_in(s: Stmt, inside: tuple[While, ...] = ()) -> Iterator[tuple[Op, tuple]]:
    """The writes of statement `s` with the loops inside `s` around each, outermost first."""
    if isinstance(s, Op):
        if s.op in WRITE_OPS:
            yield s, inside
        return
    deeper = inside + (s,) if isinstance(s, While) else inside
    for b in blocks_of(s):
        for t in b.body:
            yield from _writes_in(t, deeper)


def _counts_through(loop: While, idx: set[str], defs: dict) -> bool:
    """Whether `loop` is a counted loop whose counter is among the indices `idx`, which
    hold each counter itself or its normidx (then the counter starts at a constant >= 0,
    so that no two trips normalize to one element, as -1 and n - 1 would)."""
    rb = range_bounds(loop)
    if rb is None:
        return False
    counter, lo = loop.body.params[rb[0]].name, rb[1]
    if counter in idx and all(defs[n].args[0].name != counter for n in idx
                              if n in defs and defs[n].op == "normidx"):
        return True
    if isinstance(lo, Var):
        const = defs.get(lo.name)
        lo = const.attrs[0] if const is not None and const.op == "const" else None
    return counter in idx and lo is not None and lo >= 0


def view_root(name: str, defs: dict) -> str:
    """The array `name` is a view of (through views of views), or `name` itself."""
    st = defs.get(name)
    while st is not None and st.op in VIEW_OPS:
        name = st.args[0].name
        st = defs.get(name)
    return name


def _rereadable(load: Op, after: set, classes: AliasClasses, loops: dict,
                order: TripOrder, nested: dict[int, While]) -> bool:
    """Whether none of the writes `after` the load (write_key's) may write what it read;
    `loops`: the loops around the load, by id, outermost first; `nested`: the loops the
    keys name that run after the load (inside a later statement)."""
    c = classes.find(load.args[0].name)
    if ("c", c) in after:
        return False
    root = view_root(load.args[0].name, order.defs)
    for key in after:
        if key[0] == "new" and key[1] == c and key[2] in loops:
            loop = loops[key[2]]  # the load runs in a trip of the loop that makes the array
            carried = {p.name for p in loop.body.params + loop.cond.params}
            if root not in carried:
                return False  # it may read this trip's array
        if key[0] == "at" and key[1] == c:   # written at loops' counters (trip_order.py)
            ids = list(loops)
            if load.args[0].name != key[3] or not any(
                    order.past(load.args[1 + a], nested[owner], list(loops.values()))
                    if when == "inside" else owner in loops and order.behind(
                        load.args[1 + a], list(loops.values()), ids.index(owner),
                        0 if when == "later" else 1, shift)
                    for owner, a, when, shift in key[2]):
                return False
    return True


def points_to(block: Block) -> dict[str, set[str]]:
    """For each array value, the parameters and allocations whose memory it may refer to."""
    pts: dict[str, set[str]] = {p.name: {p.name} for p in block.params if is_array(p.type)}
    changed = True

    def add(v: Var, roots: set[str]) -> None:
        nonlocal changed
        cur = pts.setdefault(v.name, set())
        if not roots <= cur:
            cur |= roots
            changed = True

    def get(v: Var) -> set[str]:
        return pts.get(v.name, set())

    while changed:
        changed = False
        for s in walk(block):
            if isinstance(s, Op) and s.outs and is_array(s.outs[0].type):
                add(s.outs[0], get(s.args[0]) if s.op in VIEW_OPS else {s.outs[0].name})
            elif isinstance(s, If):
                for k, o in enumerate(s.outs):
                    if is_array(o.type):
                        add(o, get(s.then.results[k]) | get(s.orelse.results[k]))
            elif isinstance(s, While):
                for k, o in enumerate(s.outs):
                    if is_array(o.type):
                        roots = get(s.inits[k]) | get(s.body.results[k])
                        for v in (o, s.cond.params[k], s.body.params[k]):
                            add(v, roots)
    return pts


def writes_into(block: Block, roots: set[str]) -> list[tuple[Op, str]]:
    """Writes (WRITE_OPS) into an array that may be (a view of) one of the array values
    named in `roots`: (write op, root), in program order."""
    pts = points_to(block)
    found = []
    for s in walk(block):
        if isinstance(s, Op) and s.op in WRITE_OPS:
            hit = sorted(pts.get(s.args[0].name, set()) & roots)
            if hit:
                found.append((s, hit[0]))
    return found


def constant_writes(block: Block) -> list[tuple[Op, Op]]:
    """Writes into an array that may be (a view of) a read-only constant: (write op,
    constarray op)."""
    consts = {s.outs[0].name: s for s in walk(block)
              if isinstance(s, Op) and s.op == "constarray"}
    return [(s, consts[root]) for s, root in writes_into(block, set(consts))]


def param_writes(block: Block) -> list[tuple[Op, Var]]:
    """Stores into an array that may be (a view of) a parameter: (store, parameter)."""
    pts = points_to(block)
    params = {p.name: p for p in block.params if is_array(p.type)}
    found = []
    for s in walk(block):
        if isinstance(s, Op) and s.op == "store":
            hit = sorted(pts.get(s.args[0].name, set()) & params.keys())
            if hit:
                found.append((s, params[hit[0]]))
    return found
