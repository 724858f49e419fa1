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
(np.median, np.percentile, np.quantile and np.interp, once here, are frontend functions now:
sorting.py, where `axis` and arrays of `x` are at hand.)
"""
from __future__ import annotations


import numpy as np

NAMES = ("polyval", "vander", "nan_to_num")


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


def nan_to_num(x, copy=True, nan=0.0, posinf=1.7976931348623157e308,
               neginf=-1.7976931348623157e308):
    big = 1.7976931348623157e308 if posinf is None else posinf
    small = -1.7976931348623157e308 if neginf is None else neginf
    return np.where(np.isnan(x), nan,
                    np.where(x == np.inf, big, np.where(x == -np.inf, small, x)))
