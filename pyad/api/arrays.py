"""The API for signatures with arrays: argument types, the arrays kernels read in place
(:func:`is_native`) and the conversion of all others (:func:`convert`), shadow arrays and
cotangents for the pullback.

Gradients of array arguments are accumulated by the kernels into shadow arrays (zeros of the
argument's shape): the native wrappers of grad/value_and_grad allocate them; the pullback
allocates them here and keeps them. See docs/arrays.md.
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..errors import PyadInternalError
from ..ir.types import BOOL, F64, I64, MAX_NDIM, array_type, elem_type, is_array

_CONVERT = {  # dtype kind and size -> pyad element type
    ("f", 8): F64, ("f", 4): F64, ("f", 2): F64,
    ("i", 8): I64, ("i", 4): I64, ("i", 2): I64, ("i", 1): I64,
    ("u", 4): I64, ("u", 2): I64, ("u", 1): I64,
    ("b", 1): BOOL,
}
_NP = {F64: np.float64, I64: np.int64, BOOL: np.bool_}
_PY = {F64: float, I64: int, BOOL: bool}
ITEMSIZE = {F64: 8, I64: 8, BOOL: 1}

#: dtype numbers (``dtype.num``) of the arrays a kernel reads in place, per element type:
#: float64; every 8-byte signed integer type (long and long long are distinct dtypes with
#: equal meaning); bool. The byte order must be native too. The native wrappers
#: (codegen/python/wrap_arrays.py) test exactly this on the PyArray_Descr.
NATIVE_NUMS = {
    F64: frozenset({np.dtype(np.float64).num}),
    I64: frozenset(np.dtype(c).num for c in np.typecodes["AllInteger"]
                   if np.dtype(c) == np.dtype(np.int64)),
    BOOL: frozenset({np.dtype(np.bool_).num}),
}


def _masked(a: Any) -> bool:
    """Whether `a` is a NumPy masked array. `np.ma` is imported only if something imported
    it already (no masked array exists otherwise): reading `np.ma` imports it, which took
    18 ms of a first call."""
    ma = sys.modules.get("numpy.ma")
    return ma is not None and isinstance(a, ma.MaskedArray)


def array_arg_type(fname: str, name: str, a: np.ndarray) -> str:
    if _masked(a):   # its data alone would silently drop the mask
        raise TypeError(f"{fname}() argument {name!r} is a masked array, which pyad does not "
                        "support: pass its data and its mask as arrays (a.data, "
                        "np.ma.getmaskarray(a)) and use the mask in the function")
    elem = _CONVERT.get((a.dtype.kind, a.dtype.itemsize))
    if elem is None:
        raise TypeError(f"{fname}() argument {name!r} has dtype {a.dtype}, which pyad does not "
                        "support (float64, int64 and bool arrays, or float32/int32/... which "
                        "are converted)")
    if not 1 <= a.ndim <= MAX_NDIM:
        raise TypeError(f"{fname}() argument {name!r} is a {a.ndim}-D array; pyad supports 1 "
                        f"to {MAX_NDIM} dimensions")
    return array_type(elem, a.ndim)


def is_native(t: str, a: Any) -> bool:
    """Whether a kernel reads `a` in place as an argument of array type `t`: an exact
    ``numpy.ndarray`` (no subclass) with t's number of dimensions, a dtype of
    :data:`NATIVE_NUMS` in native byte order, and C-contiguous (NumPy's flag: kernels index
    their array parameters with the strides of a C-contiguous array of their shape,
    codegen/lower/array.c_contiguous). The native wrappers take exactly these arrays and
    hand every other argument to the Python dispatcher, which converts it (:func:`convert`:
    a C-contiguous copy of a view, as JAX copies every NumPy argument)."""
    if type(a) is not np.ndarray:
        return False
    ndim, nums = _NATIVE[t]
    dt = a.dtype
    return a.ndim == ndim and dt.num in nums and dt.isnative and a.flags.c_contiguous


# array type -> (ndim, NATIVE_NUMS of its element type), for is_native
_NATIVE = {array_type(e, n): (n, NATIVE_NUMS[e])
           for e in NATIVE_NUMS for n in range(1, MAX_NDIM + 1)}


def convert(t: str, a: Any) -> Any:
    """The value passed to a kernel for an argument of type `t`; for an array one for which
    :func:`is_native` holds (`a` itself, or a converted C-contiguous copy)."""
    if not is_array(t):
        return _PY[t](a)
    if is_native(t, a):
        return a
    want = _NP[elem_type(t)]
    b = np.ascontiguousarray(a, dtype=want)  # an exact ndarray; a copy if anything differs
    if not is_native(t, b):
        b = np.array(b, dtype=want, order="C", copy=True)
    if not is_native(t, b):
        raise PyadInternalError(f"internal error: cannot convert a {type(a).__name__} of "
                                f"dtype {a.dtype} and strides {a.strides} for {t}")
    return b


def shadows_for(sig: tuple[str, ...], wrt: tuple[int, ...], args: tuple) -> list[np.ndarray]:
    """Zero gradient accumulators for the differentiated array arguments, in `wrt` order."""
    return [np.zeros(args[i].shape, np.float64) for i in wrt if is_array(sig[i])]


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
    return convert(t, ct)

