"""One native call for a whole batch: the slots of `pyad_batch_run` (runtime/pyad_batch.c)
over NumPy arrays, and the call itself, on native threads.

A `Batch` collects, for each kernel parameter and result, where batch element i finds it
(`pyad_batch_slot`: base + i*step + worker*wstep, and an array's shape and strides), keeps
the arrays it points into alive, and runs the kernel's uniform entry (codegen/entry.py) for
elements 0..n-1. The GIL is released during the run (a ctypes call), unless the kernel calls
the Python C API, in which case it runs on this thread alone with the GIL held.
"""
from __future__ import annotations

import ctypes
import functools
import math
import os
from typing import Any

import numpy as np

from .. import _runtime
from .arrays import ITEMSIZE, NATIVE_NUMS, _NP
from ..ir.types import elem_type, is_array, ndim_of

ENV_THREADS = "PYAD_NUM_THREADS"
#: the bytes of per-element gradient rows a summed batch fills before adding them up
SUM_BYTES = 4 << 20


class Slot(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("step", ctypes.c_int64), ("wstep", ctypes.c_int64),
                ("ndim", ctypes.c_int32), ("itemsize", ctypes.c_int32),
                ("dims", ctypes.c_void_p)]


class BatchError(ctypes.Structure):
    _fields_ = [("index", ctypes.c_int64), ("kind", ctypes.c_int32), ("line", ctypes.c_int32),
                ("msg", ctypes.c_char * 512)]


def default_threads() -> int:
    """`$PYAD_NUM_THREADS` if set, else the CPUs this process may run on."""
    value = os.environ.get(ENV_THREADS, "").strip()
    if value:
        try:
            n = int(value)
        except ValueError:
            raise ValueError(f"{ENV_THREADS}={value!r} is not a number of threads") from None
        if n < 1:
            raise ValueError(f"{ENV_THREADS}={value!r}: the number of threads must be >= 1")
        return n
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@functools.cache  # the loaded runtime's function, set up once per process
def _runner(with_gil: bool):
    lib = ctypes.PyDLL(str(_runtime.library_path())) if with_gil else _runtime.dll()
    fn = lib.pyad_batch_run
    fn.restype = ctypes.c_int32
    fn.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int32,
                   ctypes.c_int32, ctypes.POINTER(Slot), ctypes.c_int32, ctypes.POINTER(Slot),
                   ctypes.POINTER(BatchError)]
    return fn


def native_array(a: np.ndarray, elem: str, axis: int | None = None) -> np.ndarray:
    """`a`, or a copy of it, that a kernel reads in place as elements `elem`: C-contiguous
    (api/arrays.is_native), or with `axis`, each sub-array at an index of `axis` C-contiguous
    (the copy has `axis` first)."""
    if type(a) is np.ndarray and a.dtype.num in NATIVE_NUMS[elem] and a.dtype.isnative \
            and _rows_contiguous(a, axis):
        return a
    if axis is None:
        return np.ascontiguousarray(a, dtype=_NP[elem])
    return np.moveaxis(np.ascontiguousarray(np.moveaxis(a, axis, 0), dtype=_NP[elem]), 0, axis)


def _rows_contiguous(a: np.ndarray, axis: int | None) -> bool:
    """Whether `a` (its sub-arrays at the indices of `axis`, if given) is C-contiguous:
    NumPy's flag, of the first such sub-array (they all have its strides)."""
    if axis is None:
        return a.flags.c_contiguous
    return a.shape[axis] == 0 or a[(slice(None),) * axis + (0,)].flags.c_contiguous


class Batch:
    """The slots of one batched call of `n` elements on `threads` workers."""

    def __init__(self, n: int, threads: int) -> None:
        self.n, self.threads = n, max(1, min(threads, n))
        self.params: list[Slot] = []
        self.outs: list[Slot] = []
        self._sums: list[tuple[int, np.ndarray]] = []  # (param index, buffer): `summed`
        self._keep: list[Any] = []  # what the slots point into

    def mark(self) -> tuple[int, int, int]:
        """The slots so far, for `rewind`."""
        return len(self.params), len(self.outs), len(self._sums)

    def rewind(self, mark: tuple[int, int, int]) -> None:
        """Drop the slots added after `mark` (a kernel's run is tried again with others)."""
        del self.params[mark[0]:], self.outs[mark[1]:], self._sums[mark[2]:]

    def _dims(self, values) -> int:
        d = np.array(values, np.int64)
        self._keep.append(d)
        return d.ctypes.data

    def _array(self, a: np.ndarray, step: int, axes: tuple[int, ...]) -> Slot:
        """A slot over `a`'s axes `axes` (the batch axis left out) from its first element,
        `step` bytes from one element to the next."""
        self._keep.append(a)
        size = a.itemsize
        return Slot(a.ctypes.data, step, 0, len(axes), size,
                    self._dims([a.shape[k] for k in axes] + [a.strides[k] // size for k in axes]))

    def param(self, t: str, value: Any, axis: int | None) -> None:
        """Parameter of type `t`: `value` itself for every element (axis None), or its
        sub-array at index i of axis `axis` for element i."""
        if axis is None:
            if is_array(t):
                a = native_array(value, elem_type(t))
                self.params.append(self._array(a, 0, tuple(range(a.ndim))))
            else:
                a = np.array([value], _NP[t])
                self._keep.append(a)
                self.params.append(Slot(a.ctypes.data, 0, 0, 0, a.itemsize, None))
            return
        a = native_array(value, elem_type(t) if is_array(t) else t, axis)
        rest = tuple(k for k in range(a.ndim) if k != axis)
        if is_array(t):
            self.params.append(self._array(a, a.strides[axis], rest))
        else:
            self._keep.append(a)
            self.params.append(Slot(a.ctypes.data, a.strides[axis], 0, 0, a.itemsize, None))

    def accumulator(self, shape: tuple[int, ...]) -> np.ndarray:
        """A zero float64 shadow parameter of `shape` for each element: the result, (n,
        *shape)."""
        g = np.zeros((self.n,) + tuple(shape))
        self.params.append(self._array(g, g.strides[0], tuple(range(1, g.ndim))))
        return g

    def summed(self, shape: tuple[int, ...]) -> np.ndarray:
        """A zero float64 shadow parameter of `shape` for each element, summed over the
        batch in element order: row 0 of the returned buffer after `run` (see `run`)."""
        rows = max(self.threads, min(self.n, SUM_BYTES // max(8, 8 * math.prod(shape))))
        g = np.zeros((rows + 1,) + tuple(shape))
        self._sums.append((len(self.params), g))
        self.params.append(self._array(g[1:], g.strides[0], tuple(range(1, g.ndim))))
        return g

    def result(self, t: str, shape: tuple[int, ...] | None = None) -> np.ndarray | None:
        """Kernel result `t` of every element, stacked: an (n,) array for a scalar, (n,
        *shape) for an array of element shape `shape`; None (not kept) for an array result
        without a shape."""
        if not is_array(t):
            out = np.empty(self.n, _NP[t])
            self._keep.append(out)
            self.outs.append(Slot(out.ctypes.data, out.strides[0], 0, 0, out.itemsize, None))
            return out
        if shape is None:
            self.outs.append(Slot(None, 0, 0, ndim_of(t), ITEMSIZE[elem_type(t)], None))
            return None
        out = np.empty((self.n,) + tuple(shape), _NP[elem_type(t)])
        self._keep.append(out)
        self.outs.append(Slot(out.ctypes.data, out.strides[0], 0, out.ndim - 1, out.itemsize,
                              self._dims(shape)))
        return out

    def shapes(self, entry: int, with_gil: bool, kinds: list[str]) -> list:
        """The shapes of the array results (kinds) of element 0, which is run for them
        (kernels do not modify their arguments; element 0 is run again with the others)."""
        outs, found = self.outs, []
        self.outs = []
        for t in kinds:
            if is_array(t):
                d = np.full(ndim_of(t), -1, np.int64)
                self._keep.append(d)
                self.outs.append(Slot(None, 0, 0, ndim_of(t), ITEMSIZE[elem_type(t)],
                                      d.ctypes.data))
                found.append(d)
            else:
                self.result(t)
                found.append(None)
        self.run(entry, with_gil, 0, 1)
        self.outs = outs
        return [None if d is None else tuple(int(x) for x in d) for d in found]

    def run(self, entry: int, with_gil: bool, begin: int = 0, end: int | None = None) -> None:
        """Run the kernel entry at address `entry` for elements begin..end-1; the first
        failing element's error is raised, naming its index. With `summed` parameters the
        elements run in chunks of the buffer's rows, each element's gradient in a zeroed
        row of its own, and the rows are added to row 0 in element order after each chunk
        (not accumulated in place: a kernel compiled with strong zeros inside zeroes the
        buffer and runs again with them when it finds a nan in its gradient,
        docs/gradients.md). The sum is the same bits
        for any number of threads."""
        end = self.n if end is None else end
        rows = min((len(g) - 1 for _, g in self._sums), default=end - begin) or 1
        for lo in range(begin, end, rows):
            hi = min(end, lo + rows)
            self._run(entry, with_gil, lo, hi)
            for _, g in self._sums:
                g[0] = np.add.reduce(g[:hi - lo + 1], axis=0)  # row by row, in order
                g[1:hi - lo + 1] = 0.0

    def _run(self, entry: int, with_gil: bool, lo: int, hi: int) -> None:
        """Elements lo..hi-1, run as elements 0..hi-lo-1 of slots moved to element lo (the
        `summed` parameters' rows stay: they count from the chunk's first element)."""
        fixed = {k for k, _g in self._sums}

        def moved(slots: list[Slot], skip: set) -> ctypes.Array:
            out = [s if k in skip or not s.base else
                   Slot(s.base + lo * s.step, s.step, s.wstep, s.ndim, s.itemsize, s.dims)
                   for k, s in enumerate(slots)]
            return (Slot * max(1, len(out)))(*out)
        params, outs = moved(self.params, fixed), moved(self.outs, set())
        err = BatchError()
        status = _runner(with_gil)(entry, 0, hi - lo, 1 if with_gil else self.threads,
                                   len(self.params), params, len(self.outs), outs,
                                   ctypes.byref(err))
        if status:
            # import-time: codegen.abi loads llvmlite.ir, which `import pyad` does not
            from ..codegen import abi
            kind = abi.ERROR_KINDS[err.kind] or "RuntimeError"
            msg = err.msg.decode(errors="replace") or "error"
            raise abi.exception_class(kind)(f"{msg} (batch element {err.index + lo})")
