"""Linear-algebra rows of the op table (`np.linalg.solve`, `inv`, `det`, `slogdet`,
`cholesky`, `eigh`, `svd`, `qr`), with adjoints written at the array level from their standard rules,
and the few adjoint-only rows those rules use (triangular solve, the triangle maps of the
Cholesky and eigh adjoints).

Their kernels are C routines of the runtime (runtime/pyad_linalg.c): `lower = ("kernel",
C function, message of its LinAlgError)`; codegen/lower/linalg.py checks the shapes,
allocates the result and calls the routine. Like the rows of array_rows.py they are
whole-array primitives to the AD pass (the cotangent of an array result is its shadow);
the late pass pyad/ir/expand.py leaves them as they are. The interpreter runs NumPy.

Results with two parts are packed in one array, which the frontend splits into views:
`slogdet(A)` is [sign, log|det|]; `eigh(A)` is the (n+1, n) array whose row 0 holds the
eigenvalues (ascending) and rows 1..n the eigenvectors (columns), each signed so that its
largest-magnitude component (the first of equals) is positive; `svd(A)` of an m x n A is
the (1 + m + n, k) array, k = min(m, n), of the singular values (descending), U (m x k)
and V (n x k), A = U diag(s) V^T, each pair signed so that V's column has its largest-
magnitude component (the first of equals) positive.

`qr(A)` of an m x n A is the (m + k) x n array, k = min(m, n), of the reduced Q (m x k, in
its first k columns) over R (k x n), with LAPACK's (NumPy's) signs; its adjoint (Liao et al.
2019) divides by R's diagonal, so a rank-deficient A has no gradient (inf or nan, as in JAX).

Like NumPy (LAPACK's UPLO='L'), `cholesky` and `eigh` read only the lower triangle of A, so
their gradients have zeros above the diagonal: the gradient of the symmetric matrix's
function, folded onto the lower triangle (`tril_fold`). The eigenvector part of eigh's
adjoint divides by eigenvalue gaps λj - λi; where two eigenvalues are exactly equal the
term is taken as 0 (the eigenvectors of a repeated eigenvalue are not unique, so only
objectives that do not depend on the choice have a gradient; for those it is right).
The adjoint of svd is the same kind of rule: its terms over s[j]^2 - s[i]^2 are taken as 0
where two singular values are equal, and its terms with 1/s as 0 where s is 0 (the
singular vectors are then not unique), so functions of the singular values alone
(`np.linalg.norm(A, 2)`, the nuclear norm) get U diag(sbar) V^T.
"""
from __future__ import annotations

import numpy as np

from .nodes import F64, I64, array_type, elem_type, is_array, ndim_of
from .opdef import OpDef

M2 = array_type(F64, 2)
V1 = array_type(F64, 1)


def _square_sig(result):
    def sig(ts):
        return result if len(ts) == 1 and ts[0] == M2 else None
    return sig


def _solve_sig(ts):
    if len(ts) == 2 and ts[0] == M2 and is_array(ts[1]) and elem_type(ts[1]) == F64 \
            and ndim_of(ts[1]) <= 2:
        return ts[1]
    return None


def _trisolve_sig(ts, attrs):
    return M2 if ts == (M2, M2) and len(attrs) == 1 and isinstance(attrs[0], bool) else None


def _mid_sig(ts):
    return M2 if ts == (V1, V1, M2) else None


def _neg(b, a):
    return b.scale(a, b.const(-1.0))


def _solve_adjoint(b, ct, x, A, B):
    """x = A^-1 B:  dB = A^-T ct,  dA = -dB x^T."""
    dB = b.solve(b.transpose(A), ct)
    if ndim_of(B.type) == 1:
        return b.outer(_neg(b, dB), x), dB
    return b.matmul(_neg(b, dB), b.transpose(x)), dB


def _inv_adjoint(b, ct, Y, A):
    """Y = A^-1:  dA = -Y^T ct Y^T."""
    return (_neg(b, b.matmul(b.matmul(b.transpose(Y), ct), b.transpose(Y))),)


def _det_adjoint(b, ct, d, A):
    """d = det A:  dA = ct d A^-T (the inverse of a singular A raises LinAlgError)."""
    return (b.scale(b.transpose(b.inv(A)), b.mul(ct, d)),)


def _slogdet_adjoint(b, ct, y, A):
    """[sign, log|det A|]:  dA = ct[1] A^-T (the sign is piecewise constant)."""
    return (b.scale(b.transpose(b.inv(A)), b.emit("load", ct, b.const(1, I64))),)


def _cholesky_adjoint(b, ct, L, A):
    """A = L L^T (Murray 2016): S = L^-T Phi(L^T ct) L^-1 with Phi the lower triangle and
    half the diagonal; the gradient of the lower triangle A is read from: tril_fold(S)."""
    Lt = b.transpose(L)
    X = b.emit("trisolve", Lt, b.tril_half(b.matmul(Lt, ct)), attrs=(False,))
    St = b.emit("trisolve", Lt, b.transpose(X), attrs=(False,))   # (X L^-1)^T = L^-T X^T
    return (b.tril_fold(St),)


def _eigh_adjoint(b, ct, P, A):
    """A = V diag(w) V^T, P = [w; V]:  dA = tril_fold(V (diag(ct_w) + F o (V^T ct_V)) V^T)
    with F[i, j] = 1 / (w[j] - w[i]) off the diagonal (0 where they are equal)."""
    n = b.emit("dim", A, attrs=(0,), type=I64)
    zero, one = b.const(0, I64), b.const(1, I64)
    end = b.add(n, one)
    w, V = b.row(P, zero), b.slice(P, one, end)
    cw, cV = b.row(ct, zero), b.slice(ct, one, end)
    mid = b.eigh_mid(w, cw, b.matmul(b.transpose(V), cV))
    return (b.tril_fold(b.matmul(b.matmul(V, mid), b.transpose(V))),)


def _svd_sig(ts):
    return M2 if ts == (M2,) else None


def _svd_back_sig(ts):
    return M2 if ts == (M2, M2, M2) else None


def _svd_adjoint(b, ct, P, A):
    """A = U diag(s) V^T, P = [s; U; V]: the standard rule (Townsend 2016), in one kernel."""
    return (b.emit("svd_back", P, ct, A),)


def _qr_adjoint(b, ct, P, A):
    """A = Q R, P = [Q (padded to A's width); R]: Liao et al. 2019, in one kernel."""
    return (b.emit("qr_back", P, ct, A),)


def _qr_py(a):
    m, n = a.shape
    q, r = np.linalg.qr(a)
    return np.vstack([np.hstack([q, np.zeros((m, n - q.shape[1]))]), r])


def _qr_back_py(p, ct, a):
    m, n = a.shape
    k = min(m, n)
    q, r, qb, rb = p[:m, :k], p[m:], ct[:m, :k], ct[m:]
    qb = qb + a[:, k:] @ rb[:, k:].T
    mid = r[:, :k] @ rb[:, :k].T - qb.T @ q
    sym = np.tril(mid) + np.tril(mid, -1).T
    xb = np.linalg.solve(r[:, :k], (qb + q @ sym).T).T
    return np.hstack([xb, q @ rb[:, k:]])


def _spd(args):
    """A random matrix made symmetric positive definite: A A^T + n I."""
    return [a @ a.T + len(a) * np.eye(len(a)) for a in args]


def _slogdet_py(a):
    return np.array(np.linalg.slogdet(a))


def _eigh_py(a):
    w, v = np.linalg.eigh(a)
    if v.size:
        big = np.argmax(np.abs(v), axis=0)
        v = v * np.where(v[big, np.arange(len(w))] < 0, -1.0, 1.0)
    return np.vstack([w[None, :], v])


def _svd_py(a):
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    v = vt.T
    if v.size:
        big = np.argmax(np.abs(v), axis=0)
        flip = np.where(v[big, np.arange(len(s))] < 0, -1.0, 1.0)
        u, v = u * flip, v * flip
    return np.vstack([s[None, :], u, v])


def _svd_back_py(p, ct, a):
    m = a.shape[0]
    s, u, v = p[0], p[1:1 + m], p[1 + m:]
    sb, ub, vb = ct[0], ct[1:1 + m], ct[1 + m:]
    x, y = u.T @ ub, v.T @ vb
    gap = s[None, :] ** 2 - s[:, None] ** 2
    f = np.divide(1.0, gap, out=np.zeros_like(gap), where=gap != 0)
    j = f * (x - x.T) * s[None, :] + s[:, None] * (f * (y - y.T)) + np.diag(sb)
    inv = np.divide(1.0, s, out=np.zeros_like(s), where=s != 0)
    return (u @ j + (ub - u @ x) * inv) @ v.T + u @ ((vb - v @ y) * inv).T


def _trisolve_py(t, x, lower):
    return np.linalg.solve(np.tril(t) if lower else np.triu(t), x)


def _tril_half_py(x):
    return np.tril(x, -1) + np.diag(np.diag(x)) / 2


def _tril_fold_py(x):
    return np.tril(x + x.T, -1) + np.diag(np.diag(x))


def _eigh_mid_py(w, wbar, x):
    gap = w[None, :] - w[:, None]
    out = np.divide(x, gap, out=np.zeros_like(x), where=gap != 0)
    np.fill_diagonal(out, wbar)
    return out


SQUARE = (((3, 3),), ((1, 1),), ((5, 5),))

LINALG_ROWS = [
    OpDef("solve", _solve_sig, np.linalg.solve, _solve_adjoint,
          ("kernel", "pyad_la_solve", "Singular matrix"),
          "A^-1 b for a square A and b of 1 or 2 dimensions (LU with partial pivoting); "
          "LinAlgError for a singular A",
          samples=(((3, 3), (3,)), ((3, 3), (3, 2)), ((1, 1), (1,)), ((4, 4), (4, 1))),
          memory="alloc", strong_zero=False, reads_result=True),
    OpDef("inv", _square_sig(M2), np.linalg.inv, _inv_adjoint,
          ("kernel", "pyad_la_inv", "Singular matrix"),
          "A^-1 of a square A; LinAlgError for a singular A", samples=SQUARE,
          memory="alloc", strong_zero=False, reads_result=True),
    OpDef("det", _square_sig(F64), lambda a: float(np.linalg.det(a)), _det_adjoint,
          ("kernel", "pyad_la_det", ""),
          "det A (from the LU factorization; 0 for a singular A)", samples=SQUARE,
          memory="read", strong_zero=False),
    OpDef("slogdet", _square_sig(V1), _slogdet_py, _slogdet_adjoint,
          ("kernel", "pyad_la_slogdet", ""),
          "[sign(det A), log|det A|] (sign 0 and -inf for a singular A)", samples=SQUARE,
          memory="alloc", strong_zero=False),
    OpDef("cholesky", _square_sig(M2), np.linalg.cholesky, _cholesky_adjoint,
          ("kernel", "pyad_la_cholesky", "Matrix is not positive definite"),
          "the lower Cholesky factor of the symmetric matrix of A's lower triangle; "
          "LinAlgError when it is not positive definite", samples=SQUARE,
          memory="alloc", strong_zero=False, reads_result=True, domain=_spd),
    OpDef("eigh", _square_sig(M2), _eigh_py, _eigh_adjoint,
          ("kernel", "pyad_la_eigh", "Eigenvalues did not converge"),
          "[w; V] ((n+1) x n): the eigenvalues and eigenvectors of the symmetric matrix of "
          "A's lower triangle (see the module docstring)", samples=SQUARE,
          memory="alloc", strong_zero=False, reads_result=True),
    OpDef("svd", _svd_sig, _svd_py, _svd_adjoint,
          ("kernel", "pyad_la_svd", "SVD did not converge"),
          "[s; U; V] ((1 + m + n) x k, k = min(m, n)): the reduced singular value "
          "decomposition A = U diag(s) V^T (see the module docstring)",
          samples=(((3, 3),), ((4, 2),), ((2, 5),), ((1, 1),)),
          memory="alloc", strong_zero=False, reads_result=True),
    OpDef("qr", _svd_sig, _qr_py, _qr_adjoint,
          ("kernel", "pyad_la_qr", ""),
          "[Q; R] ((m + k) x n, k = min(m, n)): the reduced QR factorization A = Q R by "
          "Householder reflections, with NumPy's signs (see the module docstring)",
          samples=(((4, 3),), ((3, 3),), ((2, 5),), ((1, 1),), ((5, 1),)),
          memory="alloc", strong_zero=False, reads_result=True),
    # --- used by the adjoints above
    OpDef("svd_back", _svd_back_sig, _svd_back_py, None,
          ("kernel", "pyad_la_svd_back", ""),
          "the adjoint of svd at its result P for the cotangent ct, of A's shape (A is "
          "read for its shape only); adjoint code only",
          samples=(((7, 2), (7, 2), (4, 2)), ((6, 3), (6, 3), (3, 2)), ((3, 1), (3, 1), (1, 1))),
          memory="alloc"),
    OpDef("qr_back", _svd_back_sig, _qr_back_py, None,
          ("kernel", "pyad_la_qr_back", ""),
          "the adjoint of qr at A and its result P for the cotangent ct, of A's shape; "
          "adjoint code only",
          samples=(((7, 3), (7, 3), (4, 3)), ((4, 4), (4, 4), (2, 4)), ((2, 2), (2, 2), (1, 2))),
          memory="alloc", domain=lambda args: [_qr_py(args[2]), args[1], args[2]]),
    OpDef("trisolve", _trisolve_sig, _trisolve_py, None,
          ("kernel", "pyad_la_trisolve", ""),
          "T^-1 X for T lower (attrs[0]) or upper triangular; adjoint code only",
          samples=(((3, 3), (3, 2), True), ((3, 3), (3, 3), False)), memory="alloc",
          attr_typed=True, domain=lambda args: [args[0] + 4 * np.eye(len(args[0])), args[1]]),
    OpDef("tril_half", _square_sig(M2), _tril_half_py, None,
          ("kernel", "pyad_la_tril_half", ""),
          "the lower triangle of X with half its diagonal; adjoint code only",
          samples=SQUARE, memory="alloc"),
    OpDef("tril_fold", _square_sig(M2), _tril_fold_py, None,
          ("kernel", "pyad_la_tril_fold", ""),
          "the lower triangle of X + X^T with X's diagonal; adjoint code only",
          samples=SQUARE, memory="alloc"),
    OpDef("eigh_mid", _mid_sig, _eigh_mid_py, None,
          ("kernel", "pyad_la_eigh_mid", ""),
          "diag(wbar) + F o X with F[i, j] = 1 / (w[j] - w[i]) (0 where equal); adjoint "
          "code only", samples=(((3,), (3,), (3, 3)), ((1,), (1,), (1, 1))), memory="alloc"),
]
