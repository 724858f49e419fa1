"""Calling a kernel from Python through cffi: the slow path for signatures with arrays.

Kernels are normally called through native CPython wrappers (pywrap.py), arrays included.
When numpy's object layout cannot be verified in this process (pywrap_arrays.NUMPY_LAYOUT is
None), build.py calls array kernels through `PyWrapper` instead, which keeps the wrapper's
contract in Python on top of `RawKernel`. `RawKernel` builds the array descriptors
({data, shape[ndim], strides[ndim]}, strides in elements) over the NumPy arguments without
copying, calls the kernel with a fresh context, raises the context's error as a Python
exception, copies array results out of the call's arena into new NumPy arrays, and releases
the arena. Tests use both paths as each other's oracle.
"""
from __future__ import annotations

import weakref
from typing import Any, Sequence

import numpy as np

from pyad import _runtime, pytree
from pyad.errors import StrongZeros
from pyad.api.arrays import is_native
from pyad.ir.nodes import elem_type, is_array, ndim_of

from .. import abi

_C_SCALAR = {"f64": "double", "i64": "int64_t", "bool": "_Bool", "ptr": "void *"}
_OUT = {"f64": "double[1]", "i64": "int64_t[1]", "bool": "int8_t[1]", "ptr": "void *[1]"}
DTYPE = {"f64": np.float64, "i64": np.int64, "bool": np.bool_}


def descriptor(a: np.ndarray) -> np.ndarray:
    """The kernel-side descriptor of `a` (an int64 buffer: data, shape, strides in elements).
    The caller keeps `a` alive during the call."""
    nd = a.ndim
    d = np.empty(1 + 2 * nd, np.int64)
    d[0] = a.__array_interface__["data"][0]
    d[1:1 + nd] = a.shape
    d[1 + nd:] = a.strides
    d[1 + nd:] //= a.itemsize
    return d


def from_descriptor(ffi, d, t: str) -> np.ndarray:
    """A new C-contiguous NumPy array with the contents of the kernel array `d`."""
    nd = ndim_of(t)
    dtype = np.dtype(DTYPE[elem_type(t)])
    shape = tuple(int(d[1 + k]) for k in range(nd))
    if 0 in shape:
        return np.zeros(shape, dtype)
    strides = [int(d[1 + nd + k]) * dtype.itemsize for k in range(nd)]
    lo = sum(s * (n - 1) for s, n in zip(strides, shape) if s < 0)
    hi = sum(s * (n - 1) for s, n in zip(strides, shape) if s > 0) + dtype.itemsize
    base = int(d[0]) + lo
    buf = ffi.buffer(ffi.cast("char *", base), hi - lo)
    view = np.ndarray(shape, dtype, buffer=buf, offset=-lo, strides=strides)
    return view.copy()


class RawKernel:
    """kernel(ctx, params..., outs...) as a Python function of NumPy arrays and scalars.

    `params` and `outs` are pyad types, or "ptr" for a pullback pointer (passed and returned
    as an int)."""

    def __init__(self, address: int, params: Sequence[str], outs: Sequence[str]) -> None:
        self.ffi, self.lib = _runtime.ffi(), _runtime.lib()
        self.params, self.outs = tuple(params), tuple(outs)
        cparams = ["pyad_ctx *"] + ["void *" if is_array(t) else _C_SCALAR[t] for t in params] \
            + ["void *"] * len(outs)
        self.fn = self.ffi.cast(f"int32_t (*)({', '.join(cparams)})", address)

    def __call__(self, *args: Any) -> list:
        ffi = self.ffi
        ctx = ffi.new("pyad_ctx *")
        keep, cargs = [], []
        for t, a in zip(self.params, args):
            if is_array(t):
                d = descriptor(a)
                keep.append((a, d))
                cargs.append(ffi.cast("void *", d.ctypes.data))
            elif t == "ptr":
                cargs.append(ffi.cast("void *", a))
            else:
                cargs.append(a)
        slots = []
        for t in self.outs:
            if is_array(t):
                d = np.zeros(1 + 2 * ndim_of(t), np.int64)
                slots.append(d)
                cargs.append(ffi.cast("void *", d.ctypes.data))
            else:
                s = ffi.new(_OUT[t])
                slots.append(s)
                cargs.append(s)
        try:
            status = self.fn(ctx, *cargs)
            if status != 0:
                kind = abi.ERROR_KINDS[ctx.err_kind] or "RuntimeError"
                msg = ffi.string(ctx.err_msg).decode() if ctx.err_msg else "error"
                raise abi.exception_class(kind)(msg)
            out = []
            for t, s in zip(self.outs, slots):
                if is_array(t):
                    out.append(from_descriptor(ffi, s, t))
                elif t == "ptr":
                    out.append(int(ffi.cast("uintptr_t", s[0])))
                elif t == "bool":
                    out.append(bool(s[0]))
                elif t == "i64":
                    out.append(int(s[0]))
                else:
                    out.append(float(s[0]))
            return out
        finally:
            self.lib.pyad_ctx_release(ctx)


def _accepts(kind: str, a: Any) -> bool:
    """The argument test of a native wrapper (pywrap._emit_arg), in Python."""
    if is_array(kind):
        return is_native(kind, a)
    if kind == "f64":
        return type(a) is float
    if kind == "bool":
        return a is True or a is False
    return type(a) is int and (-2**63 <= a < 2**63 if kind == "i64" else 0 < a < 2**64)


class PyWrapper:
    """What pywrap.emit_wrapper emits, in Python over a RawKernel: checks the arguments
    (calling `fallback` on a mismatch), makes the shadow arrays, calls the kernel and builds
    the result from `result` (ints index the outs, pywrap.Shadow the shadows, None, tuples)."""

    def __init__(self, raw: RawKernel, params: Sequence[str], shadows: Sequence[int], result,
                 *, name: str, fallback=None, pickle_as: tuple | None = None,
                 retry=None) -> None:
        self.raw, self.params, self.shadows, self.result = raw, tuple(params), tuple(shadows), result
        self.__name__ = name
        self.fallback, self.retry = fallback, retry
        self._pickle_as = None if pickle_as is None else (weakref.ref(pickle_as[0]), pickle_as[1])

    def __call__(self, *args: Any, **kwargs: Any):
        if kwargs or len(args) != len(self.params) or not all(map(_accepts, self.params, args)):
            if self.fallback is not None:
                return self.fallback(*args, **kwargs)
            raise TypeError(f"{self.__name__}() takes {len(self.params)} arguments of kinds "
                            f"{', '.join(self.params)}")
        shadows = [np.zeros(args[p].shape, np.float64) for p in self.shadows]
        try:
            outs = self.raw(*args, *shadows)
        except StrongZeros:
            if self.retry is None:
                raise RuntimeError("a gradient holds a nan and no kernel with strong zeros "
                                   "was given") from None
            return self.retry(*args)
        return self._build(self.result, outs, shadows)

    def _build(self, spec, outs: list, shadows: list):
        def leaf(s):
            if s is None:
                return None
            return outs[s] if isinstance(s, int) else shadows[s.index]  # a pywrap.Shadow
        return pytree.tree_map(leaf, spec)

    def __reduce__(self):
        obj = self._pickle_as[0]() if self._pickle_as is not None else None
        if obj is None:
            raise TypeError("pyad compiled code cannot be pickled")
        return getattr, (obj, self._pickle_as[1])
