"""Reverse mode, scratch arrays: a loop body that first fills a 1-D array completely and then
reads it has the fill re-run at the start of each reverse trip, so the reads are re-read
instead of taped.

    xc = np.zeros(d)
    for k in range(K):
        for j in range(d):              # the fill: every element of xc, from memory that
            xc[j] = x[i, j] - means[k, j]   # nothing writes later, and loop counters
        ... reads of xc ...             # re-read in the reverse trip, not saved

The fill is a top-level statement of the body: a loop `for j in range(n)` (from 0, step 1,
no early exit, no inner loop, only cheap arithmetic: re-running it must cost less than the
tape it saves) whose only effect is one store `A[j] = v` at its counter, where `A` was
allocated before the loop as `np.zeros(n)` with the same `n` (or `n` is `len(A)`), so every
element is written; `v` is computed from loads memory.final_loads allows to repeat; and
nothing else in the body writes A's memory. In reverse trip t the re-run fill leaves A as
forward trip t left it after its fill, and nothing in the body writes A afterwards, so every
later read of A in the body sees the same values again.
"""
from __future__ import annotations

from ..ir.nodes import Block, Op, Stmt, While, blocks_of, walk
from ..ir.loops import fills_whole
from ..ir.memory import WRITE_OPS
from ..ir.ops import CHEAP


#: what a fill may compute: it is re-run in every reverse trip, so only ops cheaper than the
#: tape it saves (no inner loop, no exp/tanh/... calls), one store, and index checks
_FILL_OPS = CHEAP | {"store", "raise_if"}


def refills(body: Block, classes, rereadable: set[str], defs: dict,
            may_write=lambda a: True) -> tuple[list, set]:
    """The fill loops of `body` (in order) and the names of the loads after them that may be
    re-read once the fills are re-run. `defs` maps every name of the function to its Op;
    `may_write(A)` says whether the reverse may write array A (Reverser.may_refill)."""
    fills: list[While] = []
    extra: set[str] = set()

    def cls(name: str) -> str:
        return classes.find(name) if name in classes.parent else name

    for pos, st in enumerate(body.body):
        target = _fill_target(st, rereadable, defs) if isinstance(st, While) else None
        if target is None or not may_write(target):
            continue
        c = cls(target.name)
        if any(t.op in WRITE_OPS and cls(t.args[0].name) == c
               for k, s2 in enumerate(body.body) if k != pos for t in _ops(s2)):
            continue
        fills.append(st)
        extra |= {t.outs[0].name for s2 in body.body[pos + 1:] for t in _ops(s2)
                  if t.op == "load" and cls(t.args[0].name) == c}
    return fills, extra


def _ops(s: Stmt) -> list[Op]:
    if isinstance(s, Op):
        return [s]
    return [t for b in blocks_of(s) for t in walk(b) if isinstance(t, Op)]


def _fill_target(s: While, rereadable: set[str], defs: dict):
    """The array `s` fills completely, or None."""
    ops = [t for t in walk(s.body) if isinstance(t, Op)]
    if len(ops) != len(list(walk(s.body))) or any(t.op not in _FILL_OPS for t in ops):
        return None  # an inner loop or branch, or an op dearer than the tape it would save
    stores = [t for t in ops if t.op == "store"]
    if len(stores) != 1 or not fills_whole(s, stores[0], defs):
        return None
    a = stores[0].args[0]
    for t in ops:
        if t.op == "load" and (t.outs[0].name not in rereadable or t.args[0] == a):
            return None
    return a
