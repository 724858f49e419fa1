"""The uniform entry of a kernel: ``i32 entry(ptr ctx, ptr args, ptr outs)``.

A kernel takes its scalar parameters by value, so C code that does not know its signature
(the batch runner of runtime/pyad_batch.c, `pyad_entry_fn` in pyad_rt.h) calls it through
this entry: `args[k]` points to scalar parameter k's value in memory (a double, an int64_t,
a bool byte) or is array parameter k's descriptor pointer; `outs[k]` is passed on as out
pointer k. The entry is exported next to the kernel, which stays internal to its module.
"""
from __future__ import annotations

from typing import Sequence

from llvmlite import ir

from . import abi


def entry_name(kernel: ir.Function) -> str:
    return f"{kernel.name}.entry"


def emit_entry(module: ir.Module, kernel: ir.Function, params: Sequence[str],
               outs: Sequence[str]) -> ir.Function:
    """Emit the entry of `kernel` (parameter kinds `params`, out kinds `outs`, as
    `build.KernelSpec.kinds`; 'ptr' parameters are pointers passed as they are)."""
    fn = ir.Function(module, ir.FunctionType(abi.I32, [abi.PTR, abi.PTR, abi.PTR]),
                     entry_name(kernel))
    ctx, args, out_ptrs = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def slot(base: ir.Value, k: int) -> ir.Value:
        p = b.gep(base, [ir.Constant(abi.I64, k)], inbounds=True, source_etype=abi.PTR)
        return b.load(p, typ=abi.PTR)

    values = []
    for k, kind in enumerate(params):
        p = slot(args, k)
        if kind in abi.SCALAR_ARG:
            values.append(abi.from_mem(b, b.load(p, typ=abi.SCALAR_MEM[kind]), kind))
        else:  # an array descriptor or an opaque pointer
            values.append(p)
    values += [slot(out_ptrs, k) for k in range(len(outs))]
    b.ret(b.call(kernel, [ctx] + values))
    return fn
