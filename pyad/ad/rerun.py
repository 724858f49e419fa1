"""Can the trips of a taped loop re-run from a checkpoint (checkpoint.py), and what must the
checkpoint hold besides the carried values?

A trip re-runs correctly when the memory it reads holds what it held when the trip first
ran. Memory comes in three kinds:

- arrays the trip makes itself (allocations in the body, and views of them): new each time;
- arrays nothing writes after the loop (arguments, arrays computed before it): unchanged;
- arrays made before the loop that the loop writes (state updated in place, buffers
  rotated between carried values, scratch arrays): their contents go into each checkpoint
  and are restored from it before a segment re-runs, and the reverse of the loop leaves
  them as it found them (a pullback may be called again).

A loop is refused (taped as without a budget; the plan says why) when it reads an array
written after it, writes through a view it makes of such an array, calls a natively
compiled function (whose writes are not seen here), or when a trip's adjoint array reaches
the next trip other than as a carried value. Adjoint arrays a trip makes and carries to the
next (the shadow of an array made each trip) are listed: the reverse copies the adjoints
into the ones a re-run makes.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.memory import VIEW_OPS, WRITE_OPS, AliasClasses
from ..ir.nodes import Block, If, Op, Var, While, blocks_of, is_array, walk


@dataclass(frozen=True)
class Rerun:
    """What a checkpoint holds besides the carried values and the trip number."""
    outer: tuple[Var, ...]      # arrays made before the loop that it writes (their contents)
    carried: tuple[int, ...]    # carried arrays the loop writes in place (their contents)
    shadows: tuple[int, ...]    # carried adjoint arrays each trip makes


def loops_written_after(block: Block, classes: AliasClasses) -> dict[int, frozenset[str]]:
    """For every loop of `block` (nested ones too), by id: the alias classes that may be
    written after it has run (by later statements of its block or of an enclosing block, or
    by later trips of an enclosing loop)."""
    found: dict[int, frozenset[str]] = {}

    def writes(s) -> set[str]:
        stmts = [s] if isinstance(s, Op) else [t for b in blocks_of(s) for t in walk(b)]
        return {classes.find(t.args[0].name) for t in stmts if isinstance(t, Op)
                and t.op in WRITE_OPS and t.args[0].name in classes.parent}

    def visit(blk: Block, later: set[str]) -> None:
        suffix: list[set[str]] = [set() for _ in range(len(blk.body) + 1)]
        for i in range(len(blk.body) - 1, -1, -1):
            suffix[i] = suffix[i + 1] | writes(blk.body[i])
        for i, s in enumerate(blk.body):
            after = later | suffix[i + 1]
            if isinstance(s, While):
                found[id(s)] = frozenset(after)
                around = after | writes(s)
                visit(s.cond, around)
                visit(s.body, around)
            elif isinstance(s, If):
                visit(s.then, after)
                visit(s.orelse, after)

    visit(block, set())
    return found


def analyse(forward: Block, pushes: list, classes: AliasClasses,
            written_after: frozenset[str]) -> Rerun | str:
    """What the checkpoints of a loop hold (`Rerun`), or why it is not checkpointed (its
    trips tape nothing, or cannot re-run). `forward` is its body as the forward sweep runs
    it (inner loops pushing, branches exporting), ending with `pushes`; `written_after`
    the alias classes written after the loop."""
    if not pushes and not any(isinstance(st, Op) and st.op in ("push", "callfwd")
                              for st in walk(forward)):
        return "its trips tape nothing"
    shadows = carried_shadows(forward)
    if any(r.name in _adjoint_arrays(forward) for k, r in enumerate(forward.results)
           if k not in shadows):
        return "an adjoint array made in a trip reaches the next one through a branch"
    local = _trip_arrays(forward)
    params = {p.name: k for k, p in enumerate(forward.params)}
    inner = {o.name for st in walk(forward) for o in st.outs} \
        | {p.name for st in walk(forward) for b in blocks_of(st) for p in b.params}
    outer: dict[str, Var] = {}
    carried: set[int] = set()
    for st in walk(forward):
        if not isinstance(st, Op):
            continue
        line = f" (line {st.loc.line})" if st.loc else ""
        if st.op in ("call", "callfwd", "callbwd"):
            return f"it calls a natively compiled function{line}"
        if st.op in WRITE_OPS:
            a = st.args[0]
            if a.name not in local and a.name not in classes.parent:
                return f"its forward sweep adds into adjoint arrays{line}"
            if a.name in params:
                carried.add(params[a.name])
            elif a.name not in inner:
                outer.setdefault(a.name, a)
            elif a.name not in local:
                return f"it writes through a view of an array made before the loop{line}"
            continue
        if st.op in VIEW_OPS or st.op in ("dim", "push"):
            continue  # no element is read
        for a in st.args:
            if is_array(a.type) and a.name not in local and (
                    a.name not in classes.parent or classes.find(a.name) in written_after):
                return f"it reads an array written after the loop{line}"
    carried_w = _buffers(forward, carried, params)
    if carried_w is None:
        return "an array it writes in place is replaced by another in some trips"
    return Rerun(tuple(outer.values()), carried_w, tuple(shadows))


def _buffers(body: Block, written: set[int], params: dict[str, int]) -> tuple[int, ...] | None:
    """The carried positions whose arrays the loop writes in place, closed under the
    rotation of buffers between carried values (`a, b = b, a`); None when one of them
    is replaced by an array that is not a carried one (the buffers would change)."""
    todo, done = list(written), set()
    while todo:
        k = todo.pop()
        if k in done:
            continue
        done.add(k)
        nxt = params.get(body.results[k].name)
        if nxt is None:
            return None
        todo.append(nxt)
        todo += [j for j, r in enumerate(body.results) if r.name == body.params[k].name]
    return tuple(sorted(done))


def carried_shadows(body: Block) -> list[int]:
    """The carried values of a loop body that are adjoint (shadow) arrays a trip makes: the
    next trip's reverse adds into them, so after a segment re-runs (and makes new ones) the
    reverse copies the adjoints there (checkpoint.reverse_loop)."""
    made = {st.outs[0].name for st in walk(body)
            if isinstance(st, Op) and st.op == "alloc" and st.attrs == ("shadow",)}
    return [k for k, r in enumerate(body.results) if r.name in made]


def _adjoint_arrays(body: Block) -> set[str]:
    """Shadow arrays a trip makes, and the views, branch and inner-loop results that may be
    one of them."""
    found = {st.outs[0].name for st in walk(body)
             if isinstance(st, Op) and st.op == "alloc" and st.attrs == ("shadow",)}
    for _ in range(2):
        for st in walk(body):
            if isinstance(st, Op) and st.op in VIEW_OPS and st.args[0].name in found:
                found.add(st.outs[0].name)
            elif isinstance(st, If):
                found |= {o.name for k, o in enumerate(st.outs)
                          if {st.then.results[k].name, st.orelse.results[k].name} & found}
            elif isinstance(st, While):
                found |= {o.name for k, o in enumerate(st.outs)
                          if {st.inits[k].name, st.body.results[k].name} & found}
    return found


def _trip_arrays(body: Block) -> set[str]:
    """The arrays each trip of a loop with body `body` makes afresh: allocations in it,
    views of them, and branch or inner-loop results that are always such arrays."""
    local: set[str] = set()
    for _ in range(2):  # inner loops carrying arrays: a second round sees their params
        for st in walk(body):
            if isinstance(st, Op) and st.outs and is_array(st.outs[0].type):
                if st.op == "alloc" or st.op in VIEW_OPS and st.args[0].name in local:
                    local.add(st.outs[0].name)
            elif isinstance(st, If):
                for k, o in enumerate(st.outs):
                    if {st.then.results[k].name, st.orelse.results[k].name} <= local:
                        local.add(o.name)
            elif isinstance(st, While):
                for k, o in enumerate(st.outs):
                    if is_array(o.type) and {st.inits[k].name, st.body.results[k].name} <= local:
                        local |= {o.name, st.cond.params[k].name, st.body.params[k].name}
    return local
