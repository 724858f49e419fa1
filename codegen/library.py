"""Native code owned by Python objects: a linked JIT library lives exactly as long as its
:class:`CompiledLibrary` and every Python function made from it (pywrap.make_callable).

All llvmlite binding work (parse, optimize, codegen, link, unload) runs under
:data:`COMPILE_LOCK`: llvmlite releases the GIL in its ctypes calls, and LLVM is not
documented as thread-safe. Unloading happens here, compiling in jit.py; both take the lock.

The registry :data:`LIVE` of loaded code (token -> ORC ResourceTracker) is process-wide by
nature: the JIT that holds the code is one per process (jit.py).
"""
from __future__ import annotations

import _ctypes
import atexit
import ctypes
import itertools
import os
import threading
import weakref

__all__ = ["COMPILE_LOCK", "LIVE", "CodeOwner", "CompiledLibrary", "FALLBACK_ITEM", "RETRY_ITEM",
           "NAME_ITEM", "KERNEL_ITEM",
           "register",
           "load_shared"]

#: Serializes all llvmlite binding work (parse, optimize, codegen, link, unload).
COMPILE_LOCK = threading.RLock()

# os.fork() waits until no other thread is inside LLVM: a child forked in the middle of a
# compile would inherit LLVM (and this lock) in an inconsistent, locked state. The forking
# thread holds the lock across fork() and both sides release it.
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=COMPILE_LOCK.acquire, after_in_parent=COMPILE_LOCK.release,
                        after_in_child=COMPILE_LOCK.release)

#
# Python functions made from a library (pywrap.make_callable) read their PyMethodDef, which
# lives in JIT memory, until they are deallocated -- also while the cyclic GC traverses them.
# So the code must be freed only after every such function is gone, and never early by the GC
# breaking a reference cycle (function -> library -> fallback dispatcher -> function is the
# normal case; the GC runs finalizers and tp_clear of all garbage before the deallocations):
#   - the ResourceTracker lives in the module-level registry LIVE (never garbage, so the GC
#     never runs its finalizer early);
#   - a PyCapsule (not GC-tracked, no finalizer) whose destructor removes the tracker from LIVE
#     is referenced by the CompiledLibrary and by one CodeOwner per function;
#   - a CodeOwner is the function's m_self: a tuple (capsule, library). Tuple items are never
#     cleared by the GC, so the capsule dies only when the library and all functions are gone.

LIVE: dict[int, object] = {}
_token_counter = itertools.count(1)


def register(tracker) -> int:
    """Keep `tracker` (a linked library's ResourceTracker) loaded until the capsule of the
    token returned here dies (under COMPILE_LOCK)."""
    token = next(_token_counter)
    LIVE[token] = tracker
    return token


_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_CAPSULE_NAME = b"pyad.codegen.jit.code"


def _release(token: int) -> None:
    with COMPILE_LOCK:
        tracker = LIVE.pop(token, None)
        del tracker  # ResourceTracker.__del__ unloads the library here, under the lock


_SHUTTING_DOWN = False


@atexit.register
def _stop_releasing() -> None:
    # Code still alive at interpreter exit is left to the OS: unloading it while modules
    # (and LLVM) are being torn down is what crashes, and nothing can call it any more.
    global _SHUTTING_DOWN
    _SHUTTING_DOWN = True


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule):  # called from the capsule's tp_dealloc; must not raise
    try:
        if _SHUTTING_DOWN:
            return
        token = _PyCapsule_GetPointer(capsule, _CAPSULE_NAME)
        if token:
            _release(token)
    except BaseException:  # noqa: BLE001 -- e.g. interpreter shutdown; nothing sensible to do
        pass


# Capsules may be destroyed after this module's globals are cleared at exit; the C thunk of
# the destructor must outlive them, so it is never freed (one reference is leaked on purpose).
ctypes.pythonapi.Py_IncRef(ctypes.py_object(_capsule_destructor))


#: the indices of the fallback, the retry, the name and the kernel in a CodeOwner (read by the
#: native wrappers: python/pyobj.py)
FALLBACK_ITEM, RETRY_ITEM, NAME_ITEM, KERNEL_ITEM = 3, 4, 5, 6


class CodeOwner(tuple):
    """``(capsule, library, pickle_as, fallback, retry, name, kernel, extra)``: what a Python
    function made from a library holds as ``__self__``. It keeps the code and the CompiledLibrary alive; ``.library`` is the
    CompiledLibrary. ``pickle_as`` is None or ``(weakref to obj, attr)``: the function then
    pickles as ``getattr(obj, attr)`` (a builtin function pickles as
    ``getattr(__self__, __name__)``; this ``__self__`` reduces to an :class:`_Entry`).
    ``fallback`` (item :data:`FALLBACK_ITEM`) is what the native wrapper calls with its
    arguments when it cannot take them itself, or None; ``retry`` (item :data:`RETRY_ITEM`)
    what it calls with them when its kernel asks for a run with strong zeros (error kind
    StrongZeros, pyad/ad/gradient.py), or None. ``name`` (item :data:`NAME_ITEM`, a str) is
    the function name the wrapper's messages give; ``kernel`` (item :data:`KERNEL_ITEM`) a
    capsule of the kernel's address for a wrapper shared by every kernel of its signature
    (python/families.py), else None; ``extra`` (last) what else the function needs alive."""

    __slots__ = ()

    @property
    def library(self) -> "CompiledLibrary":
        return self[1]

    @property
    def wrappers(self) -> "CompiledLibrary | None":
        """The library of the shared wrapper the function runs (python/families.py), or None
        when its wrapper is its library's own."""
        extra = self[7]
        return extra[1] if isinstance(extra, tuple) else None

    def __repr__(self) -> str:
        return f"<pyad code of {self[1]!r}>"

    def __reduce__(self):
        target = self[2]
        obj = target[0]() if target is not None else None
        if obj is None:
            raise TypeError("pyad compiled code cannot be pickled")
        return _Entry, (obj, target[1])


class _Entry:
    """Unpickled stand-in for a CodeOwner: any attribute is ``getattr(obj, attr)``."""

    def __init__(self, obj, attr: str) -> None:
        self._target = getattr(obj, attr)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._target


class CompiledLibrary:
    """Native code of one compiled module. The code stays loaded while this object or any
    Python function made from it (pywrap.make_callable) is alive.

    Attributes: ``name`` (the JIT library name), ``exports`` (exported symbol names),
    ``llvm_ir`` (optimized module text), ``unoptimized_ir`` (module text as given),
    ``object_code`` (the object file that was linked). The last two are None for a shared
    object loaded from disk (:func:`load_shared`).
    """

    def __init__(self, token: int, *, name: str, exports: tuple, llvm_ir,
                 unoptimized_ir: str | None, object_code: bytes | None, addresses: dict):
        self._code = _PyCapsule_New(token, _CAPSULE_NAME,
                                    ctypes.cast(_capsule_destructor, ctypes.c_void_p))
        self._addresses = addresses
        self._keep: list = []
        self.name = name
        self.exports = exports
        self._llvm_ir = llvm_ir
        self.unoptimized_ir = unoptimized_ir
        self.object_code = object_code

    @property
    def llvm_ir(self) -> str:
        """The optimized LLVM IR text (read when first asked for, for a shared object)."""
        if callable(self._llvm_ir):
            self._llvm_ir = self._llvm_ir()
        return self._llvm_ir

    def address(self, name: str) -> int:
        """Address of exported symbol `name` (KeyError if it was not exported). Valid while this
        object is alive."""
        try:
            return self._addresses[name]
        except KeyError:
            raise KeyError(f"{name!r} is not exported by JIT library {self.name!r} "
                           f"(exports: {sorted(self._addresses)})") from None

    def code_owner(self, pickle_as: tuple | None = None, fallback=None,
                   retry=None, name: str = "", kernel=None, extra=None) -> CodeOwner:
        """A new owner object to use as ``m_self`` of a Python function whose PyMethodDef or
        code lives in this library. `pickle_as` = ``(obj, attr)`` lets the function pickle as
        ``getattr(obj, attr)`` (obj is held weakly); otherwise pickling raises TypeError.
        `fallback` is the callable its native wrapper falls back to (or None), `retry` the
        one it calls when its kernel asks for strong zeros (or None). `name`, `kernel` and
        `extra`: see :class:`CodeOwner`."""
        target = None if pickle_as is None else (weakref.ref(pickle_as[0]), pickle_as[1])
        return CodeOwner((self._code, self, target, fallback, retry, name, kernel, extra))

    def keep_alive(self, obj: object) -> None:
        """Keep `obj` alive as long as this library (for objects whose raw pointer is stored in
        the library's globals, e.g. fallbacks)."""
        self._keep.append(obj)

    def __repr__(self) -> str:
        return f"<CompiledLibrary {self.name} exports={list(self.exports)}>"

    def __reduce__(self):
        raise TypeError("CompiledLibrary cannot be pickled (use .object_code)")



# ---------------------------------------------------------------------------------------------
# Shared objects (the on-disk cache): loaded with the dynamic loader, no LLVM
# ---------------------------------------------------------------------------------------------

class _SharedObject:
    """A dlopen handle, closed when this object dies (it lives in :data:`LIVE` like a JIT
    library's ResourceTracker, and dies the same way: with the last callable made from it)."""

    def __init__(self, path: str) -> None:
        self.dll = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)

    def __del__(self) -> None:
        handle = getattr(getattr(self, "dll", None), "_handle", None)
        # at exit the OS unmaps it (see _stop_releasing; module globals may be None by then)
        if handle and _SHUTTING_DOWN is False:
            _ctypes.dlclose(handle)


def load_shared(path: str, exports: tuple, name: str, llvm_ir) -> CompiledLibrary:
    """The shared object at `path` as a CompiledLibrary exporting `exports` (its symbols must be
    resolvable in the process: the pyad runtime is loaded with RTLD_GLOBAL first). `llvm_ir`
    is its optimized IR or a function returning it. Raises OSError if it cannot be loaded or
    lacks an export."""
    so = _SharedObject(path)
    addresses = {}
    for sym in exports:
        try:
            addresses[sym] = ctypes.addressof(ctypes.c_char.in_dll(so.dll, sym))
        except ValueError:
            raise OSError(f"{path} does not define {sym!r}") from None
    with COMPILE_LOCK:
        token = register(so)
    del so
    return CompiledLibrary(token, name=name, exports=tuple(exports), llvm_ir=llvm_ir,
                           unoptimized_ir=None, object_code=None, addresses=addresses)
