"""Turn an ``llvmlite.ir.Module`` into native code owned by a Python object.

One process-wide ORC ``LLJIT`` (created lazily, never freed) loads every compiled module as its
own uniquely named JIT library. :func:`compile_module` parses, verifies and optimizes the
module, emits an object file with the host target machine, resolves the object's undefined
symbols against an allow-list and links it. The result is a :class:`CompiledLibrary`; the
machine code lives exactly as long as that object.

All llvmlite binding work runs under :data:`COMPILE_LOCK` (llvmlite releases the GIL in its
ctypes calls, and LLVM is not documented as thread-safe). Calling compiled code needs no lock.

Symbol resolution (nothing is looked up implicitly in the process):

- ``pyad_*``: the pyad C runtime, ``pyad._runtime.library_path()`` (also loaded permanently
  into LLVM's symbol table so that the JIT and cffi share one instance);
- ``Py*`` / ``_Py*``: the CPython C API, functions and data, taken from ``ctypes.pythonapi``
  (the address of the symbol itself: the function, or the variable for data symbols such as
  ``PyExc_TypeError`` or ``_Py_NoneStruct``);
- libm functions (:data:`LIBM_SYMBOLS`), the libc memory functions LLVM intrinsics lower to
  (:data:`LIBC_SYMBOLS`) and compiler-rt/libgcc helpers (:data:`LIBGCC_SYMBOLS`).

Any other external raises a ``RuntimeError`` naming it, before anything is linked (an
unresolved symbol must never become a crash at call time).
"""
from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import itertools
import os
import re
import struct
import sys
import threading
import weakref
from typing import Sequence

import llvmlite.binding as llvm
from llvmlite import ir

__all__ = [
    "COMPILE_LOCK",
    "CompiledLibrary",
    "CodeOwner",
    "compile_module",
    "emit_object",
    "require_export",
    "host_cpu",
    "resolve_symbol",
    "undefined_symbols",
    "LIBM_SYMBOLS",
    "LIBC_SYMBOLS",
    "LIBGCC_SYMBOLS",
]

#: Serializes all llvmlite binding work (parse, optimize, codegen, link, unload).
COMPILE_LOCK = threading.RLock()

# os.fork() waits until no other thread is inside LLVM: a child forked in the middle of a
# compile would inherit LLVM (and this lock) in an inconsistent, locked state. The forking
# thread holds the lock across fork() and both sides release it.
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=COMPILE_LOCK.acquire, after_in_parent=COMPILE_LOCK.release,
                        after_in_child=COMPILE_LOCK.release)

# ---------------------------------------------------------------------------------------------
# Allow-list of external symbols
# ---------------------------------------------------------------------------------------------

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
_LINKER_SYMBOLS = frozenset(["_GLOBAL_OFFSET_TABLE_"])

_dll_cache: dict[str, ctypes.CDLL | None] = {}
_SONAMES = {"m": "libm.so.6", "c": "libc.so.6", "gcc_s": "libgcc_s.so.1"} \
    if sys.platform.startswith("linux") else {}
_runtime_dll: ctypes.CDLL | None = None


def _dll(key: str) -> ctypes.CDLL | None:
    """A ctypes handle for libm / libc / libgcc_s (None if the library cannot be found)."""
    if key not in _dll_cache:
        handle = None
        # the usual soname first: find_library runs ldconfig/gcc in a subprocess (~100 ms)
        for find in (_SONAMES.get, ctypes.util.find_library):
            path = find(key)
            try:
                handle = ctypes.CDLL(path) if path else None
            except OSError:
                handle = None
            if handle is not None:
                break
        _dll_cache[key] = handle
    return _dll_cache[key]


def _dlsym(dll: ctypes.CDLL | None, name: str) -> int | None:
    """Address of symbol `name` in `dll` (function or data), or None."""
    if dll is None:
        return None
    try:
        return ctypes.addressof(ctypes.c_char.in_dll(dll, name))
    except ValueError:
        return None


def _runtime() -> ctypes.CDLL:
    """The pyad C runtime, loaded once (version-checked through pyad._runtime.dll())."""
    global _runtime_dll
    if _runtime_dll is None:
        from pyad import _runtime

        path = str(_runtime.library_path())
        _runtime.dll()  # raises a helpful RuntimeError on a missing or stale runtime
        with COMPILE_LOCK:
            llvm.load_library_permanently(path)
        _runtime_dll = ctypes.CDLL(path)
    return _runtime_dll


def resolve_symbol(name: str) -> int:
    """The address generated code should use for external symbol `name`.

    Raises RuntimeError if `name` is not on the allow-list or cannot be found.
    """
    where = None
    addr = None
    if name.startswith("pyad_"):
        where = "the pyad C runtime"
        addr = _dlsym(_runtime(), name)
    elif name.startswith("Py") or name.startswith("_Py"):
        where = "the CPython C API"
        addr = _dlsym(ctypes.pythonapi, name)
    elif name in LIBM_SYMBOLS:
        where = "libm"
        addr = _dlsym(_dll("m"), name)
        if addr is None:  # static or merged libm (e.g. musl): fall back to the process
            addr = _dlsym(ctypes.pythonapi, name)
    elif name in LIBC_SYMBOLS:
        where = "libc"
        addr = _dlsym(_dll("c"), name) or _dlsym(ctypes.pythonapi, name)
    elif name in LIBGCC_SYMBOLS:
        where = "libgcc/compiler-rt"
        addr = _dlsym(_dll("gcc_s"), name) or _dlsym(ctypes.pythonapi, name)
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


# ---------------------------------------------------------------------------------------------
# Target machines and the process-wide LLJIT
# ---------------------------------------------------------------------------------------------

_initialized = False
_host: tuple[str, str, str] | None = None  # (triple, cpu, features)
_tms: dict[tuple, llvm.TargetMachine] = {}
_lljit = None
_lljit_tm = None  # kept alive forever next to the LLJIT
_lib_counter = itertools.count()

# Objects for the JIT use the large code model with absolute relocations: no assumption about
# the distance between JIT memory, its own sections and libpython/libm (RuntimeDyld may place
# them anywhere). Measured per-call cost is identical to pic/small (16.6 ns either way). The
# object bytes can be re-linked into this JIT (a cache); AOT builds use emit_object().
_JIT_RELOC = "static"
_JIT_CODEMODEL = "jitdefault"


def _init() -> None:
    global _initialized
    if not _initialized:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _initialized = True


def host_cpu() -> tuple[str, str, str]:
    """(triple, cpu name, feature string) of the host, computed once per process."""
    global _host
    if _host is None:
        with COMPILE_LOCK:
            _init()
            _host = (
                llvm.get_process_triple(),
                llvm.get_host_cpu_name(),
                llvm.get_host_cpu_features().flatten(),
            )
    return _host


def _target_machine(opt: int, *, cpu: str | None = None, features: str | None = None,
                    reloc: str | None = None, codemodel: str | None = None) -> llvm.TargetMachine:
    """A cached (never owned by anything else) target machine; use under COMPILE_LOCK only."""
    reloc = reloc or _JIT_RELOC
    codemodel = codemodel or _JIT_CODEMODEL
    triple, host_name, host_features = host_cpu()
    if cpu is None:
        cpu, features = host_name, host_features if features is None else features
    elif features is None:
        features = ""
    key = (opt, cpu, features, reloc, codemodel)
    tm = _tms.get(key)
    if tm is None:
        target = llvm.Target.from_triple(triple)
        tm = target.create_target_machine(cpu=cpu, features=features, opt=opt, reloc=reloc,
                                          codemodel=codemodel)
        _tms[key] = tm
    return tm


def _get_lljit():
    global _lljit, _lljit_tm
    if _lljit is None:
        triple, cpu, features = host_cpu()
        # A fresh TM that belongs to the LLJIT alone; both are kept for the process lifetime.
        _lljit_tm = llvm.Target.from_triple(triple).create_target_machine(
            cpu=cpu, features=features, opt=2, reloc=_JIT_RELOC, codemodel=_JIT_CODEMODEL, jit=True)
        _lljit = llvm.create_lljit_compiler(_lljit_tm)
    return _lljit


# ---------------------------------------------------------------------------------------------
# Keeping code alive
# ---------------------------------------------------------------------------------------------
#
# Python functions made from a library (pywrap.make_callable) read their PyMethodDef, which
# lives in JIT memory, until they are deallocated -- also while the cyclic GC traverses them.
# So the code must be freed only after every such function is gone, and never early by the GC
# breaking a reference cycle (function -> library -> fallback dispatcher -> function is the
# normal case; the GC runs finalizers and tp_clear of all garbage before the deallocations):
#   - the ResourceTracker lives in the module-level registry _LIVE (never garbage, so the GC
#     never runs its finalizer early);
#   - a PyCapsule (not GC-tracked, no finalizer) whose destructor removes the tracker from _LIVE
#     is referenced by the CompiledLibrary and by one CodeOwner per function;
#   - a CodeOwner is the function's m_self: a tuple (capsule, library). Tuple items are never
#     cleared by the GC, so the capsule dies only when the library and all functions are gone.

_LIVE: dict[int, object] = {}
_token_counter = itertools.count(1)

_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_CAPSULE_NAME = b"pyad.codegen.jit.code"


def _release(token: int) -> None:
    with COMPILE_LOCK:
        tracker = _LIVE.pop(token, None)
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


class CodeOwner(tuple):
    """``(capsule, library, pickle_as)``: what a Python function made from a library holds as
    ``__self__``. It keeps the code and the CompiledLibrary alive; ``.library`` is the
    CompiledLibrary. ``pickle_as`` is None or ``(weakref to obj, attr)``: the function then
    pickles as ``getattr(obj, attr)`` (a builtin function pickles as
    ``getattr(__self__, __name__)``; this ``__self__`` reduces to an :class:`_Entry`)."""

    __slots__ = ()

    @property
    def library(self) -> "CompiledLibrary":
        return self[1]

    def __repr__(self) -> str:
        return f"<pyad code of {self[1]!r}>"

    def __reduce__(self):
        target = self[2] if len(self) > 2 else None
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
    ``object_code`` (the object file that was linked; can be re-linked into this JIT, e.g.
    from a cache).
    """

    def __init__(self, token: int, *, name: str, exports: tuple, llvm_ir: str,
                 unoptimized_ir: str, object_code: bytes, addresses: dict):
        self._code = _PyCapsule_New(token, _CAPSULE_NAME,
                                    ctypes.cast(_capsule_destructor, ctypes.c_void_p))
        self._addresses = addresses
        self._keep: list = []
        self.name = name
        self.exports = exports
        self.llvm_ir = llvm_ir
        self.unoptimized_ir = unoptimized_ir
        self.object_code = object_code

    def address(self, name: str) -> int:
        """Address of exported symbol `name` (KeyError if it was not exported). Valid while this
        object is alive."""
        try:
            return self._addresses[name]
        except KeyError:
            raise KeyError(f"{name!r} is not exported by JIT library {self.name!r} "
                           f"(exports: {sorted(self._addresses)})") from None

    def code_owner(self, pickle_as: tuple | None = None) -> CodeOwner:
        """A new owner object to use as ``m_self`` of a Python function whose PyMethodDef or
        code lives in this library. `pickle_as` = ``(obj, attr)`` lets the function pickle as
        ``getattr(obj, attr)`` (obj is held weakly); otherwise pickling raises TypeError."""
        target = None if pickle_as is None else (weakref.ref(pickle_as[0]), pickle_as[1])
        return CodeOwner((self._code, self, target))

    def keep_alive(self, obj: object) -> None:
        """Keep `obj` alive as long as this library (for objects whose raw pointer is stored in
        the library's globals, e.g. fallbacks)."""
        self._keep.append(obj)

    def __repr__(self) -> str:
        return f"<CompiledLibrary {self.name} exports={list(self.exports)}>"

    def __reduce__(self):
        raise TypeError("CompiledLibrary cannot be pickled (use .object_code)")


# ---------------------------------------------------------------------------------------------
# Compilation
# ---------------------------------------------------------------------------------------------

_REQUIRED_EXPORTS = "_pyad_required_exports"


def require_export(module: ir.Module, name: str) -> None:
    """Ask compile_module to export `name` in addition to its `exports` argument (emitters
    such as pywrap use it for globals that Python must find, e.g. fallback slots)."""
    lst = module.__dict__.setdefault(_REQUIRED_EXPORTS, [])
    if name not in lst:
        lst.append(name)


_FP_BINOP_RE = re.compile(r"(=\s+)(fadd|fsub|fmul|fdiv|frem|fneg|fcmp)(\s)")
_FP_CALL_RE = re.compile(
    r"(=\s+(?:tail\s+|notail\s+)?call\s+)(?=(?:[a-z_]+\s+)*(?:half|float|double|<\d+\s+x\s+(?:half|float|double)>)\s)"
)


def _add_fastmath(text: str) -> str:
    """Add the `fast` flag to every floating-point operation and FP-returning call."""
    text = _FP_BINOP_RE.sub(r"\1\2 fast\3", text)
    return _FP_CALL_RE.sub(r"\1fast ", text)


def _undefined_symbols_elf(obj: bytes) -> list[str] | None:
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


def _declared_externals(mod: llvm.ModuleRef) -> list[str]:
    names = [f.name for f in mod.functions if f.is_declaration and not f.name.startswith("llvm.")]
    names += [g.name for g in mod.global_variables if g.is_declaration]
    return names


def _parse(text: str, what: str) -> llvm.ModuleRef:
    try:
        mod = llvm.parse_assembly(text)
        mod.verify()
    except RuntimeError as e:
        raise RuntimeError(f"pyad internal compiler error: generated LLVM IR of {what} is invalid:\n{e}") from None
    return mod


def _optimize(mod: llvm.ModuleRef, tm: llvm.TargetMachine, opt: int) -> None:
    # Fresh PTO / PassBuilder / MPM per call: an MPM must never run twice (LLVM aborts).
    pto = llvm.create_pipeline_tuning_options(speed_level=opt)
    pto.loop_vectorization = opt > 0
    pto.slp_vectorization = opt > 0
    pto.loop_interleaving = opt > 0
    pto.loop_unrolling = opt > 0
    pb = llvm.create_pass_builder(tm, pto)
    mpm = pb.getModulePassManager()
    mpm.run(mod, pb)
    del mpm, pb, pto


def compile_module(module: ir.Module, exports: Sequence[str], *, opt: int = 2,
                   fastmath: bool = False, name: str | None = None,
                   object_cache=None) -> CompiledLibrary:
    """Compile `module` to native code in the process-wide JIT.

    `exports` are the symbols whose addresses are wanted (plus any registered with
    :func:`require_export`). `opt` is the optimization level 0..3 (pipeline and codegen).
    `fastmath` adds the `fast` flag to every FP instruction and FP-returning call (otherwise the
    flags written by the code generator are kept as they are). `name` is an optional prefix
    for the JIT library name (debugging aid).

    `object_cache` (e.g. a ``pyad.cache.ObjectCache``) skips parsing, optimization and code
    generation when it holds the object for this module: ``key(text, target)`` gives the key of
    the module text (after the fastmath rewrite) and the target tuple, ``load(key, name)``
    returns ``(object bytes, optimized IR)`` or None, ``store(key, name, obj, optimized_ir)``
    is called after a fresh compile, ``reject(key, name)`` when a loaded object fails to link
    (the module is then compiled afresh). A cached object links exactly like a fresh one.

    Raises RuntimeError ("pyad internal compiler error: ...") if the IR does not verify,
    references an external symbol outside the allow-list, or fails to link.
    """
    if not 0 <= opt <= 3:
        raise ValueError(f"opt must be 0..3, got {opt}")
    all_exports = list(dict.fromkeys(list(exports) + list(module.__dict__.get(_REQUIRED_EXPORTS, ()))))
    with COMPILE_LOCK:
        triple, cpu, features = host_cpu()
        tm = _target_machine(opt)
        module.triple = triple
        module.data_layout = str(tm.target_data)
        unoptimized = str(module)
        text = _add_fastmath(unoptimized) if fastmath else unoptimized
        key = None
        if object_cache is not None and llvm.get_object_format() == "ELF":
            target = (triple, cpu, features, opt, _JIT_RELOC, _JIT_CODEMODEL, fastmath,
                      tuple(all_exports))
            key = object_cache.key(text, target)
            hit = object_cache.load(key, name)
            if hit is not None:
                obj, optimized = hit
                try:
                    return _link(obj, {}, all_exports, name, optimized, unoptimized)
                except Exception:  # noqa: BLE001 -- a bad entry: forget it and compile afresh
                    object_cache.reject(key, name)
        mod = _parse(text, f"module {module.name!r}")

        defined = {f.name for f in mod.functions if not f.is_declaration}
        defined |= {g.name for g in mod.global_variables if not g.is_declaration}
        missing = [e for e in all_exports if e not in defined]
        if missing:
            raise RuntimeError(f"pyad internal compiler error: exported symbols {missing} are not "
                               f"defined in module {module.name!r}")
        # Fail early (before optimizing) on a declared external outside the allow-list.
        imports = {n: resolve_symbol(n) for n in _declared_externals(mod)}

        _optimize(mod, tm, opt)
        optimized = str(mod)
        obj = tm.emit_object(mod)
        del mod
        lib = _link(obj, imports, all_exports, name, optimized, unoptimized)
        if key is not None:
            object_cache.store(key, name, obj, optimized)
        return lib


def _link(obj: bytes, imports: dict[str, int], all_exports: list[str], name: str | None,
          optimized: str, unoptimized: str) -> CompiledLibrary:
    """Link object file `obj` into the JIT as a new library (under COMPILE_LOCK). `imports`
    are the externals already resolved; the object's other undefined symbols are resolved
    through the allow-list here."""
    imports = dict(imports)
    undefined = _undefined_symbols_elf(obj)
    if undefined is None:  # not ELF: import everything codegen might reference
        undefined = [n for n in sorted(LIBM_SYMBOLS | LIBC_SYMBOLS) if n not in imports]
        undefined = [n for n in undefined if _dlsym(_dll("m"), n) or _dlsym(_dll("c"), n)]
    for sym in undefined:
        if sym not in imports and sym not in _LINKER_SYMBOLS:
            imports[sym] = resolve_symbol(sym)

    builder = llvm.JITLibraryBuilder().add_object_img(obj)
    for sym, addr in imports.items():
        builder.import_symbol(sym, addr)
    for sym in all_exports:
        builder.export_symbol(sym)
    libname = f"{name or 'pyad'}.{next(_lib_counter)}"
    try:
        tracker = builder.link(_get_lljit(), libname)
    except RuntimeError as e:
        raise RuntimeError(f"pyad internal compiler error: linking {libname} failed: {e}") from None
    addresses = {sym: tracker[sym] for sym in all_exports}
    token = next(_token_counter)
    _LIVE[token] = tracker
    del tracker
    return CompiledLibrary(
        token,
        name=libname,
        exports=tuple(all_exports),
        llvm_ir=optimized,
        unoptimized_ir=unoptimized,
        object_code=obj,
        addresses=addresses,
    )


def emit_object(module: ir.Module, *, cpu: str | None = None, features: str | None = None,
                opt: int = 2, reloc: str = "pic", codemodel: str = "small",
                fastmath: bool = False) -> bytes:
    """Optimize `module` and return a relocatable object file (for AOT builds).

    `cpu=None` targets the host CPU (host features); otherwise e.g. 'x86-64-v2' with
    `features` (default none beyond the CPU's). PIC + small code model link cleanly into a
    shared library.
    """
    with COMPILE_LOCK:
        triple, _c, _f = host_cpu()
        tm = _target_machine(opt, cpu=cpu, features=features, reloc=reloc, codemodel=codemodel)
        module.triple = triple
        module.data_layout = str(tm.target_data)
        text = str(module)
        if fastmath:
            text = _add_fastmath(text)
        mod = _parse(text, f"module {module.name!r}")
        _optimize(mod, tm, opt)
        return tm.emit_object(mod)


def undefined_symbols(obj: bytes) -> list[str]:
    """Undefined symbols of an ELF object (helper for tests and the AOT path)."""
    return _undefined_symbols_elf(obj) or []
