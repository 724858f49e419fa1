"""Where the external symbols of generated code come from: an allow-list, resolved to
addresses; nothing is looked up implicitly in the process.

- ``pyad_*``: the pyad C runtime (a ctypes handle the caller passes in: jit.py loads it);
- ``Py*`` / ``_Py*``: the CPython C API, functions and data, taken from ``ctypes.pythonapi``
  (the address of the symbol itself: the function, or the variable for data symbols such as
  ``PyExc_TypeError`` or ``_Py_NoneStruct``);
- libm functions (:data:`LIBM_SYMBOLS`), the libc memory functions LLVM intrinsics lower to
  (:data:`LIBC_SYMBOLS`) and compiler-rt/libgcc helpers (:data:`LIBGCC_SYMBOLS`).

Any other external raises a ``RuntimeError`` naming it, before anything is linked (an
unresolved symbol must never become a crash at call time). Also: the undefined symbols of an
ELF object file (:func:`undefined_symbols_elf`).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import struct
import sys
from typing import Callable

__all__ = ["LIBM_SYMBOLS", "LIBC_SYMBOLS", "LIBGCC_SYMBOLS", "LINKER_SYMBOLS", "resolve",
           "dll", "dlsym", "undefined_symbols_elf"]

_LIBM_BASE = (
    "acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh erf erfc exp exp2 exp10 "
    "expm1 fabs fdim floor fma fmax fmin fmod frexp hypot ldexp lgamma lgamma_r log log10 log1p "
    "log2 logb modf nearbyint nextafter pow remainder remquo rint round roundeven scalbn scalbln "
    "sin sincos sinh sqrt tan tanh tgamma trunc lround llround lrint llrint ilogb"
).split()
#: libm functions generated code may call (directly or through intrinsics such as llvm.exp.f64).
LIBM_SYMBOLS = frozenset(_LIBM_BASE + [n + "f" for n in _LIBM_BASE])
#: libc functions LLVM intrinsics lower to (llvm.memset/memcpy/memmove, bcmp from memcmp).
LIBC_SYMBOLS = frozenset(["memset", "memcpy", "memmove", "memcmp", "bcmp"])
#: compiler-rt / libgcc helpers (llvm.powi, 128-bit integer arithmetic).
LIBGCC_SYMBOLS = frozenset(
    ["__powidf2", "__powisf2", "__muloti4", "__divti3", "__udivti3", "__modti3", "__umodti3"]
)
# Defined by the linker; ORC/RuntimeDyld provides it.
LINKER_SYMBOLS = frozenset(["_GLOBAL_OFFSET_TABLE_"])

_SONAMES = {"m": "libm.so.6", "c": "libc.so.6", "gcc_s": "libgcc_s.so.1"} \
    if sys.platform.startswith("linux") else {}


@functools.cache
def dll(key: str) -> ctypes.CDLL | None:
    """A ctypes handle for libm / libc / libgcc_s (None if the library cannot be found)."""
    # the usual soname first: find_library runs ldconfig/gcc in a subprocess (~100 ms)
    for find in (_SONAMES.get, ctypes.util.find_library):
        path = find(key)
        try:
            handle = ctypes.CDLL(path) if path else None
        except OSError:
            handle = None
        if handle is not None:
            return handle
    return None


def dlsym(lib: ctypes.CDLL | None, name: str) -> int | None:
    """Address of symbol `name` in `lib` (function or data), or None."""
    if lib is None:
        return None
    try:
        return ctypes.addressof(ctypes.c_char.in_dll(lib, name))
    except ValueError:
        return None


def resolve(name: str, runtime: Callable[[], ctypes.CDLL]) -> int:
    """The address generated code should use for external symbol `name`.

    `runtime()` gives the pyad C runtime (called only for a ``pyad_*`` name). Raises
    RuntimeError if `name` is not on the allow-list or cannot be found.
    """
    where = None
    addr = None
    if name.startswith("pyad_"):
        where = "the pyad C runtime"
        addr = dlsym(runtime(), name)
    elif name.startswith("Py") or name.startswith("_Py"):
        where = "the CPython C API"
        addr = dlsym(ctypes.pythonapi, name)
    elif name in LIBM_SYMBOLS:
        where = "libm"
        addr = dlsym(dll("m"), name)
        if addr is None:  # static or merged libm (e.g. musl): fall back to the process
            addr = dlsym(ctypes.pythonapi, name)
    elif name in LIBC_SYMBOLS:
        where = "libc"
        addr = dlsym(dll("c"), name) or dlsym(ctypes.pythonapi, name)
    elif name in LIBGCC_SYMBOLS:
        where = "libgcc/compiler-rt"
        addr = dlsym(dll("gcc_s"), name) or dlsym(ctypes.pythonapi, name)
    if where is None:
        raise RuntimeError(
            f"pyad internal compiler error: generated code references the external symbol "
            f"{name!r}, which is not on the JIT allow-list (pyad runtime pyad_*, CPython Py*/_Py*, "
            f"libm, libc memory functions, libgcc helpers)"
        )
    if not addr:
        raise RuntimeError(
            f"pyad internal compiler error: external symbol {name!r} was not found in {where}"
        )
    return addr


def undefined_symbols_elf(obj: bytes) -> list[str] | None:
    """Undefined global/weak symbols of an ELF64 little-endian object (None if not ELF64LE)."""
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        return None
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    out: list[str] = []
    for (_n, sh_type, _f, _a, off, size, link, _i, _al, entsize) in sections:
        if sh_type != 2:  # SHT_SYMTAB
            continue
        stroff = sections[link][4]
        for k in range(1, size // (entsize or 24)):
            st_name, st_info, _other, st_shndx, _v, _s = struct.unpack_from("<IBBHQQ", obj, off + k * 24)
            if st_shndx != 0 or (st_info >> 4) not in (1, 2) or st_name == 0:
                continue
            end = obj.index(b"\0", stroff + st_name)
            out.append(obj[stroff + st_name:end].decode())
    return out
