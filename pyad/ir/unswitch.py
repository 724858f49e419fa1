"""Loops specialized for operands that do not broadcast.

An elementwise expression over operands whose sizes are only known at run time reads each
operand at `select(d == 1, 0, i)`: index 0 along an axis of size 1 that broadcasts, i
otherwise. When shapes.py cannot decide `d == 1` (two arguments of independent sizes:
`m[:, None] * m[None, :]`, `X @ W + b`), the selects stay in the loop and keep it from
reading its operands as plain strided arrays. `unswitch` gives such a loop two versions:

    if d1 == 1 or d2 == 1 ...:   the loop as it was (some operand broadcasts)
    else:                        a copy with every test `dk == 1` replaced by false

and the simplification that follows folds the copy's selects away. Only tests of sizes
defined outside the loop against 1 count (at most MAX_TESTS sizes per loop; one copy),
and only outermost loops are versioned: an inner loop is specialized with the loop nest
around it. The pass runs once on the primal IR (pipeline.primal_ir), before AD, so the
gradient has both versions too and a later simplification never versions a copy again.
"""
from __future__ import annotations

from .builder import Builder, names_of
from .nodes import BOOL, I64, Block, Func, If, Op, Var, While, blocks_of, rename_block, walk

MAX_TESTS = 4


def unswitch(func: Func) -> Func:
    """`func` with its loops versioned (the same Func if no loop has such a test)."""
    defs = {o.name: s for s in walk(func.block) if isinstance(s, Op) for o in s.outs}
    names = names_of(func)
    changed = False

    def is_const(v: Var, value: int) -> bool:
        d = defs.get(v.name)
        return d is not None and d.op == "const" and d.attrs[0] == value \
            and not isinstance(d.attrs[0], bool)

    def tests(s: While) -> dict[str, tuple[Var, list[Var]]]:
        """The sizes tested against 1 by the loop's selects: size name -> (the size, the
        tests), each size defined outside the loop (the test itself may be inside)."""
        inside = {v.name for t in [s] + list(walk(s.cond)) + list(walk(s.body))
                  for b in blocks_of(t) for v in b.params}
        inside |= {o.name for t in list(walk(s.cond)) + list(walk(s.body)) for o in t.outs}
        found: dict[str, tuple[Var, list[Var]]] = {}
        for t in list(walk(s.cond)) + list(walk(s.body)):
            if not (isinstance(t, Op) and t.op == "select" and t.args[0].type == BOOL):
                continue
            d = defs.get(t.args[0].name)
            if d is None or d.op != "eq":
                continue
            for a, one in (d.args, d.args[::-1]):
                if is_const(one, 1) and a.name not in inside:
                    size, conds = found.setdefault(a.name, (a, []))
                    if all(c.name != t.args[0].name for c in conds):
                        conds.append(t.args[0])
                    break
        return found

    def versioned(s: While, sizes: dict, out: Builder) -> If:
        loop = Block((), (s,), s.outs)
        out.loc = s.loc
        one, true = out.const(1, I64), out.const(True, BOOL)
        hoisted = {name: out.eq(size, one) for name, (size, _) in sizes.items()}
        any_ = None
        for t in hoisted.values():
            any_ = t if any_ is None else out.select(t, true, any_)
        general, fast = Builder(names, s.loc), Builder(names, s.loc)
        false = fast.const(False, BOOL)
        kept = general.inline(rename_block(loop, {c.name: hoisted[name] for name, (_, cs)
                                                  in sizes.items() for c in cs}), [])
        plain = fast.inline(rename_block(loop, {c.name: false for _, cs in sizes.values()
                                                for c in cs}), [])
        return If(s.outs, any_, Block((), tuple(general.stmts), tuple(kept)),
                  Block((), tuple(fast.stmts), tuple(plain)), s.loc)

    def block(b: Block) -> Block:
        nonlocal changed
        out = Builder(names)
        for s in b.body:
            if isinstance(s, While):
                sizes = tests(s)
                if 0 < len(sizes) <= MAX_TESTS:
                    changed = True
                    out.stmts.append(versioned(s, sizes, out))
                    continue
                s = While(s.outs, s.inits, block(s.cond), block(s.body), s.loc, s.note)
            elif isinstance(s, If):
                s = If(s.outs, s.cond, block(s.then), block(s.orelse), s.loc)
            out.stmts.append(s)
        return Block(b.params, tuple(out.stmts), b.results)

    new = block(func.block)
    return Func(func.name, new, func.filename, func.arg_names) if changed else func

