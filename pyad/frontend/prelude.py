"""Frontend, NumPy functions written in the compiled subset itself: a call `np.<name>(...)` of
a name here is compiled as a call of the Python function below (arrays.py `numpy_call`), so it
is lowered, differentiated and checked like a helper of the user's. Adding a NumPy function
that is a short algorithm over existing operations means writing it here.

The functions take what NumPy's take for the common case and are refused otherwise at the
call site (a keyword they do not have: "unexpected keyword argument"):
- `polyval(p, x)`: Horner's rule; `p` a 1-D array, list or tuple, `x` a number or an array;
- `median(a)`, `percentile(a, q)`, `quantile(a, q)`: of all the elements (no `axis`), `q` one
  number (outside [0, 100] or [0, 1], or nan: ValueError, checked by arrays.py before the
  call: the compiled subset has no raise statement); linear interpolation between the two nearest sorted elements (NumPy's default
  method). The gradient goes to the one or two elements picked (ties: the sorted positions);
- `interp(x, xp, fp)`: `x` one number (arrays.py refuses arrays at the call), `xp` increasing;
  fp[0] left of xp[0], fp[-1] from xp[-1] on, as NumPy's defaults; a binary search.
"""
from __future__ import annotations

import numpy as np

NAMES = ("polyval", "median", "percentile", "quantile", "interp")


def polyval(p, x):
    y = x * 0.0
    for c in p:
        y = y * x + c
    return y


def median(a):
    s = np.sort(a.ravel())
    n = s.shape[0]
    return 0.5 * (s[(n - 1) // 2] + s[n // 2])


def quantile(a, q):  # q is checked by the caller (arrays.py `_checked_q`)
    s = np.sort(a.ravel())
    pos = q * (s.shape[0] - 1)
    lo = int(pos)
    hi = min(lo + 1, s.shape[0] - 1)
    return s[lo] + (pos - lo) * (s[hi] - s[lo])


def percentile(a, q):
    return np.quantile(a, q / 100.0)


def interp(x, xp, fp):  # x is one number (checked by arrays.py)
    n = xp.shape[0]
    if x < xp[0]:
        return fp[0] + 0.0 * x
    if x >= xp[n - 1]:
        return fp[n - 1] + 0.0 * x
    lo = 0
    hi = n - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if xp[mid] <= x:
            lo = mid
        else:
            hi = mid
    return fp[lo] + (fp[hi] - fp[lo]) / (xp[hi] - xp[lo]) * (x - xp[lo])
