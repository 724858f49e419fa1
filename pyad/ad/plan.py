"""The plan for reversing one loop with the tape: for every forward value the reverse trip
reads, how it gets it back.

- re-run:      scratch-array fills at the top of the body run again first (refill.py), so
               the loads after them read what the forward trip read;
- re-created:  constants;
- recomputed:  results of a few cheap ops (ops.CHEAP) over values still available, loads of
               memory nothing writes afterwards (memory.final_loads) included; the ones that
               read a refilled array run after the fills;
- re-read:     values the trip stored into an element nothing writes afterwards
               (memory.final_stores): loaded back from it, like `t = tanh(z[i, j])` stored
               into `h[i, j]`;
- rebuilt:     loop counters that step by a fixed amount: init + (trip - 1) * step;
- taped:       everything else, pushed at the end of each forward trip and popped in reverse.

The trip count comes from the loop's bounds when it is a counted loop (loops.range_bounds),
else the forward loop counts its trips. `plan.note(...)` is the comment `f.grad_ir(...)`
prints above the reverse loop; taped.py emits the reverse loop by following the plan.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.nodes import I64, Block, Note, Op, Var, While, free_vars, walk
from ..ir.loops import loop_counters, range_bounds
from ..ir.ops import CHEAP

#: recomputation depth in f64 ops (integer index arithmetic is free: cheaper than the tape)
MAX_RECOMPUTE_DEPTH = 4


@dataclass(frozen=True)
class LoopPlan:
    line: int | None
    fills: tuple[While, ...]
    consts: tuple[Op, ...]
    recomputed: tuple[Op, ...]          # in body order
    reloaded: frozenset[str]            # recomputed values loaded back from their store
    after_fills: frozenset[str]         # recomputed values that read a refilled array
    counters: tuple[tuple[Var, Var | int, Var], ...]  # (counter, step, init)
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
    ops, params_used, reloaded = _recomputable(body, rest, inner, rereadable, stored)
    chosen = {st.outs[0].name for st in ops}
    taped = [v for v in rest if v.name not in chosen]
    taped += [p for p in body.params if p.name in params_used and p not in taped]
    counters = loop_counters(s)
    params = {p.name: p for p in body.params}
    rebuilt = tuple((v, counters[v.name][1], counters[v.name][0])
                    for v in taped if v.name in counters and v.name in params)
    taped = [v for v in taped if v.name not in {c.name for c, _, _ in rebuilt}]
    after = set(late)
    for st in ops:
        if st.outs[0].name in after or any(a.name in after for a in st.args):
            after.add(st.outs[0].name)
    return LoopPlan(s.loc.line if s.loc else None, tuple(fills), const_ops, tuple(ops),
                    reloaded, frozenset(after & chosen), rebuilt, tuple(taped),
                    range_bounds(s) is not None)


def _walk_ops(block: Block) -> list[Op]:
    return [st for st in walk(block) if isinstance(st, Op)]


def _recomputable(body: Block, needed: list[Var], inner: set[str], rereadable: set[str],
                  stored: dict[str, Op]) -> tuple[list[Op], set[str], frozenset[str]]:
    """The body ops to re-execute in the reverse trip instead of taping `needed` (results
    of a few cheap ops over carried and outer values, and loads of stored values), in an
    order where each comes after what it reads, and the carried values (body params) they
    read, which go on the tape, and the names of the values loaded back from a store."""
    defs = {st.outs[0].name: st for st in body.body if isinstance(st, Op) and st.outs}
    loads = {v: Op(st.args[-1:], "load", st.args[:-1], (), st.loc) for v, st in stored.items()
             if v in defs and st in body.body}
    params = {p.name for p in body.params}
    chosen: dict[str, Op] = {}
    used: set[str] = set()
    memo: dict[tuple[str, int], Op | None] = {}

    def how(name: str, d: int) -> Op | None:
        """The op that brings `name` back within depth `d`, or None."""
        if (name, d) not in memo:
            memo[name, d] = None
            for st in (defs.get(name), loads.get(name)):
                if st is None or st.op not in CHEAP or d == 0 and st.outs[0].type != I64:
                    continue
                if st.op == "load" and st is defs.get(name) and name not in rereadable:
                    continue
                nd = d if st.outs[0].type == I64 else d - 1
                if all(ok(a.name, nd) for a in st.args):
                    memo[name, d] = st
                    break
        return memo[name, d]

    def ok(name: str, d: int) -> bool:
        return name not in inner or name in params or how(name, d) is not None

    def take(name: str, d: int) -> None:
        if name in params:
            used.add(name)
        elif name in inner and name not in chosen:
            st = chosen[name] = how(name, d)
            for a in st.args:
                take(a.name, d if st.outs[0].type == I64 else d - 1)

    for v in needed:
        if v.name not in params and ok(v.name, MAX_RECOMPUTE_DEPTH):
            take(v.name, MAX_RECOMPUTE_DEPTH)
    order = {st.outs[0].name: k for k, st in enumerate(body.body)
             if isinstance(st, Op) and st.outs}
    ops: list[Op] = []
    placed: set[str] = set()

    def place(name: str) -> None:
        if name in chosen and name not in placed:
            placed.add(name)
            for a in chosen[name].args:
                place(a.name)
            ops.append(chosen[name])

    for name in sorted(chosen, key=order.__getitem__):
        place(name)
    return ops, used, frozenset(n for n, st in chosen.items() if st is loads.get(n))
