"""The process side of the native CPython wrappers, without LLVM: the object layouts they
read inline (verified once per process), the symbols of their globals, and the Python
callables made from a linked library -- a library fresh from the JIT or a shared object
loaded from the on-disk cache (neither needs llvmlite here).

- :data:`LAYOUT`: CPython byte offsets (ob_type, ob_fval, tuple items, tp_name) or None where
  a check fails (the wrapper then calls the C API);
- :data:`NUMPY_LAYOUT`: the PyArrayObject/PyArray_Descr offsets, or None (array signatures
  are then called through cffi_call.py);
- :func:`make_callable`: the builtin function of a wrapper's PyMethodDef, owning the code.
"""
from __future__ import annotations

import ctypes
import sys

import numpy as np

from ..library import CodeOwner, CompiledLibrary

if sys.implementation.name != "cpython":  # pragma: no cover
    raise ImportError("pyad's native wrappers require CPython (they call the C API)")

__all__ = ["LAYOUT", "NUMPY_LAYOUT", "NATIVE_ARRAYS", "ENV_SYMBOL", "ENV_SLOTS", "NON_NATIVE",
           "def_symbol", "bind", "make_callable", "make_shared_callable", "library_of"]


# ---------------------------------------------------------------------------------------------
# CPython layout facts, verified once
# ---------------------------------------------------------------------------------------------

def _verify_layout() -> dict:
    """Check the byte offsets the wrapper would read inline; a fact that cannot be confirmed
    is None and the wrapper uses a C-API call instead."""
    lay: dict = {"ssize": ctypes.sizeof(ctypes.c_ssize_t), "long": ctypes.sizeof(ctypes.c_long)}
    vp = ctypes.c_void_p
    objs = (1.5, -2.25, 7, (1, 2), "s", None)

    def at(obj, off):
        return vp.from_address(id(obj) + off).value

    ob_type = 8 if ctypes.sizeof(vp) == 8 else None
    if ob_type is not None and not all(at(o, ob_type) == id(type(o)) for o in objs):
        ob_type = None
    lay["ob_type"] = ob_type

    fval = None
    if ob_type is not None and float.__basicsize__ == 24:
        if all(ctypes.c_double.from_address(id(x) + 16).value == x for x in (1.5, -2.25, 1e300)):
            fval = 16
    lay["ob_fval"] = fval

    items = None
    t = (object(), object(), object())
    off = tuple.__basicsize__
    if ob_type is not None and tuple.__itemsize__ == ctypes.sizeof(vp) and all(
            at(t, off + k * tuple.__itemsize__) == id(t[k]) for k in range(3)):
        items = off
    lay["tuple_items"] = items

    tp_name = None
    if ob_type is not None:
        try:
            if all(ctypes.c_char_p.from_address(id(tp) + 24).value == tp.__name__.encode()
                   for tp in (float, int, tuple, str)):
                tp_name = 24
        except (ValueError, OSError):  # pragma: no cover
            tp_name = None
    lay["tp_name"] = tp_name

    capsule_pointer = None  # PyCapsule: PyObject_HEAD; void *pointer; ...
    probe = _PyCapsule_New(0x5EED0, b"pyad.probe", None)
    if ob_type is not None and at(probe, 16) == 0x5EED0:
        capsule_pointer = 16
    lay["capsule_pointer"] = capsule_pointer
    return lay


_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

#: Verified CPython layout facts: ob_type/ob_fval/tuple_items/tp_name/capsule_pointer offsets
#: (or None), sizes of Py_ssize_t and C long.
LAYOUT = _verify_layout()


def def_symbol(name: str) -> str:
    """Symbol of the PyMethodDef global of wrapper `name`."""
    return f"{name}__def"


# ---------------------------------------------------------------------------------------------
# NumPy
# ---------------------------------------------------------------------------------------------

ENV_SYMBOL = "__pyad_numpy"
#: the slots of the ENV_SYMBOL global, in order
ENV_SLOTS = ("ndarray", "empty", "zeros", "f64", "i64", "bool")
_ELEM_DTYPE = {"f64": np.dtype(np.float64), "i64": np.dtype(np.int64), "bool": np.dtype(np.bool_)}

# PyArrayObject_fields: PyObject_HEAD; char *data; int nd; npy_intp *dimensions, *strides;
# PyObject *base; PyArray_Descr *descr; ...  PyArray_Descr: PyObject_HEAD; PyTypeObject
# *typeobj; char kind, type, byteorder, flags; int type_num; ...  (numpy 1.x and 2.x alike)
_ARRAY_FIELDS = {"data": 16, "nd": 24, "dims": 32, "strides": 40, "descr": 56}
_DESCR_FIELDS = {"byteorder": 26, "type_num": 28}
#: the byte-order character of a dtype that is not in native order
NON_NATIVE = b">" if sys.byteorder == "little" else b"<"


def _verify_numpy_layout() -> dict | None:
    """The PyArrayObject/PyArray_Descr offsets, if numpy's actual objects confirm every one
    of them (and ob_type at 8) on a set of arrays; else None, and array signatures use
    cffi_call.py instead."""
    ob_type = 8
    if ctypes.sizeof(ctypes.c_void_p) != 8 or ctypes.sizeof(ctypes.c_int) != 4:
        return None
    if np.ndarray.__basicsize__ < 64 or np.dtype.__basicsize__ < 32:
        return None
    vp, i32, i64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64
    cube = np.arange(24.0).reshape(2, 3, 4)
    samples = [cube, cube[:, ::-1, 1::2], cube.T, np.arange(5)[::-1], np.ones(3, np.bool_),
               np.zeros((0, 3)), np.broadcast_to(np.ones(3), (4, 3)), np.ones(3, ">f8"),
               np.ones(2, np.int32), np.ones(4, "q")]
    try:
        for a in samples:
            p = id(a)
            if vp.from_address(p + ob_type).value != id(np.ndarray):
                return None
            if (vp.from_address(p + 16).value or 0) != a.__array_interface__["data"][0]:
                return None
            if i32.from_address(p + 24).value != a.ndim or vp.from_address(p + 56).value != id(a.dtype):
                return None
            dims, strides = vp.from_address(p + 32).value, vp.from_address(p + 40).value
            if any(i64.from_address(dims + 8 * k).value != a.shape[k]
                   or i64.from_address(strides + 8 * k).value != a.strides[k]
                   for k in range(a.ndim)):
                return None
            q = id(a.dtype)
            if ctypes.c_char.from_address(q + 26).value != a.dtype.byteorder.encode() \
                    or i32.from_address(q + 28).value != a.dtype.num:
                return None
    except (ValueError, TypeError, OverflowError):  # pragma: no cover
        return None
    return {"array": dict(_ARRAY_FIELDS), "descr": dict(_DESCR_FIELDS)}


#: Verified numpy layout facts (None: the native wrappers take no arrays in this process).
NUMPY_LAYOUT = _verify_numpy_layout()
#: Whether array kernels get native wrappers (tests switch it off to compare with the cffi path).
NATIVE_ARRAYS = NUMPY_LAYOUT is not None


def bind(lib: CompiledLibrary) -> None:
    """Fill the ``__pyad_numpy`` slots of `lib` (if it has them) with the addresses of the
    numpy objects, which `lib` keeps alive. The type slot is written last: a wrapper running
    in another thread meanwhile sees a null type and takes its fallback."""
    if ENV_SYMBOL not in lib.exports:
        return
    base = lib.address(ENV_SYMBOL)
    if ctypes.c_void_p.from_address(base).value:
        return  # bound already (one library, several wrappers)
    objs = {"ndarray": np.ndarray, "empty": np.empty, "zeros": np.zeros, **_ELEM_DTYPE}
    lib.keep_alive(tuple(objs.values()))
    for k, slot in reversed(list(enumerate(ENV_SLOTS))):
        ctypes.c_void_p.from_address(base + 8 * k).value = id(objs[slot])


# ---------------------------------------------------------------------------------------------
# Callables
# ---------------------------------------------------------------------------------------------

_PyCFunction_NewEx = ctypes.pythonapi.PyCFunction_NewEx
_PyCFunction_NewEx.restype = ctypes.py_object
_PyCFunction_NewEx.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]


def make_callable(lib: CompiledLibrary, name: str, fallback=None, *, module: str | None = None,
                  pickle_as: tuple | None = None, retry=None):
    """The Python builtin function for wrapper `name` in `lib`, made by PyCFunction_NewEx.

    Its ``__self__`` (m_self) is ``lib.code_owner()``, which holds `lib` and the code, so both
    live as long as the callable (``library_of(f)`` returns `lib`), and `fallback` (a
    callable or None), which the wrapper calls with its arguments when it cannot take them.
    `module` sets ``__module__``. `pickle_as` = ``(obj, attr)`` makes the callable pickle as
    ``getattr(obj, attr)`` (see CodeOwner). `retry` is what a wrapper emitted with `retry`
    calls with its arguments when the kernel asks for strong zeros.
    """
    for what, f in (("fallback", fallback), ("retry", retry)):
        if f is not None and not callable(f):
            raise TypeError(f"{what} must be callable, got {type(f).__name__}")
    def_addr = lib.address(def_symbol(name))
    bind(lib)
    pyname = ctypes.c_char_p.from_address(def_addr).value.decode()  # ml_name
    return _PyCFunction_NewEx(def_addr, lib.code_owner(pickle_as, fallback, retry, pyname),
                              module)


#: PyMethodDef flags of every native wrapper: vectorcall with keywords (wrap.py)
METH_FASTCALL, METH_KEYWORDS = 0x80, 0x02


class _MethodDef(ctypes.Structure):
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


def make_shared_callable(wrappers: CompiledLibrary, symbol: str, lib: CompiledLibrary,
                         kernel: str, pyname: str, doc: str = "", fallback=None, *,
                         pickle_as: tuple | None = None, retry=None):
    """The Python builtin function of the shared wrapper `symbol` of library `wrappers`
    (python/families.py) calling kernel `kernel` of `lib`: its PyMethodDef is made here
    (``__name__`` `pyname`, ``__doc__`` `doc`), its ``__self__`` is ``lib.code_owner()``
    holding the kernel's address, and both libraries live as long as the callable."""
    for what, f in (("fallback", fallback), ("retry", retry)):
        if f is not None and not callable(f):
            raise TypeError(f"{what} must be callable, got {type(f).__name__}")
    bind(wrappers)
    mdef = _MethodDef(pyname.encode(), wrappers.address(symbol), METH_FASTCALL | METH_KEYWORDS,
                      doc.encode() if doc else None)
    code = _PyCapsule_New(lib.address(kernel), b"pyad.kernel", None)
    owner = lib.code_owner(pickle_as, fallback, retry, pyname, code, (mdef, wrappers))  # .wrappers
    return _PyCFunction_NewEx(ctypes.addressof(mdef), owner, None)


def library_of(func) -> CompiledLibrary:
    """The CompiledLibrary behind a callable made by make_callable."""
    owner = getattr(func, "__self__", None)
    if not isinstance(owner, CodeOwner):
        raise TypeError(f"{func!r} was not made by pyad.codegen.python.callables.make_callable")
    return owner.library
