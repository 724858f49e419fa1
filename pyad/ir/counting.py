"""The recognition of counted loops (range() loops and `while i < n: ... i += k`): their
counters, bounds and steps, read from the IR (an analysis: the backend reads it too, to make
room on the tape for a counted loop's trips, codegen/lower/emit.py)."""
from __future__ import annotations

from .nodes import I64, Op, Var, While
from .ops import OPS


def pure(op: Op) -> bool:
    """An op that reads and writes no memory and has no other effect (it may trap)."""
    return not OPS[op.op].memory and not OPS[op.op].effect


def loop_counters(s: While) -> dict[str, tuple[Var, Var | int]]:
    """Carried i64 values that step by a loop-invariant amount each trip (range() counters,
    `i += 3` in a while loop): body param name -> (initial value, step), the step a value
    defined before the loop or an int constant."""
    # the names a top-level statement of the body can read that the body defines: its
    # params and the results of its top-level statements (nested ones are not in scope)
    inner = {p.name for p in s.body.params} | {o.name for st in s.body.body for o in st.outs}
    defs = {st.outs[0].name: st for st in s.body.body if isinstance(st, Op) and st.outs}
    found = {}
    for k, p in enumerate(s.body.params):
        st = defs.get(s.body.results[k].name)
        if p.type != I64 or st is None or st.op != "add" or st.args[0] != p:
            continue
        step = st.args[1]
        if step.name in inner:
            const = defs.get(step.name)
            if const is None or const.op != "const":
                continue
            step = const.attrs[0]
        found[p.name] = (s.inits[k], step)
    return found


def _fixed_in_cond(s: While, v: Var) -> bool:
    """`invariant_test(s)(v)` for a value `v` a top-level statement of the condition reads,
    without walking the body: such a value is defined before the loop, or is a param of the
    condition (carried: not fixed), or the result of a top-level statement of the condition
    (nothing else is in scope there)."""
    params = {p.name for p in s.cond.params}
    defs = {o.name: st for st in s.cond.body for o in st.outs}

    def fixed(v: Var) -> bool:
        if v.name in params:
            return False
        st = defs.get(v.name)
        return st is None or isinstance(st, Op) and pure(st) and all(map(fixed, st.args))
    return fixed(v)


def counted(s: While) -> tuple[int, Var, Var, Var | int, str] | None:
    """`(k, init, bound, step, test)` of a loop that exits only when its counter, carried
    value k, passes a bound fixed in the loop: test "lt" (`for i in range(lo, hi, step)`
    with step > 0, `while i < len(x): ... i += step`) or "gt" (`range(hi, lo, -1)`), or
    None. The bound may be computed in the condition (`len(x)` there)."""
    test = next((st for st in s.cond.body if isinstance(st, Op) and st.outs == s.cond.results),
                None)
    if test is None or test.op not in ("lt", "gt"):
        return None
    i, bound = test.args
    params = [p.name for p in s.cond.params]
    if i.name not in params or not _fixed_in_cond(s, bound):
        return None
    k = params.index(i.name)
    counter = loop_counters(s).get(s.body.params[k].name)
    return None if counter is None else (k, counter[0], bound, counter[1], test.op)


def range_bounds(s: While) -> tuple[int, Var, Var, Var | int] | None:
    """`(k, lo, hi, step)` of a loop that exits only when its counter, carried value k,
    reaches a bound defined before the loop (`for i in range(lo, hi, step)` with step > 0,
    `while i < hi: ... i += step`), or None."""
    c = counted(s)
    return None if c is None or c[4] != "lt" or len(s.cond.body) != 1 else c[:4]
