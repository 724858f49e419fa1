"""Lowering of the `matmul` row (pyad/ir/array_rows.py: `@`, np.dot, np.matmul and the
products of their adjoints): check that the inner dimensions agree as NumPy does, allocate
the result from the call's arena, and call the runtime's blocked kernel `pyad_matmul`
(runtime/pyad_matmul.c) on strided descriptors, so every layout (contiguous, transposed and
strided views) runs through the same kernel and gives the same bits. A 1-D operand is a
1 x k (left) or k x 1 (right) matrix; the product of two vectors is a 1 x 1 result in a
stack slot. Same calling convention as lower/custom.py."""
from __future__ import annotations

from llvmlite import ir

from pyad.ir.nodes import ndim_of

from .. import abi
from .array import alloc, make_array

MAT = abi.array_struct(2)


def _i(x: int) -> ir.Constant:
    return ir.Constant(abi.I64, x)


def _mat(e, data, shape: list, strides: list) -> ir.Value:
    """A pointer to a 2-D descriptor (a stack slot of the function's entry)."""
    slot = e.entry_alloca(MAT)
    e.b.store(make_array(e.b, "f64[2d]", data, shape, strides), slot)
    return slot


def _operand(e, a, nd: int, row: bool) -> ir.Value:
    """The descriptor of operand `a`: itself if 2-D, else 1 x k (`row`) or k x 1."""
    b = e.b
    data = b.extract_value(a, 0)
    if nd == 2:
        return _mat(e, data, [b.extract_value(a, [1, k]) for k in (0, 1)],
                    [b.extract_value(a, [2, k]) for k in (0, 1)])
    n, st = b.extract_value(a, [1, 0]), b.extract_value(a, [2, 0])
    return _mat(e, data, [_i(1), n], [_i(0), st]) if row else \
        _mat(e, data, [n, _i(1)], [st, _i(0)])


def matmul(e, s, t, A, B):
    b = e.b
    na, nb = ndim_of(s.args[0].type), ndim_of(s.args[1].type)
    k = b.extract_value(A, [1, na - 1])
    e.check(b.icmp_signed("!=", k, b.extract_value(B, [1, 0])), abi.ERR_VALUE,
            "shapes are not aligned for np.dot / @", s)
    shape = ([b.extract_value(A, [1, 0])] if na == 2 else []) \
        + ([b.extract_value(B, [1, 1])] if nb == 2 else [])
    if shape:
        out = alloc(e, s, t, *shape, written=True)   # pyad_matmul writes every element
        data = b.extract_value(out, 0)
        rows, cols = (shape[0], _i(1)) if nb == 1 else (_i(1), shape[0]) if na == 1 \
            else shape
        c = _mat(e, data, [rows, cols], [cols, _i(1)])   # alloc's result is C-contiguous
    else:   # two vectors: a number
        out = data = e.entry_alloca(abi.F64)
        c = _mat(e, data, [_i(1), _i(1)], [_i(1), _i(1)])
    fn = e.extern("pyad_matmul", abi.I32, [abi.PTR] * 3)
    status = b.call(fn, [_operand(e, A, na, True), _operand(e, B, nb, False), c])
    e.check(b.icmp_signed("!=", status, ir.Constant(abi.I32, 0)), abi.ERR_MEMORY,
            "out of memory in a matrix product", s)
    return out if shape else b.load(data, typ=abi.F64)


MATMUL_LOWERINGS = {"matmul": matmul}
