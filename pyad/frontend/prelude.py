"""Frontend, NumPy functions written in the compiled subset itself: a call `np.<name>(...)` of
a name here is compiled as a call of the Python function below (arrays.py `numpy_call`), so it
is lowered, differentiated and checked like a helper of the user's. Adding a NumPy function
that is a short algorithm over existing operations means writing it here.

The functions take what NumPy's take for the common case and are refused otherwise at the
call site (a keyword they do not have: "unexpected keyword argument"):
- `polyval(p, x)`: Horner's rule; `p` a 1-D array, list or tuple, `x` a number or an array;
- `vander(x, N=None, increasing=False)`: the powers as NumPy makes them (each column the
  previous one times x, so the same bits);
- `nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None)` of an array: nan, inf and
  -inf replaced (by default with 0 and the largest finite doubles); the gradient flows
  through the other elements;
- `np.linalg.pinv(a, rcond=None, hermitian=False, rtol=...)`, `np.linalg.lstsq(a, b,
  rcond=None)` (the minimum-norm solution, residuals, rank and singular values, as NumPy),
  `np.linalg.matrix_rank(A, tol=None, hermitian=False, rtol=None)`, `np.linalg.cond(x,
  p=None)` (p None or a number; inf for a zero matrix, as NumPy), from np.linalg.svd, as
  functions `linalg_<name>`; of a 3-D stack, one result per matrix (a loop calling the
  2-D function, `_pinv`, ...: the prelude's functions may call each other, calls.py);
- `np.linalg.matrix_power(a, n)`: products by repeated squaring (NumPy's order of them), the
  inverse's powers for n < 0, of a stack too; a float result (NumPy keeps an int matrix's
  dtype), ValueError (NumPy: LinAlgError, a ValueError) for a matrix that is not square;
- `logspace(start, stop, num=50, endpoint=True, base=10.0)`, `geomspace(start, stop,
  num=50, endpoint=True)` (NumPy's formulas: its ends exactly start and stop),
  `column_stack(seq)` (vectors become columns; a list of arrays stays a list: SEQUENCES).
The integer functions of `math` are here too, as `math_<name>` (functions.py routes a call
`math.factorial(n)` to them): `factorial(n)`, `comb(n, k)`, `isqrt(n)`, `gcd(a, b)`, with
CPython's ValueErrors; their ints are 64-bit, so a result past 2**63 (21!, comb(68, 34))
raises OverflowError where CPython's int would grow.
A statement of these is located at the user's call (calls.py `child`): their errors name it.
(np.median, np.percentile, np.quantile and np.interp, once here, are frontend functions now:
sorting.py, where `axis` and arrays of `x` are at hand.)
"""
from __future__ import annotations

import math

import numpy as np

NAMES = ("polyval", "vander", "nan_to_num", "linalg.pinv", "linalg.lstsq", "linalg.matrix_rank",
         "linalg.cond", "linalg.matrix_power", "logspace", "geomspace", "column_stack")
#: math's functions of ints written here (functions.py)
MATH_NAMES = ("factorial", "comb", "isqrt", "gcd")
#: the functions whose first argument is a sequence of arrays (a list stays a list)
SEQUENCES = ("column_stack",)
EPS = 2.220446049250313e-16   # np.finfo(float).eps


def polyval(p, x):
    y = x * 0.0
    for c in p:
        y = y * x + c
    return y


def vander(x, N=-1, increasing=False):   # N=-1: NumPy's None (a helper's default is a number)
    n = x.shape[0]
    m = n if N < 0 else N
    out = np.ones((n, m))
    for i in range(n):
        v = 1.0
        for j in range(m):
            out[i, j if increasing else m - 1 - j] = v
            v = v * x[i]
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0):
    if endpoint:
        return np.power(base, np.linspace(start, stop, num))
    return np.power(base, np.linspace(start, stop, num, endpoint=False))


def geomspace(start, stop, num=50, endpoint=True):
    if start == 0.0 or stop == 0.0:
        raise ValueError("Geometric sequence cannot include zero")
    sign = np.sign(start)
    first, last = start / sign, stop / sign
    out = logspace(np.log10(first), np.log10(last), num, endpoint)
    if num > 0:
        out[0] = first
        if num > 1 and endpoint:
            out[num - 1] = last
    return out * sign


def column_stack(tup):
    return np.concatenate([a.reshape(a.shape[0], 1) if a.ndim == 1 else a for a in tup], axis=1)


def nan_to_num(x, copy=True, nan=0.0, posinf=1.7976931348623157e308,
               neginf=-1.7976931348623157e308):
    big = 1.7976931348623157e308 if posinf is None else posinf
    small = -1.7976931348623157e308 if neginf is None else neginf
    return np.where(np.isnan(x), nan,
                    np.where(x == np.inf, big, np.where(x == -np.inf, small, x)))


# np.linalg.<name> is the function linalg_<name>; each reads the singular values of
# np.linalg.svd (the op table's row), with NumPy's cutoffs.
def linalg_pinv(a, rcond=None, hermitian=False, rtol=-1.0):
    if a.ndim == 3:   # a stack: one pseudo-inverse per matrix
        out = np.zeros((a.shape[0], a.shape[2], a.shape[1]))
        for i in range(a.shape[0]):
            out[i] = _pinv(a[i], rcond, rtol)
        return out
    return _pinv(a, rcond, rtol)


def _pinv(a, rcond, rtol):
    if a.shape[0] == 0 or a.shape[1] == 0:
        return np.zeros((a.shape[1], a.shape[0]))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    r = 1e-15 if rcond is None else rcond
    if rtol is None:
        r = max(a.shape[0], a.shape[1]) * EPS
    elif rtol >= 0.0:
        r = rtol
    large = s > r * np.max(s)
    inverse = np.where(large, 1.0 / s, 0.0)
    return vh.T @ (inverse[:, None] * u.T)


def linalg_lstsq(a, b, rcond=None):
    m, n = a.shape[0], a.shape[1]
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    r = max(m, n) * EPS if rcond is None else rcond
    large = s > r * np.max(s)
    rank = np.count_nonzero(large)
    inverse = np.where(large, 1.0 / s, 0.0)
    x = vh.T @ ((u.T @ b).T * inverse).T   # a 1-D b or each column of a 2-D one
    d = b - a @ x
    residuals = np.atleast_1d(np.sum(d * d, axis=0))
    if rank != n or m <= n:   # NumPy gives the residuals of full-rank tall problems only
        residuals = residuals[:0]
    return x, residuals, rank, s


def linalg_matrix_rank(A, tol=None, hermitian=False, rtol=None):
    if A.ndim == 3:   # a stack: one rank per matrix
        out = np.zeros(A.shape[0], dtype=int)
        for i in range(A.shape[0]):
            out[i] = _rank(A[i], tol, rtol)
        return out
    return _rank(A, tol, rtol)


def _rank(A, tol, rtol):
    s = np.linalg.svd(A, compute_uv=False)
    if s.shape[0] == 0:
        return 0
    if tol is None:
        r = max(A.shape[0], A.shape[1]) * EPS if rtol is None else rtol
        return np.count_nonzero(s > np.max(s) * r)
    return np.count_nonzero(s > tol)


def linalg_cond(x, p=None):
    if x.ndim == 3:   # a stack: one condition number per matrix
        out = np.zeros(x.shape[0])
        for i in range(x.shape[0]):
            out[i] = _cond(x[i], p)
        return out
    return _cond(x, p)


def _cond(x, p):
    if p is None:   # the ratio of the extreme singular values: inf for a singular matrix
        s = np.linalg.svd(x, compute_uv=False)
        r = (s[:1] / s[s.shape[0] - 1:])[0]
    else:
        r = np.linalg.norm(x, p) * np.linalg.norm(np.linalg.inv(x), p)
    if r != r and not np.any(x != x):   # NumPy: inf for 0 / 0 (a zero matrix)
        r = np.inf
    return r


def linalg_matrix_power(a, n):
    if a.ndim == 3:   # a stack: each matrix's power
        out = np.zeros(a.shape)
        for i in range(a.shape[0]):
            out[i] = _matrix_power(a[i], n)
        return out
    return _matrix_power(a, n)


def _matrix_power(a, n):
    if a.shape[0] != a.shape[1]:   # NumPy raises LinAlgError, a ValueError
        raise ValueError("Last 2 dimensions of the array must be square")
    m = a + 0.0
    k = n
    if k < 0:
        m = np.linalg.inv(m)
        k = -k
    result = np.eye(a.shape[0])
    first, found = True, False
    while k > 0:   # NumPy's order: z, z @ z, ...; each multiplied in where n has a 1 bit
        if not first:
            m = m @ m
        first = False
        if k % 2 == 1:
            result = result @ m if found else m
            found = True
        k = k // 2
    return result


def math_factorial(n):
    if n < 0:
        raise ValueError("factorial() not defined for negative values")
    r = 1
    for k in range(2, n + 1):
        r = r * k
    return r


def math_comb(n, k):
    if n < 0:
        raise ValueError("n must be a non-negative integer")
    if k < 0:
        raise ValueError("k must be a non-negative integer")
    if k > n:
        return 0
    r = 1
    for i in range(min(k, n - k)):
        r = r * (n - i) // (i + 1)   # exact: comb(n, i) * (n - i) / (i + 1) = comb(n, i + 1)
    return r


def math_isqrt(n):
    if n < 0:
        raise ValueError("isqrt() argument must be nonnegative")
    r = int(math.sqrt(n))   # within 1 of the root; corrected without squaring (no overflow)
    while r > 0 and r > n // r:
        r = r - 1
    while r + 1 <= n // (r + 1):
        r = r + 1
    return r


def math_gcd(a, b):
    a = abs(a)
    b = abs(b)
    while b != 0:
        a, b = b, a % b
    return a
