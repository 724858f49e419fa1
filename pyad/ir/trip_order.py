"""Elements a loop's trips write, against the elements a load reads: the index facts that let
the reverse sweep re-read memory a loop keeps writing (memory.final_loads).

A loop `P` that writes `x[..., i, ...]` with its counter `i` on some axis writes, in one
trip, only elements at `i` on that axis, and in its later trips only elements further on
in the direction it counts. A load `x[..., j, ...]` in a trip of `P` whose index `j` on that
axis lies strictly behind `i` (below it when `P` counts up, above it when `P` counts down)
reads an element that `P` wrote in an earlier trip or never writes, so nothing `P` does
later changes it. The same holds, shifted, for writes at the counter plus a constant
(`traj[t + 1] = step(traj[t])`: the load at `t` is behind the write at `t + 1`), when loads
are compared to the counter as written:

    for i in range(n - 1, -1, -1):         # back substitution: x[j], j > i, is final
        s = b[i]
        for j in range(i + 1, n):
            s -= U[i, j] * x[j]
        x[i] = s / U[i, i]

The indices are compared as written: the counter itself or a normalized one (`normidx`)
when the counter cannot be negative (so no two trips normalize to one element), and the
load's index a constant offset from the counter, the counter of a loop inside `P` whose
bounds are such offsets (`range(i + 1, n)`, `range(i)`, `range(i - 1, -1, -1)`), or the
counter of a loop around `P` where `P` starts past it (Cholesky's `L[j, j]` in
`for i in range(j + 1, n)`, which writes `L[i, j]`).
"""
from __future__ import annotations

from .counting import counted
from .nodes import Block, Op, Var, While, walk

__all__ = ["TripOrder"]


class TripOrder:
    """The facts above for the loops of one function body."""

    def __init__(self, block: Block) -> None:
        self.defs = {o.name: st for st in walk(block) if isinstance(st, Op) for o in st.outs}
        self.loop_of = {}   # counter name -> its loop
        self._directions: dict[int, tuple | None] = {}   # by id(loop): direction's answer
        for st in walk(block):
            c = counted(st) if isinstance(st, While) else None
            if c is not None:
                self.loop_of[st.body.params[c[0]].name] = st

    def const(self, v: Var | int | None) -> int | None:
        if isinstance(v, int) or v is None:
            return v
        st = self.defs.get(v.name)
        if st is not None and st.op == "const" and isinstance(st.attrs[0], int) \
                and not isinstance(st.attrs[0], bool):
            return st.attrs[0]
        return None

    def least(self, v: Var, depth: int = 0) -> int | None:
        """A lower bound of `v`: a constant, a constant offset from one, or a loop counter
        (the least value its loop gives it), else None."""
        if self.const(v) is not None or depth > 8:
            return self.const(v)
        st = self.defs.get(v.name)
        if st is not None and st.op in ("add", "sub") and len(st.args) == 2:
            a, b = st.args
            if self.const(b) is not None:
                lo = self.least(a, depth + 1)
                return None if lo is None else lo + (self.const(b) if st.op == "add"
                                                      else -self.const(b))
            if st.op == "add" and self.const(a) is not None:
                lo = self.least(b, depth + 1)
                return None if lo is None else lo + self.const(a)
            return None
        loop = self.loop_of.get(v.name)
        d = self.direction(loop, depth + 1) if loop is not None else None
        return None if d is None else d[2]

    def direction(self, loop: While, depth: int = 0) -> tuple[Var, int, int] | None:
        """(counter, +1 or -1, the least value the counter takes) of a loop counting by a
        constant step toward a bound fixed in it whose counter is never negative."""
        if id(loop) not in self._directions:
            self._directions[id(loop)] = self._direction(loop, depth)
        return self._directions[id(loop)]

    def _direction(self, loop: While, depth: int) -> tuple[Var, int, int] | None:
        c = counted(loop)
        if c is None:
            return None
        k, init, bound, step, test = c
        step = self.const(step)
        if step is None or step == 0 or (step > 0) != (test == "lt"):
            return None
        least = self.least(init, depth) if step > 0 else self.least(bound, depth)
        least = None if least is None else least + (step < 0)
        if least is None or least < 0:
            return None
        return loop.body.params[k], (1 if step > 0 else -1), least

    def raw(self, v: Var) -> Var:
        """The index before normalization (`normidx`, `wrapidx`)."""
        st = self.defs.get(v.name)
        return st.args[0] if st is not None and st.op in ("normidx", "wrapidx") else v

    def counter_axes(self, write: Op, loop: While) -> frozenset[int]:
        """The axes on which `write` (store, accum) indexes by `loop`'s counter itself, when
        that counter is never negative; empty if none."""
        return frozenset(a for a, k in self.counter_offsets(write, loop).items() if k == 0)

    def counter_offsets(self, write: Op, loop: While) -> dict[int, int]:
        """{axis: k} for the axes on which `write` indexes by `loop`'s counter plus a
        constant k (`traj[t + 1, 0] = ...`), when that index is never negative (so no two
        trips normalize to one element)."""
        d = self.direction(loop)
        if d is None:
            return {}
        out = {}
        for a, v in enumerate(write.args[1:-1]):
            k = self.offset(self.raw(v), d[0])
            if k is not None and d[2] + k >= 0:
                out[a] = k
        return out

    def offset(self, v: Var | int, c: Var) -> int | None:
        """k when `v` is `c + k` as written (c, c + k, k + c, c - k), else None."""
        if isinstance(v, Var) and v == c:
            return 0
        st = self.defs.get(v.name) if isinstance(v, Var) else None
        if st is None or st.op not in ("add", "sub") or len(st.args) != 2:
            return None
        a, b = st.args
        if a == c and self.const(b) is not None:
            return self.const(b) if st.op == "add" else -self.const(b)
        if st.op == "add" and b == c and self.const(a) is not None:
            return self.const(a)
        return None

    def past(self, index: Var, q: While, loops: list[While]) -> bool:
        """Whether loop `q`, which runs after the load of `index` (inside a later
        statement), counts from beyond `index` away from it, so that its counter never
        equals it: `for i in range(j + 1, n)` after a load at j. `loops`: the loops around
        the load; `index` is fixed in them or is the counter of one."""
        d = self.direction(q)
        j = self.raw(index)
        if d is None or not (self.const(j) is not None or j.name in self.loop_of
                             and self.loop_of[j.name] in loops):
            return False
        start = self.offset(counted(q)[1], j)   # q starts at j + start
        lo = self.least(j)
        return start is not None and start * d[1] >= 1 and lo is not None and lo >= 0

    def behind(self, index: Var, loops: list[While], k: int, margin: int = 1,
               shift: int = 0) -> bool:
        """Whether the load index `index` lies behind the counter of `loops[k]` (plus
        `shift`: the loop writes at `counter + shift`) by at least `margin` in every trip
        (module docstring; 0: at the written index or behind, for the loop's later trips
        only) and is never negative; `loops`: the loops around the load, outermost first."""
        d = self.direction(loops[k])
        if d is None:
            return False
        c, sign, least = d
        j = self.raw(index)
        off = self.offset(j, c)
        if off is not None:   # c + off: behind when off - shift is against the direction
            return -(off - shift) * sign >= margin and (sign < 0 or least + off >= 0)
        if shift:
            return False
        if any(j in q.body.params for q in loops[:k]):   # fixed while loops[k] runs
            start = self.offset(counted(loops[k])[1], j)   # loops[k] starts at j + start
            lo = self.least(j)
            return start is not None and start * sign >= margin and lo is not None and lo >= 0
        for q in loops[k + 1:]:
            dq = self.direction(q)
            if dq is None or dq[0] != j:
                continue
            init, bound = counted(q)[1:3]
            if sign > 0:   # j <= c - margin at j's largest value (j >= 0: direction)
                top = self.offset(bound, c) if dq[1] > 0 else self.offset(init, c)
                return top is not None and top - (dq[1] > 0) <= -margin
            start = self.offset(init, c) if dq[1] > 0 else self.offset(bound, c)
            return start is not None and start + (dq[1] < 0) >= margin   # j >= c + margin
        return False
