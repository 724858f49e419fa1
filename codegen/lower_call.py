"""Lowering of native calls (`call`, `callfwd`, `callbwd`): recursive functions.

Each `ir.Callee` becomes up to three internal functions of the LLVM module, emitted on first
use: its primal, its forward half and its backward half (`pyad.ad.callee_gradient`). They
follow the kernel ABI with one extra argument after ctx, the call depth: a top-level kernel
calls with depth 1 and every callee passes its own depth + 1, so a callee entered deeper than
`pyad.recursion.max_depth()` raises RecursionError instead of overflowing the native stack.
A failing callee has already written the error into ctx; the caller returns its status.
"""
from __future__ import annotations

from llvmlite import ir

from pyad.ir import Op

from . import abi

_KIND = {"call": "primal", "callfwd": "fwd", "callbwd": "bwd"}


def call(e, s: Op) -> list[ir.Value]:
    """Emit the call `s` in kernel emitter `e`; the values of its results."""
    fn = _function(e, s.attrs[0], _KIND[s.op])
    b = e.b
    slots = [e.entry_alloca(abi.mem_type(o.type)) for o in s.outs]
    args = [e.ctx, b.add(e.depth, abi.I64(1))] + [e.values[a.name] for a in s.args] + slots
    status = b.call(fn, args)
    with b.if_then(b.icmp_signed("!=", status, abi.I32(0)), likely=False):
        b.ret(status)
    from .emit import from_mem
    return [from_mem(b, b.load(p, typ=abi.mem_type(o.type)), o.type)
            for p, o in zip(slots, s.outs)]


def check_depth(e) -> None:
    """At a callee's entry: RecursionError when called too deep."""
    from pyad.recursion import max_depth
    limit = max_depth()
    bad = e.b.icmp_signed(">", e.depth, abi.I64(limit))
    with e.b.if_then(bad, likely=False):
        e.fail(abi.ERR_RECURSION, f"maximum recursion depth exceeded ({limit} calls) in "
                                  f"`{e.func.name.split('.')[0]}`", None)


def _function(e, callee, kind: str) -> ir.Function:
    """The LLVM function of `callee`'s `kind` half in e's module, emitted on first use."""
    from .emit import KernelEmitter
    registry = e.module.__dict__.setdefault("_pyad_callees", {})
    key = (id(callee), kind)
    if key not in registry:
        if kind == "primal":
            func = callee.func
        else:
            from pyad.ad import callee_gradient
            fwd, bwd = callee_gradient(callee)
            func = fwd if kind == "fwd" else bwd
        name = e.module.get_unique_name(f"{callee.name}.{kind}")
        sub = KernelEmitter(e.module, func, name, fastmath=e.fastmath,
                            boundscheck=e.boundscheck, callee=True)
        sub.fn.linkage = "internal"
        registry[key] = (sub.fn, callee)  # before emitting: the body may call itself
        sub.emit()
    return registry[key][0]
