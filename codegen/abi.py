"""The native calling convention shared by generated kernels, wrappers and the C runtime.

Every generated kernel has the signature

    i32 kernel(ptr ctx, <inputs by value>..., ptr out_0, ptr out_1, ...)

where inputs are `double` (f64), `i64` (i64) or `i1` (bool), outputs are written through
pointers to `double` / `i64` / `i8`, and the i32 status is 0 on success. On failure the kernel
has stored an error kind, line and static message into `ctx` (layout: runtime/pyad_rt.h,
`pyad_ctx`) and returns that kind.
"""
from __future__ import annotations

from llvmlite import ir

from pyad.errors import StrongZeros

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
F64 = ir.DoubleType()
PTR = ir.PointerType()

# struct pyad_ctx { i32 err_kind; i32 err_line; ptr err_msg; ptr tape_base, tape_top, tape_end;
#                   ptr arena; size_t tape_peak; }
CTX = ir.LiteralStructType([I32, I32, PTR, PTR, PTR, PTR, PTR, I64])
CTX_SIZE = 56
CTX_ERR_KIND, CTX_ERR_LINE, CTX_ERR_MSG, CTX_TAPE_BASE, CTX_TAPE_TOP, CTX_TAPE_END, \
    CTX_ARENA, CTX_TAPE_PEAK = range(8)
# struct pyad_pullback_header { ptr tape_base, tape_top, tape_end, arena; size_t tape_peak; }:
# the start of every pullback struct; saved values follow it.
PULLBACK_HEADER = [PTR, PTR, PTR, PTR, I64]

# Error kind -> Python exception (builtins name). Index = kind; keep in sync with pyad_rt.h.
ERROR_KINDS = (
    None,
    "ZeroDivisionError",
    "ValueError",
    "IndexError",
    "MemoryError",
    "RecursionError",
    "OverflowError",
    "RuntimeError",
    "LinAlgError",   # numpy.linalg.LinAlgError (a ValueError), not a builtin
    "AssertionError",       # an `assert` of the user's code, and the classes a user's `raise`
    "TypeError",            # may name (pyad/frontend/raising.py)
    "NotImplementedError",
    "ArithmeticError",
    "FloatingPointError",
    "LookupError",
    "KeyError",
    "StrongZeros",   # pyad.errors.StrongZeros: the wrapper runs its `retry` (never the user's)
)
ERR_ZERO_DIVISION, ERR_VALUE, ERR_INDEX, ERR_MEMORY, ERR_RECURSION, ERR_OVERFLOW, ERR_RUNTIME, \
    ERR_LINALG, ERR_ASSERTION, ERR_TYPE, ERR_NOT_IMPLEMENTED, ERR_ARITHMETIC, ERR_FLOATING_POINT, \
    ERR_LOOKUP, ERR_KEY, ERR_STRONG_ZEROS = range(1, 17)


def exception_class(name: str) -> type:
    """The Python exception of error kind `name` (an entry of ERROR_KINDS)."""
    if name == "LinAlgError":
        import numpy.linalg
        return numpy.linalg.LinAlgError
    if name == "StrongZeros":
        return StrongZeros
    import builtins
    return getattr(builtins, name)

# pyad_alloc's `kind` (runtime/pyad_rt.h): a zeroed array, a zeroed shadow (zeroed again by
# pyad_pullback_zero_shadows), an array whose every element the caller writes before reading
ALLOC_ZEROED, ALLOC_SHADOW, ALLOC_WRITTEN = 0, 1, 2

# pyad scalar type name -> (LLVM type of a by-value argument, LLVM type stored through an out pointer)
SCALAR_ARG = {"f64": F64, "i64": I64, "bool": I1}
SCALAR_MEM = {"f64": F64, "i64": I64, "bool": I8}
ITEMSIZE = {"f64": 8, "i64": 8, "bool": 1}


def array_struct(ndim: int) -> ir.LiteralStructType:
    """An array value: struct { T *data; i64 shape[ndim]; i64 strides[ndim]; } with strides
    counted in elements (C: `pyad_array<ndim>d` in a generated header). Kernels take array
    arguments and write array results through pointers to this struct."""
    return ir.LiteralStructType([PTR, ir.ArrayType(I64, ndim), ir.ArrayType(I64, ndim)])


def _ndim(t: str) -> int:
    return int(t[t.index("[") + 1]) if "[" in t else 0


def value_type(t: str) -> ir.Type:
    """The LLVM type of a pyad value in registers."""
    nd = _ndim(t)
    return array_struct(nd) if nd else SCALAR_ARG[t]


def mem_type(t: str) -> ir.Type:
    """The LLVM type of a pyad value stored in memory (outs, pullback structs, tape)."""
    nd = _ndim(t)
    return array_struct(nd) if nd else SCALAR_MEM[t]


def arg_type(t: str) -> ir.Type:
    """The LLVM type of a kernel parameter: scalars by value, arrays by pointer."""
    return PTR if _ndim(t) else SCALAR_ARG[t]


def tape_size(t: str) -> int:
    """Bytes a value of type `t` takes on the AD tape (a bool is widened to 8)."""
    nd = _ndim(t)
    return 8 * (1 + 2 * nd) if nd else 8


def elem_llvm(t: str) -> ir.Type:
    """The element type of array type `t` as stored in memory."""
    return SCALAR_MEM[t.split("[", 1)[0]]


def to_mem(b: ir.IRBuilder, v: ir.Value, t: str) -> ir.Value:
    """A value as it is stored in memory (bool: i1 -> i8)."""
    return b.zext(v, I8) if t == "bool" else v


def from_mem(b: ir.IRBuilder, v: ir.Value, t: str) -> ir.Value:
    """A value loaded from memory as the kernel computes with it (bool: i8 -> i1)."""
    return b.trunc(v, I1) if t == "bool" else v
