"""Lowerings of the linear-algebra rows (pyad/ir/linalg_rows.py, `lower = ("kernel", C
function, message)`): check the operands' shapes as NumPy does, allocate the result from the
call's arena (array.alloc), call the runtime routine (runtime/pyad_linalg.c) on pointers to
matrix descriptors, and turn its status into MemoryError or the row's LinAlgError naming the
user's line. One function per row; same convention as lower/custom.py."""
from __future__ import annotations

from llvmlite import ir

from pyad.ir.nodes import ndim_of
from pyad.ir.ops import OPS

from .. import abi
from .array import make_array, alloc

MAT = abi.array_struct(2)


def _i(x: int) -> ir.Constant:
    return ir.Constant(abi.I64, x)


def _dim(e, a, k):
    return e.b.extract_value(a, [1, k])


def _mat(e, a, t: str):
    """A pointer to a 2-D descriptor of the array value `a` (a 1-D array as n x 1)."""
    b = e.b
    if ndim_of(t) == 1:
        a = make_array(b, "f64[2d]", b.extract_value(a, 0), [_dim(e, a, 0), _i(1)],
                  [b.extract_value(a, [2, 0]), _i(1)])
    slot = e.entry_alloca(MAT)
    b.store(a, slot)
    return slot


def _square(e, s, a) -> ir.Value:
    """A's order; LinAlgError unless A is square."""
    n = _dim(e, a, 0)
    e.check(e.b.icmp_signed("!=", n, _dim(e, a, 1)), abi.ERR_LINALG,
            "Last 2 dimensions of the array must be square", s)
    return n


def _run(e, s, ptrs: list) -> None:
    """Call the row's routine and raise on its status."""
    name, message = OPS[s.op].lower[1:]
    fn = e.extern(name, abi.I32, [p.type for p in ptrs])
    status = e.b.call(fn, ptrs)
    e.check(e.b.icmp_signed("==", status, ir.Constant(abi.I32, abi.ERR_MEMORY)),
            abi.ERR_MEMORY, f"out of memory in np.linalg.{s.op}", s)
    if message:
        e.check(e.b.icmp_signed("!=", status, ir.Constant(abi.I32, 0)), abi.ERR_LINALG,
                message, s)


def _new(e, s, t, shape):
    return alloc(e, s, t, *shape)


def solve(e, s, t, A, B):
    n = _square(e, s, A)
    e.check(e.b.icmp_signed("!=", _dim(e, B, 0), n), abi.ERR_VALUE,
            "solve: the first dimension of b does not match the order of A", s)
    X = _new(e, s, t, [_dim(e, B, k) for k in range(ndim_of(t))])
    _run(e, s, [_mat(e, A, s.args[0].type), _mat(e, B, t), _mat(e, X, t)])
    return X


def _unary(e, s, t, A, shape):
    out = _new(e, s, t, shape)
    _run(e, s, [_mat(e, A, s.args[0].type), _mat(e, out, t)])
    return out


def square_result(e, s, t, A):
    """inv, cholesky, and the adjoint-only tril_half and tril_fold: an n x n result."""
    n = _square(e, s, A)
    return _unary(e, s, t, A, [n, n])


def eigh(e, s, t, A):
    n = _square(e, s, A)
    return _unary(e, s, t, A, [e.b.add(n, _i(1)), n])


def det(e, s, t, A):
    _square(e, s, A)
    slot = e.entry_alloca(abi.F64)
    _run(e, s, [_mat(e, A, s.args[0].type), slot])
    return e.b.load(slot, typ=abi.F64)


def slogdet(e, s, t, A):
    _square(e, s, A)
    out = _new(e, s, t, [_i(2)])
    _run(e, s, [_mat(e, A, s.args[0].type), e.b.extract_value(out, 0)])
    return out


def trisolve(e, s, t, T, B):
    X = _new(e, s, t, [_dim(e, B, 0), _dim(e, B, 1)])
    _run(e, s, [_mat(e, T, t), _mat(e, B, t), _mat(e, X, t),
                ir.Constant(abi.I32, int(s.attrs[0]))])
    return X


def eigh_mid(e, s, t, w, wbar, X):
    n = _dim(e, X, 0)
    out = _new(e, s, t, [n, n])
    _run(e, s, [_mat(e, w, "f64[1d]"), _mat(e, wbar, "f64[1d]"), _mat(e, X, t), _mat(e, out, t)])
    return out


def svd(e, s, t, A):
    m, n = _dim(e, A, 0), _dim(e, A, 1)
    k = e.b.select(e.b.icmp_signed("<", m, n), m, n)
    return _unary(e, s, t, A, [e.b.add(e.b.add(m, n), _i(1)), k])


def svd_back(e, s, t, P, ct, A):
    out = _new(e, s, t, [_dim(e, A, 0), _dim(e, A, 1)])
    _run(e, s, [_mat(e, P, t), _mat(e, ct, t), _mat(e, A, t), _mat(e, out, t)])
    return out


def qr(e, s, t, A):
    m, n = _dim(e, A, 0), _dim(e, A, 1)
    k = e.b.select(e.b.icmp_signed("<", m, n), m, n)
    return _unary(e, s, t, A, [e.b.add(m, k), n])


LINALG_LOWERINGS = {
    "solve": solve, "inv": square_result, "det": det, "slogdet": slogdet,
    "cholesky": square_result, "eigh": eigh, "trisolve": trisolve,
    "tril_half": square_result, "tril_fold": square_result, "eigh_mid": eigh_mid,
    "svd": svd, "svd_back": svd_back, "qr": qr, "qr_back": svd_back,
}
