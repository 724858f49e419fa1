"""Activity analysis: the values the reverse sweep must differentiate.

A value is active when it is an f64 value (scalar or array) that depends on a differentiated
parameter. An array becomes active when an active value is stored into it, and so does every
array sharing its memory (its alias class).
"""
from __future__ import annotations

from ..ir.nodes import F64, Block, If, Op, Stmt, While, blocks_of, elem_type, is_array, walk
from ..ir.memory import AliasClasses
from ..ir.ops import OPS


def is_float_array(t: str) -> bool:
    return is_array(t) and elem_type(t) == F64


def floaty(t: str) -> bool:
    return t == F64 or is_float_array(t)


def active_values(block: Block, seeds: set[str], classes: AliasClasses) -> set[str]:
    """Names of the active values of `block`, starting from the names in `seeds`."""
    active = set(seeds)
    while True:
        before = len(active)
        _propagate(block, active)
        for n in [n for n in active if n in classes.parent]:
            active.update(classes.members(n))
        if len(active) == before:
            return active


def _propagate(block: Block, active: set[str]) -> None:
    for s in block.body:
        if isinstance(s, Op):
            if s.op == "store":
                if s.args[-1].name in active and is_float_array(s.args[0].type):
                    active.add(s.args[0].name)
            elif any(a.name in active for a in s.args):
                active.update(o.name for o in s.outs if floaty(o.type))
        elif isinstance(s, If):
            _propagate(s.then, active)
            _propagate(s.orelse, active)
            for o, t, e in zip(s.outs, s.then.results, s.orelse.results):
                if floaty(o.type) and (t.name in active or e.name in active):
                    active.add(o.name)
        else:
            _propagate_loop(s, active)


def _propagate_loop(s: While, active: set[str]) -> None:
    """A carried value is active if its init or its next value is."""
    while True:
        for k, v in enumerate(s.inits):
            if v.name in active or s.body.results[k].name in active:
                for blk in (s.cond, s.body):
                    if floaty(blk.params[k].type):
                        active.add(blk.params[k].name)
        before = len(active)
        _propagate(s.cond, active)
        _propagate(s.body, active)
        if len(active) == before:
            break
    for k, o in enumerate(s.outs):
        if s.body.params[k].name in active:
            active.add(o.name)


def has_reverse_effects(s: Stmt, active: set[str]) -> bool:
    """Whether a statement's reverse must run even when no scalar adjoint flows out of it:
    it loads from or stores into an active array or runs a whole-array primitive on active
    values (its reverse updates shadows), or calls a function with an active argument (its
    reverse pops what the forward call pushed)."""
    return any(isinstance(t, Op) and (t.op in ("load", "store") and t.args[0].name in active
                                      or (t.op == "call" or OPS[t.op].whole_array)
                                      and any(a.name in active for a in t.args))
               for blk in blocks_of(s) for t in walk(blk))
