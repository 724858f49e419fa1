"""Frontend, NumPy functions written in the compiled subset itself: a call `np.<name>(...)` of
a name here is compiled as a call of the Python function below (arrays.py `numpy_call`), so it
is lowered, differentiated and checked like a helper of the user's. Adding a NumPy function
that is a short algorithm over existing operations means writing it here.

The functions take what NumPy's take for the common case and are refused otherwise at the
call site (a keyword they do not have: "unexpected keyword argument"):
- `polyval(p, x)`: Horner's rule; `p` a 1-D array, list or tuple, `x` a number or an array;
(np.median, np.percentile, np.quantile and np.interp, once here, are frontend functions now:
sorting.py, where `axis` and arrays of `x` are at hand.)
"""
from __future__ import annotations


NAMES = ("polyval",)


def polyval(p, x):
    y = x * 0.0
    for c in p:
        y = y * x + c
    return y
