"""The reference interpreter: runs any IR Func (primal, forward, backward, fused) in Python.

It is the test oracle for everything compiled: each primitive runs its op-table `py`
implementation, which computes what native code computes (IEEE nan/inf rather than Python's
math exceptions, 64-bit integer wrap-around, ZeroDivisionError where native code raises it).
"""
from __future__ import annotations

from typing import Sequence

import builtins

from .ir import BOOL, F64, I64, Block, Func, If, Op, While
from .ops import OPS

_CAST = {F64: float, I64: int, BOOL: bool}


def run(func: Func, args: Sequence, tape: list | None = None) -> tuple:
    """Run `func` on Python scalars; returns the tuple of its results. `tape` is the AD tape
    (a list) that push/pop ops use; pass the same list to a forward and a backward run."""
    if len(args) != len(func.params):
        raise TypeError(f"{func.name} takes {len(func.params)} arguments ({len(args)} given)")
    env = {p.name: _CAST[p.type](a) for p, a in zip(func.params, args)}
    return _block(func.block, env, tape if tape is not None else [])


def _block(block: Block, env: dict, tape: list) -> tuple:
    for s in block.body:
        if isinstance(s, Op):
            if s.op == "const":
                vals = (_CAST[s.outs[0].type](s.attrs[0]),)
            elif s.op == "push":
                tape.append(env[s.args[0].name])
                continue
            elif s.op == "pop":
                vals = (tape.pop(),)
            elif s.op == "raise_if":
                if env[s.args[0].name]:
                    raise getattr(builtins, s.attrs[0])(s.attrs[1])
                continue
            else:
                r = OPS[s.op].py(*(env[a.name] for a in s.args))
                vals = r if isinstance(r, tuple) else (r,)
            for o, v in zip(s.outs, vals):
                env[o.name] = _CAST[o.type](v)
        elif isinstance(s, If):
            taken = s.then if env[s.cond.name] else s.orelse
            vals = _block(taken, env, tape)
            for o, v in zip(s.outs, vals):
                env[o.name] = v
        elif isinstance(s, While):
            vals = tuple(env[v.name] for v in s.inits)
            while True:
                env.update((p.name, v) for p, v in zip(s.cond.params, vals))
                if not _block(s.cond, env, tape)[0]:
                    break
                env.update((p.name, v) for p, v in zip(s.body.params, vals))
                vals = _block(s.body, env, tape)
            for o, v in zip(s.outs, vals):
                env[o.name] = v
        else:
            raise TypeError(f"unknown statement {s!r}")
    return tuple(env[r.name] for r in block.results)
