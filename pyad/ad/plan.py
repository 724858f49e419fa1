"""The plan for reversing one loop with the tape: for every forward value the reverse trip
reads, how it gets it back.

- re-run:      scratch-array fills at the top of the body run again first (refill.py), so
               the loads after them read what the forward trip read;
- re-created:  constants;
- recomputed:  results of cheap ops (ops.CHEAP) over values still available, however many
               (the cost model: `_recomputable`), loads of memory nothing writes afterwards
               (memory.final_loads) included, and of other ops whose operands do not change
               in the loop; also of divisions and square roots when recomputing them
               leaves nothing to tape (`_decide`, `redo`): the forward loop then has no
               push and vectorizes; the ones that read a refilled array run after the
               fills;
- re-read:     values the trip stored into an element nothing writes afterwards
               (memory.final_stores): loaded back from it, like `t = tanh(z[i, j])` stored
               into `h[i, j]`;
- rebuilt:     loop counters that step by a fixed amount: init + (trip - 1) * step;
- final:       a running maximum or minimum `c = max(c, v)` (Python's, or NumPy's, as np.max
               of an axis makes it) that the trip uses for nothing else: the reverse trip
               reads the loop's final c instead of the trip's (`_finals`);
- taped:       everything else, pushed at the end of each forward trip and popped in reverse.

The trip count comes from the loop's bounds when it is a counted loop (loops.range_bounds),
else the forward loop counts its trips. `plan.note(...)` is the comment `f.grad_ir(...)`
prints above the reverse loop; taped.py emits the reverse loop by following the plan.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.nodes import Block, Note, Op, Var, While, free_vars, is_array, stmt_uses, walk
from ..ir.counting import loop_counters, range_bounds
from ..ir.ops import CHEAP, OPS


@dataclass(frozen=True)
class LoopPlan:
    line: int | None
    fills: tuple[While, ...]
    consts: tuple[Op, ...]
    recomputed: tuple[Op, ...]          # in body order
    reloaded: frozenset[str]            # recomputed values loaded back from their store
    after_fills: frozenset[str]         # recomputed values that read a refilled array
    counters: tuple[tuple[Var, Var | int, Var], ...]  # (counter, step, init)
    finals: tuple[tuple[Var, Var], ...]  # (carried value, the loop's result read for it)
    taped: tuple[Var, ...]
    trips_from_bounds: bool

    def note(self, copies: dict[str, Var], checkpoints: str | None = None) -> Note:
        """The comment printed above the reverse loop. It mentions each value by the copy
        the reverse trip makes of it (`copies`: forward name -> value in the reverse trip),
        so the names are those of the loop below it. `checkpoints`: how the loop keeps
        under a tape budget (checkpoint.py), None without a budget."""
        where = f" at line {self.line}" if self.line is not None else ""
        pieces: list = []

        def line(label: str, vs: list[Var]) -> None:
            pieces.append(f"\n  {label}: " + ("" if vs else "-"))
            for k, v in enumerate(vs):
                pieces.extend([", ", copies.get(v.name, v)] if k else [copies.get(v.name, v)])

        pieces.append(f"reverse of the loop{where}, with the tape: {len(self.taped)} "
                      f"value{'s' if len(self.taped) != 1 else ''} per trip")
        if self.fills:
            fills = ", ".join(f"loop at line {f.loc.line}" if f.loc else "loop"
                              for f in self.fills)
            pieces.append(f"\n  re-run first: {fills}")
        again = [o.outs[0] for o in self.recomputed if o.outs[0].name not in self.reloaded]
        if again:
            line("recomputed", again)
        if self.reloaded:
            line("re-read from memory",
                 [o.outs[0] for o in self.recomputed if o.outs[0].name in self.reloaded])
        if self.counters:
            line("rebuilt from the trip number", [c for c, _, _ in self.counters])
        if self.finals:
            line("the loop's result", [c for c, _ in self.finals])
        line("taped", list(self.taped))
        pieces.append("\n  trip count: " + ("from the loop's bounds" if self.trips_from_bounds
                                           else "counted by the forward loop"))
        if checkpoints is not None:
            pieces.append(f"\n  checkpoints: {checkpoints}")
        return tuple(pieces)


def plan_loop(s: While, body: Block, rbody: Block, fills: list[While], late: set[str],
              rereadable: set[str], stored: dict[str, Op]) -> LoopPlan:
    """The plan for loop `s` (its body `body` as the forward sweep runs it) given the
    reverse trip `rbody` written against the forward names; `late` are the loads that
    become re-readable because `fills` re-run (they are in `rereadable`); `stored`: the
    values whose store the reverse sweep may load back (memory.final_stores)."""
    inner = {p.name for p in body.params} | {o.name for st in walk(body) for o in st.outs}
    needed = [v for v in free_vars(rbody) if v.name in inner]
    consts = {st.outs[0].name: st for st in _walk_ops(body) if st.op == "const" and st.outs}
    const_ops = tuple(consts[v.name] for v in needed if v.name in consts)
    rest = [v for v in needed if v.name not in consts]
    ops, reloaded, rebuilt, final, taped = _decide(s, body, rest, inner, rereadable, stored)
    if taped:  # an empty tape: the forward loop, with no push in it, may vectorize
        alt = _decide(s, body, rest, inner, rereadable, stored,
                      frozenset(v.name for v in taped))
        if not alt[-1]:
            ops, reloaded, rebuilt, final, taped = alt
    chosen = {st.outs[0].name for st in ops}
    after = set(late)
    for st in ops:
        if st.outs[0].name in after or any(a.name in after for a in st.args):
            after.add(st.outs[0].name)
    return LoopPlan(s.loc.line if s.loc else None, tuple(fills), const_ops, tuple(ops),
                    reloaded, frozenset(after & chosen), rebuilt, final, tuple(taped),
                    range_bounds(s) is not None)


def _decide(s: While, body: Block, rest: list[Var], inner: set[str], rereadable: set[str],
            stored: dict[str, Op], redo: frozenset[str] = frozenset()) -> tuple:
    """(recomputed ops, reloaded names, rebuilt counters, finals, taped values) for the
    non-constant values `rest` the reverse trip reads. `redo`: values that come back by
    running their defining op again although it is not cheap (a division or square root:
    `_vectorizable`), when its operands come back (plan_loop asks this only to empty the
    tape)."""
    ops, params_used, reloaded = _recomputable(body, rest, inner, rereadable, stored, redo)
    chosen = {st.outs[0].name for st in ops}
    taped = [v for v in rest if v.name not in chosen]
    taped += [p for p in body.params if p.name in params_used and p not in taped]
    counters = loop_counters(s)
    params = {p.name: p for p in body.params}
    rebuilt = tuple((v, counters[v.name][1], counters[v.name][0])
                    for v in taped if v.name in counters and v.name in params)
    taped = [v for v in taped if v.name not in {c.name for c, _, _ in rebuilt}]
    finals = _finals(s, body)
    final = tuple((v, finals[v.name]) for v in taped if v.name in finals)
    taped = [v for v in taped if v.name not in finals]
    return ops, reloaded, rebuilt, final, taped


#: picking ops whose cotangent goes to the second argument where it ties (or, NumPy's, where
#: it is nan; ops.py): Python's max and min, NumPy's maximum and minimum
_PICKS = frozenset({"max", "min", "fmaximum", "fminimum"})


def chain_picks(s: While) -> set[str]:
    """The picks of `s`'s running extremes (`_finals`): the reverse sweep differentiates them
    with their rows' `chain_adjoint` (ties to the second argument: the last trip attaining
    the extreme takes the cotangent), which lets the reverse trip test against the loop's
    final value; elsewhere a pick splits a tie evenly."""
    found = _finals(s, s.body)
    return {r.name for p, r in zip(s.body.params, s.body.results) if p.name in found}


def _finals(s: While, body: Block) -> dict[str, Var]:
    """Carried values `c` that each trip replaces by `fmaximum(c, v)` (or `fminimum`,
    Python's `max`, `min`), and that the trip uses for nothing else, mapped to the loop's
    result for `c`.

    The reverse trip reads c only in the pick's adjoint, `second = v >= c` (for NumPy's:
    `or v != v`): the cotangent of the new c goes to v if so, else back to the old c. Let
    L be the last trip whose v wins (second). After it c no longer changes (a v that loses
    leaves it: it is below c, or a comparison with a nan failed and the pick kept c), so
    the trips after L see c equal to the final c; at L, v is not below the final c (it
    equals it, or is nan); before L the cotangent carried back is 0 (L took it), so
    whatever the test says they add 0. Testing against the final c therefore routes every
    cotangent as testing against the trip's c does: nothing is taped, and the forward loop,
    with no push in it, is a reduction LLVM vectorizes."""
    defs = {st.outs[0].name: st for st in body.body if isinstance(st, Op) and st.outs}
    users: dict[str, int] = {}
    for st in body.body:
        for v in {u.name for u in stmt_uses(st)}:
            users[v] = users.get(v, 0) + 1
    for v in body.results:
        users[v.name] = users.get(v.name, 0) + 1
    found: dict[str, Var] = {}
    for p, r, out in zip(body.params, body.results, s.outs):
        st = defs.get(r.name)
        if st is not None and st.op in _PICKS and st.args[0].name == p.name \
                and st.args[1].name != p.name and users.get(p.name) == 1 \
                and users.get(r.name) == 1:
            found[p.name] = out
    return found


def _walk_ops(block: Block) -> list[Op]:
    return [st for st in walk(block) if isinstance(st, Op)]


def _hoistable(st: Op) -> bool:
    """A scalar op without effects: run again in the reverse trip when nothing it reads
    changes in the loop (LLVM computes it once, before the reverse loop, where it can)."""
    row = OPS.get(st.op)
    return row is not None and not row.effect and not row.memory and not row.whole_array \
        and row.lower[0] != "call" and all(not is_array(o.type) for o in st.outs)


#: ops of one vector instruction each that are not CHEAP (a division, a square root, a
#: rounding):
#: computing one again costs about what the tape's store and load of its result cost, and
#: leaves the forward loop free to vectorize. exp, log, tanh (20-40 instructions) are not
#: among them: recomputed in W2's and W5's short loops of exps they cost 2-5% more time
#: than taping their results (docs/gradients.md)
_ONE_INSTRUCTION = frozenset({"div", "fdiv", "sqrt", "floor", "ceil", "rint", "copysign"})


def _vectorizable(st: Op) -> bool:
    """A scalar op without effects that is one vector instruction (`_ONE_INSTRUCTION`)."""
    return _hoistable(st) and st.op in _ONE_INSTRUCTION


def _recomputable(body: Block, needed: list[Var], inner: set[str], rereadable: set[str],
                  stored: dict[str, Op], redo: frozenset[str] = frozenset()
                  ) -> tuple[list[Op], set[str], frozenset[str]]:
    """The body ops to re-execute in the reverse trip instead of taping `needed`, in an
    order where each comes after what it reads; the carried values (body params) they read,
    which go on the tape; and the names of the values loaded back from a store.

    The cost model (docs/gradients.md, "What a reverse trip saves"): a value is brought back
    by cheap ops (ops.CHEAP: arithmetic, comparisons, selects, index arithmetic, loads of
    memory nothing writes afterwards, loads of values stored into such memory) from the
    carried values, the values from before the loop and constants, however many ops that
    takes; other ops (division, square roots, exp, ...) are taped, unless nothing they
    read changes in the loop (then they run again too: LLVM computes them once, before the
    reverse loop, where it can), or unless they are `redo` (plan_loop: when recomputing
    them empties the tape). Every op runs again at most once a reverse trip, so the
    reverse sweep recomputes at most one more forward trip, and the tape holds 8 bytes a
    trip for each value it does not recompute (the carried values it reads among them)."""
    defs = {st.outs[0].name: st for st in body.body if isinstance(st, Op) and st.outs}
    loads = {v: Op(st.args[-1:], "load", st.args[:-1], (), st.loc) for v, st in stored.items()
             if v in defs and st in body.body}
    params = {p.name for p in body.params}
    # name -> (the op that brings it back, whether nothing it reads changes between trips);
    # in body order, again until nothing changes (a reload's operands may come later)
    how: dict[str, tuple[Op, bool]] = {}
    changed = True
    while changed:
        changed = False
        for name in defs:
            if name not in how:
                found = _bring_back(name, defs, loads, how, inner, params, rereadable,
                                    name in redo)
                if found is not None:
                    how[name] = found
                    changed = True
    chosen: dict[str, Op] = {}
    used: set[str] = set()
    todo = [v.name for v in needed if v.name not in params and v.name in how]
    while todo:
        name = todo.pop()
        if name in params:
            used.add(name)
        elif name in inner and name not in chosen:
            chosen[name] = how[name][0]
            todo += [a.name for a in chosen[name].args]
    return _in_order(chosen, body), used, \
        frozenset(n for n, st in chosen.items() if st is loads.get(n))


def _bring_back(name: str, defs: dict[str, Op], loads: dict[str, Op],
                how: dict[str, tuple[Op, bool]], inner: set[str], params: set[str],
                rereadable: set[str], redo: bool = False) -> tuple[Op, bool] | None:
    """How `name` comes back given what is known of the others (`how`), or None. `redo`:
    by its defining op even if that is not cheap, when it is `_vectorizable`."""
    for st in (defs.get(name), loads.get(name)):
        if st is None or st.op == "load" and st is defs.get(name) and name not in rereadable:
            continue
        if any(a.name in inner and a.name not in params and a.name not in how
               for a in st.args):
            continue
        # a load is fixed too when its index does not change and nothing writes its memory
        # afterwards (a row's mean in a loop over the row), but not a value loaded back
        # from where the trip stored it (that element changes from trip to trip)
        fixed = (st.op != "load" or st is defs.get(name)) and all(
            a.name not in inner or a.name not in params and how[a.name][1] for a in st.args)
        if st.op in CHEAP or fixed and _hoistable(st) \
                or redo and st is defs.get(name) and _vectorizable(st):
            return st, fixed
    return None


def _in_order(chosen: dict[str, Op], body: Block) -> list[Op]:
    """The chosen ops in an order where each comes after the chosen ops it reads."""
    order = {st.outs[0].name: k for k, st in enumerate(body.body)
             if isinstance(st, Op) and st.outs}
    ops: list[Op] = []
    placed: set[str] = set()
    for first in sorted(chosen, key=order.__getitem__):
        stack = [(first, False)]
        while stack:
            name, ready = stack.pop()
            if name not in chosen or name in placed:
                continue
            if ready:
                placed.add(name)
                ops.append(chosen[name])
            else:
                stack.append((name, True))
                stack += [(a.name, False) for a in reversed(chosen[name].args)]
    return ops
