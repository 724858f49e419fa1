"""The API for signatures with arrays: argument types and conversion, and the Python-level
calls of the primal, value-and-gradient, forward and backward kernels (through
`codegen.pycall.RawKernel`).

Gradients of array arguments are accumulated by the kernels into shadow arrays that this
module allocates (zeros of the argument's shape) and returns. See docs/arrays.md.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .ir import BOOL, F64, I64, MAX_NDIM, array_type, elem_type, is_array

_CONVERT = {  # dtype kind and size -> pyad element type
    ("f", 8): F64, ("f", 4): F64, ("f", 2): F64,
    ("i", 8): I64, ("i", 4): I64, ("i", 2): I64, ("i", 1): I64,
    ("u", 4): I64, ("u", 2): I64, ("u", 1): I64,
    ("b", 1): BOOL,
}
_NP = {F64: np.float64, I64: np.int64, BOOL: np.bool_}
_PY = {F64: float, I64: int, BOOL: bool}


def array_arg_type(fname: str, name: str, a: np.ndarray) -> str:
    elem = _CONVERT.get((a.dtype.kind, a.dtype.itemsize))
    if elem is None:
        raise TypeError(f"{fname}() argument {name!r} has dtype {a.dtype}, which pyad does not "
                        "support (float64, int64 and bool arrays, or float32/int32/... which "
                        "are converted)")
    if not 1 <= a.ndim <= MAX_NDIM:
        raise TypeError(f"{fname}() argument {name!r} is a {a.ndim}-D array; pyad supports 1 "
                        f"to {MAX_NDIM} dimensions")
    return array_type(elem, a.ndim)


def convert(t: str, a: Any) -> Any:
    """The value passed to a kernel for an argument of type `t`."""
    if not is_array(t):
        return _PY[t](a)
    want = _NP[elem_type(t)]
    if a.dtype != want or a.itemsize and any(s % a.itemsize for s in a.strides):
        a = np.ascontiguousarray(a, dtype=want)
    return a


def build(shape, flat):
    if isinstance(shape, tuple):
        return tuple(build(s, flat) for s in shape)
    return flat[shape]


def shadows_for(sig: tuple[str, ...], wrt: tuple[int, ...], args: tuple) -> list[np.ndarray]:
    """Zero gradient accumulators for the differentiated array arguments, in `wrt` order."""
    return [np.zeros(args[i].shape) for i in wrt if is_array(sig[i])]


def gradients(sig, wrt, outs: list, shadows: list) -> dict[int, Any]:
    """Parameter index -> gradient, from the kernel's gradient outs and the shadow arrays."""
    it = iter(shadows)
    return {p: (next(it) if is_array(sig[p]) else g) for p, g in zip(wrt, outs)}


def check_cotangent(t: str, like: np.ndarray | float, ct: Any, k: int) -> Any:
    """A cotangent for result `k` of type `t` (shaped like that result)."""
    if not is_array(t):
        return float(ct)
    ct = np.asarray(ct, dtype=np.float64)
    if ct.shape != np.shape(like):
        raise ValueError(f"cotangent {k} has shape {ct.shape}; the result has shape "
                         f"{np.shape(like)}")
    return ct

