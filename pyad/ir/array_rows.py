"""Whole-array primitives: rows of the op table whose arguments and results are arrays, with
adjoints written at the array level (the adjoint of `A @ B` is two products, not a tape of
elements). Their values are new arrays (the arguments are only read).

Each row's `py` is NumPy itself (the interpreter runs it); `lower=("loops",)` says the late
pass pyad/ir/expand.py turns the op into element loops after AD, so a kernel (BLAS, vector
math) can replace a row's loops in one place. `matmul` is such a kernel: `("kernel", ...)`,
the runtime's blocked matrix product (runtime/pyad_matmul.c, lowered by
codegen/lower/matmul.py). The AD pass reads the cotangent of an array
result from its shadow array and adds each array contribution into the argument's shadow
(`addto`); see pyad/ad/reverser.py.

Attributes: `sum` takes (keepdims, *axes), axes sorted non-negative ints (flat, so the IR
text form reads them back: `sum %a, false, 0, 2`); `spread`, its adjoint, the same.
"""
from __future__ import annotations

import numpy as np

from .nodes import F64, I64, array_type, elem_type, is_array, ndim_of
from .opdef import VOID, OpDef


def _f64_arrays(ts: tuple, n: int, max_nd: int = 3) -> bool:
    return len(ts) == n and all(is_array(t) and elem_type(t) == F64
                                and ndim_of(t) <= max_nd for t in ts)


def _matmul_sig(ts):
    if not _f64_arrays(ts, 2, 2):
        return None
    nd = ndim_of(ts[0]) + ndim_of(ts[1]) - 2
    return array_type(F64, nd) if nd else F64


def _matmul_adjoint(b, ct, y, A, B):
    na, nb = ndim_of(A.type), ndim_of(B.type)
    if na == 2 and nb == 2:   # C = A B:  dA = ct B^T,  dB = A^T ct
        return b.matmul(ct, b.transpose(B)), b.matmul(b.transpose(A), ct)
    if na == 2:               # y = A x:  dA = outer(ct, x),  dx = A^T ct
        return b.outer(ct, B), b.matmul(b.transpose(A), ct)
    if nb == 2:               # y = x B:  dx = B ct,  dB = outer(x, ct)
        return b.matmul(B, ct), b.outer(A, ct)
    return b.scale(B, ct), b.scale(A, ct)   # s = x . y


def _outer_sig(ts):
    return array_type(F64, 2) if _f64_arrays(ts, 2, 1) else None


def _scale_sig(ts):
    return ts[0] if len(ts) == 2 and _f64_arrays(ts[:1], 1) and ts[1] == F64 else None


def _vdot_sig(ts):
    return F64 if _f64_arrays(ts, 2) and ts[0] == ts[1] else None


def _reduced_type(t: str, attrs: tuple) -> str | None:
    keepdims, axes = attrs[0], attrs[1:]
    nd = ndim_of(t)
    if not all(0 <= k < nd for k in axes) or len(set(axes)) != len(axes):
        return None
    elem = F64 if elem_type(t) == F64 else I64
    left = nd if keepdims else nd - len(axes)
    return array_type(elem, left) if left else elem


def _sum_sig(ts, attrs):
    return _reduced_type(ts[0], attrs) if len(ts) == 1 and is_array(ts[0]) else None


def _spread_sig(ts, attrs):
    """spread(ct, like): ct (the type `sum(like, attrs)` has) broadcast to like's shape."""
    if len(ts) != 2 or not is_array(ts[1]) or elem_type(ts[1]) != F64:
        return None
    return ts[1] if _reduced_type(ts[1], attrs) == ts[0] else None


def _sum_py(a, keepdims, *axes):
    return np.sum(a, axis=axes, keepdims=keepdims)


def _spread_py(ct, like, keepdims, *axes):
    ct = np.asarray(ct)
    if not keepdims:
        ct = np.expand_dims(ct, axes)
    return np.broadcast_to(ct, like.shape).copy()


def _addto_sig(ts):
    if len(ts) == 2 and is_array(ts[0]) and elem_type(ts[0]) == F64 \
            and (ts[1] == F64 or ts[1] == ts[0]):
        return VOID
    return None


def _addto_py(dst, src):
    dst += src


def _copy_sig(ts):
    return ts[0] if len(ts) == 1 and is_array(ts[0]) else None


def _same_dims(nds, attrs=()):
    """The result has the first argument's shape (scale, copy)."""
    return [(0, k) for k in range(nds[0])]


def _sum_dims(nds, attrs):
    keepdims, axes = attrs[0], attrs[1:]
    return [1 if k in axes else (0, k) for k in range(nds[0]) if keepdims or k not in axes]


def _matmul_dims(nds, attrs=()):
    """(n, m) @ (m, p): (n, p); a vector operand drops its axis; batches: not known here."""
    if max(nds) > 2:
        return None
    return ([(0, 0)] if nds[0] == 2 else []) + ([(1, 1)] if nds[1] == 2 else [])


ARRAY_ROWS = [
    OpDef("matmul", _matmul_sig, lambda a, b: a @ b, _matmul_adjoint,
          ("kernel", "pyad_matmul", ""),
          "A @ B of 1-D and 2-D f64 arrays (a number for two vectors); ValueError when the "
          "inner dimensions differ",
          samples=(((2, 3), (3, 4)), ((2, 3), (3,)), ((3,), (3, 2)), ((4,), (4,)),
                   ((1, 0), (0, 2)), ((0, 3), (3, 1))),
          memory="alloc", strong_zero=False, dims=_matmul_dims),
    OpDef("outer", _outer_sig, np.outer,
          lambda b, ct, y, x, z: (b.matmul(ct, z), b.matmul(b.transpose(ct), x)),
          ("loops",), "outer product of two 1-D f64 arrays",
          samples=(((3,), (2,)), ((1,), (4,)), ((0,), (2,))), memory="alloc",
          strong_zero=False, dims=lambda nds, attrs=(): [(0, 0), (1, 0)]),
    OpDef("scale", _scale_sig, lambda a, s: a * s,
          lambda b, ct, y, a, s: (b.scale(ct, s), b.vdot(ct, a)), ("loops",),
          "a * s of an f64 array and a number", samples=(((2, 3), ()), ((4,), ())),
          memory="alloc", strong_zero=False, dims=_same_dims),
    OpDef("vdot", _vdot_sig, lambda a, c: float(np.sum(a * c)),
          lambda b, ct, y, a, c: (b.scale(c, ct), b.scale(a, ct)), ("loops",),
          "sum(a * c) of two f64 arrays of one shape, in row-major order",
          samples=(((2, 3), (2, 3)), ((5,), (5,))), memory="read", strong_zero=False),
    OpDef("sum", _sum_sig, _sum_py,
          lambda b, ct, y, a, attrs: (b.emit("spread", ct, a, attrs=attrs),), ("loops",),
          "the sum of a over the axes attrs[1:], kept as size 1 if attrs[0] (keepdims)",
          samples=(((2, 3), (False, 0)), ((2, 3), (True, 1)),
                                         ((2, 3, 2), (False, 0, 2)), ((4,), (False, 0)),
                                         ((0, 3), (True, 0)), ((2, 3), (False, 0, 1))),
          memory="read", strong_zero=False, attr_typed=True, dims=_sum_dims),
    OpDef("spread", _spread_sig, _spread_py, None, ("loops",),
          "ct broadcast back over the axes a `sum` with the same attrs removed, to the shape "
          "of `like` (the adjoint of sum); adjoint code only", memory="alloc",
          samples=(((3,), (2, 3), (False, 0)), ((2, 1), (2, 3), (True, 1)),
                   ((), (2, 2), (False, 0, 1)), ((1, 1, 1), (2, 3, 1), (True, 0, 1, 2))),
          attr_typed=True, dims=lambda nds, attrs: [(1, k) for k in range(nds[1])]),
    OpDef("addto", _addto_sig, _addto_py, None, ("loops",),
          "dst += src elementwise (src an array of dst's shape, or a number): accumulation "
          "into a shadow array; adjoint code only", effect=True, memory="write"),
    OpDef("copy", _copy_sig, np.copy, lambda b, ct, y, a: (ct,), ("loops",),
          "a new C-contiguous array with a's elements", samples=(((2, 3),), ((0, 2, 1),)),
          memory="alloc", strong_zero=False, dims=_same_dims),
]
