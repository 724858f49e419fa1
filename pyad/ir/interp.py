"""The reference interpreter: runs any IR Func (primal, forward, backward, fused) in Python.

It is the test oracle for everything compiled: each primitive runs its op-table `py`
implementation, which computes what native code computes (IEEE nan/inf rather than Python's
math exceptions, 64-bit integer wrap-around, ZeroDivisionError where native code raises it).
"""
from __future__ import annotations

from typing import Sequence

import builtins

import numpy as np

from .. import errors
from .nodes import BOOL, F64, I64, Block, Func, If, Op, While, elem_type, is_array
from .ops import OPS

_SCALAR = {F64: float, I64: int, BOOL: bool}
_DTYPE = {F64: np.float64, I64: np.int64, BOOL: np.bool_}


def _cast(t: str, v):
    return v if is_array(t) else _SCALAR[t](v)


def run(func: Func, args: Sequence, tape: list | None = None) -> tuple:
    """Run `func` on Python scalars and NumPy arrays (which it may write into, as compiled code
    writes into arrays it was given); returns the tuple of its results. `tape` is the AD tape
    (a list) that push/pop ops use; pass the same list to a forward and a backward run."""
    if len(args) != len(func.params):
        raise TypeError(f"{func.name} takes {len(func.params)} arguments ({len(args)} given)")
    env = {p.name: _cast(p.type, a) for p, a in zip(func.params, args)}
    return _block(func.block, env, tape if tape is not None else [])


def _call(s: Op, args: list, tape: list) -> tuple:
    """A native call: the callee's primal, or its forward (pushing its saved values) or
    backward (popping them) half, as the pipeline made them (`Callee.gradient`); Python's own
    recursion limit bounds the depth here."""
    callee = s.attrs[0]
    if s.op == "call":
        return run(callee.func, args, tape)
    if callee.gradient is None:
        raise ValueError(f"{s.op} @{callee.name}: the callee has no gradient (pipeline."
                         "gradient_ir makes the halves of every callee)")
    fwd, bwd = callee.gradient
    return run(fwd if s.op == "callfwd" else bwd, args, tape)


def _block(block: Block, env: dict, tape: list) -> tuple:
    for s in block.body:
        if isinstance(s, Op):
            if s.op == "const":
                vals = (_cast(s.outs[0].type, s.attrs[0]),)
            elif s.op == "push":
                tape.append(env[s.args[0].name])
                continue
            elif s.op == "pop":
                vals = (tape.pop(),)
            elif s.op == "tapemark":  # 8 bytes an entry (array references count 8 too)
                vals = (8 * len(tape),)
            elif s.op == "tapecut":
                del tape[env[s.args[0].name] // 8:]
                continue
            elif s.op == "tapepeak":  # the compiled code's tape_bytes; nothing to keep here
                continue
            elif s.op == "raise_if":
                if env[s.args[0].name]:
                    cls = getattr(builtins, s.attrs[0], None) or getattr(errors, s.attrs[0])
                    raise cls(s.attrs[1])
                continue
            elif s.op in ("call", "callfwd", "callbwd"):
                vals = _call(s, [env[a.name] for a in s.args], tape)
            elif s.op == "alloc":
                t = s.outs[0].type
                vals = (np.zeros(tuple(env[a.name] for a in s.args), _DTYPE[elem_type(t)]),)
            else:
                r = OPS[s.op].py(*(env[a.name] for a in s.args), *s.attrs)
                if r is None:  # store, accum
                    continue
                vals = r if isinstance(r, tuple) else (r,)
            for o, v in zip(s.outs, vals):
                env[o.name] = _cast(o.type, v)
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
