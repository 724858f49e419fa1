"""Lowering of native calls (`call`, `callfwd`, `callbwd`): recursive functions.

Each `ir.Callee` becomes up to three internal functions of the LLVM module, emitted on first
use by the kernel emitter (`KernelEmitter.callee_function`): its primal, its forward half and
its backward half (the Funcs in `callee.gradient`, made by the pipeline). They follow the
kernel ABI with one extra argument after ctx, the call depth: a top-level kernel calls with
depth 1 and every callee passes its own depth + 1, so a callee entered deeper than the
module's `max_depth` (`ModuleState`, from `pyad.pipeline.max_call_depth()`) raises
RecursionError instead of overflowing the native stack. A failing callee has already written
the error into ctx; the caller returns its status. Arrays cross as kernels take them: by
pointer to a descriptor (`_arg`), results written into descriptor slots; the data they point
to lives in the ctx arena, freed with the top-level call.
"""
from __future__ import annotations

from llvmlite import ir

from pyad.errors import PyadInternalError
from pyad.ir.nodes import Op, is_array

from .. import abi

_KIND = {"call": "primal", "callfwd": "fwd", "callbwd": "bwd"}


def call(e, s: Op) -> list[ir.Value]:
    """Emit the call `s` in kernel emitter `e`; the values of its results."""
    fn = e.callee_function(s.attrs[0], _KIND[s.op])
    b = e.b
    slots = [e.entry_alloca(abi.mem_type(o.type)) for o in s.outs]
    args = [e.ctx, b.add(e.depth, abi.I64(1))] + [_arg(e, a) for a in s.args] + slots
    status = b.call(fn, args)
    with b.if_then(b.icmp_signed("!=", status, abi.I32(0)), likely=False):
        b.ret(status)
    return [abi.from_mem(b, b.load(p, typ=abi.mem_type(o.type)), o.type)
            for p, o in zip(slots, s.outs)]


def _arg(e, a) -> ir.Value:
    """An argument as the kernel ABI passes it: a number by value, an array by pointer to a
    copy of its descriptor (data pointer, shape, strides: a view or a transpose crosses as
    it is, and the callee reads and, for shadows, adds into the caller's memory)."""
    v = e.values[a.name]
    if not is_array(a.type):
        return v
    slot = e.entry_alloca(abi.mem_type(a.type))
    e.b.store(v, slot)
    return slot


def check_depth(e) -> None:
    """At a callee's entry: RecursionError when called too deep."""
    limit = e.state.max_depth
    if limit is None:
        raise PyadInternalError("internal compiler error: a module with native calls needs "
                                "the call-depth limit (ModuleState.max_depth)")
    bad = e.b.icmp_signed(">", e.depth, abi.I64(limit))
    with e.b.if_then(bad, likely=False):
        e.fail(abi.ERR_RECURSION, f"maximum recursion depth exceeded ({limit} calls) in "
                                  f"`{e.func.name.split('.')[0]}`", None)
