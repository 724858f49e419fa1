"""Turn an ``llvmlite.ir.Module`` into native code owned by a Python object.

One process-wide ORC ``LLJIT`` (created lazily, never freed) loads every compiled module as its
own uniquely named JIT library. :func:`compile_module` parses, verifies and optimizes the
module, emits an object file with the host target machine, resolves the object's undefined
symbols against an allow-list (symbols.py) and links it. The result is a
:class:`CompiledLibrary` (library.py); the machine code lives exactly as long as that object.

All llvmlite binding work runs under :data:`COMPILE_LOCK` (llvmlite releases the GIL in its
ctypes calls, and LLVM is not documented as thread-safe). Calling compiled code needs no lock.

The process-wide state here is what exists once per process anyway: the LLJIT, the host
target machines, the loaded C runtime.
"""
from __future__ import annotations

import ctypes
import itertools
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from typing import Sequence

import llvmlite.binding as llvm
from llvmlite import ir

from pyad import _runtime as pyad_runtime
from pyad.timings import Timings, phase

from . import passes, symbols
from .lower import vecmath
from .library import COMPILE_LOCK, LIVE, CodeOwner, CompiledLibrary, register
from .symbols import LIBC_SYMBOLS, LIBGCC_SYMBOLS, LIBM_SYMBOLS

__all__ = [
    "COMPILE_LOCK",
    "CompiledLibrary",
    "CodeOwner",
    "compile_module",
    "build_shared",
    "emit_object",
    "exported_data",
    "optimized_ir",
    "host_cpu",
    "resolve_symbol",
    "undefined_symbols",
    "LIBM_SYMBOLS",
    "LIBC_SYMBOLS",
    "LIBGCC_SYMBOLS",
]

_LIVE = LIVE  # the registry of loaded code (library.py); tests count it
_runtime_dll: ctypes.CDLL | None = None


def _runtime() -> ctypes.CDLL:
    """The pyad C runtime, loaded once (version-checked through pyad._runtime.dll())."""
    global _runtime_dll
    if _runtime_dll is None:
        path = str(pyad_runtime.library_path())
        pyad_runtime.dll()  # raises a helpful RuntimeError on a missing or stale runtime
        with COMPILE_LOCK:
            llvm.load_library_permanently(path)
        _runtime_dll = ctypes.CDLL(path)
    return _runtime_dll


def resolve_symbol(name: str) -> int:
    """The address generated code should use for external symbol `name` (symbols.py).

    Raises RuntimeError if `name` is not on the allow-list or cannot be found.
    """
    return symbols.resolve(name, _runtime)


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
# them anywhere). Measured per-call cost is identical to pic/small (16.6 ns either way). Shared
# objects (build_shared, the on-disk cache) and AOT builds (emit_object) use pic/small.
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
# Compilation
# ---------------------------------------------------------------------------------------------

def exported_data(module: ir.Module) -> list[str]:
    """The data globals `module` defines with external linkage: the PyMethodDefs, fallback
    slots and numpy slots that Python fills or reads after linking (python/wrap.py). Everything
    else a module defines is a kernel, a callee or a private string."""
    return [g.name for g in module.global_values
            if isinstance(g, ir.GlobalVariable) and g.initializer is not None
            and g.linkage in ("", "external")]




_FP_BINOP_RE = re.compile(r"(=\s+)(fadd|fsub|fmul|fdiv|frem|fneg|fcmp)(\s)")
_FP_CALL_RE = re.compile(
    r"(=\s+(?:tail\s+|notail\s+)?call\s+)(?=(?:[a-z_]+\s+)*(?:half|float|double|<\d+\s+x\s+(?:half|float|double)>)\s)"
)


_DEFINE_RE = re.compile(r"^(?=define )", re.M)


def _add_fastmath(text: str) -> str:
    """Add the `fast` flag to every floating-point operation and FP-returning call, except
    in the math kernels (lower/vecmath.py): their range reduction and special cases need
    IEEE rules (reassociation would cancel the correction terms, `nnan` drop the nan
    checks); inlined, they stay exact inside fast code."""
    def fast(part: str) -> str:
        if part.startswith("define") and f'@"{vecmath.PREFIX}' in part.split("(", 1)[0]:
            return part
        part = _FP_BINOP_RE.sub(r"\1\2 fast\3", part)
        return _FP_CALL_RE.sub(r"\1fast ", part)
    return "".join(fast(part) for part in _DEFINE_RE.split(text))


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


def _optimize(mod: llvm.ModuleRef, tm: llvm.TargetMachine, opt: int, module: ir.Module) -> None:
    """Optimize `mod`, parsed from `module`, with the pipeline passes.py chooses for it."""
    passes.optimize(mod, tm, opt, loops=passes.module_has_loop(module))


def compile_module(module: ir.Module, exports: Sequence[str], *, opt: int = 2,
                   fastmath: bool = False, name: str | None = None,
                   timings: Timings | None = None) -> CompiledLibrary:
    """Compile `module` to native code in the process-wide JIT.

    `exports` are the symbols whose addresses are wanted (plus :func:`exported_data`). `opt` is the optimization level 0..3 (pipeline and codegen).
    `fastmath` adds the `fast` flag to every FP instruction and FP-returning call (otherwise the
    flags written by the code generator are kept as they are). `name` is an optional prefix
    for the JIT library name (debugging aid).

    `timings` (pyad/timings.py) gets the time of the phases: "LLVM IR emission" (printing
    the module, LLVM parsing and verifying it), "LLVM optimization", "machine code" (the
    object file) and "linking".

    Raises RuntimeError ("pyad internal compiler error: ...") if the IR does not verify,
    references an external symbol outside the allow-list, or fails to link.
    """
    with COMPILE_LOCK:
        obj, optimized, unoptimized, imports, all_exports = _compile_object(
            module, exports, opt, fastmath, timings)
        with phase(timings, "linking"):
            return _link(obj, imports, all_exports, name, optimized, unoptimized)


def build_shared(module: ir.Module, exports: Sequence[str], path, *, opt: int = 2,
                 fastmath: bool = False, timings: Timings | None = None) -> tuple[str, list[str]]:
    """Compile `module` as :func:`compile_module` does, into a shared object written at `path`
    (position-independent code linked by `ld` or the C compiler: :func:`_link_shared`) instead
    of the JIT; load it with ``library.load_shared``. Its undefined symbols are checked against the same
    allow-list and resolved by the dynamic loader (the pyad runtime is opened RTLD_GLOBAL).
    Returns (the optimized IR, the exported symbols). Raises RuntimeError as
    :func:`compile_module` does, and OSError when the linker is missing or fails."""
    with COMPILE_LOCK:
        obj, optimized, _unoptimized, _imports, all_exports = _compile_object(
            module, exports, opt, fastmath, timings, reloc="pic", codemodel="small")
    undefined = [sym for sym in symbols.undefined_symbols_elf(obj) or []
                 if sym not in symbols.LINKER_SYMBOLS]
    for sym in undefined:
        resolve_symbol(sym)  # on the allow-list, and present in this process
    with phase(timings, "linking"):
        _link_shared(obj, str(path), undefined)
    return optimized, all_exports


def _link_shared(obj: bytes, path: str, undefined: list[str]) -> None:
    """Link object `obj` into the shared object `path`. When the dynamic loader finds every
    symbol it needs in the process's global scope (libc, libm, libpython, the pyad runtime
    opened RTLD_GLOBAL) the linker alone does it (`ld -shared`, a few ms); otherwise (e.g. a
    compiler helper from libgcc) the C compiler's driver, which adds libm and libgcc
    (`$CC` or `cc`, about 4x slower)."""
    ld = shutil.which("ld")
    process = ctypes.CDLL(None)  # dlopen(NULL): the global scope
    if ld and all(symbols.dlsym(process, sym) for sym in undefined):
        tool = [ld, "-shared"]
    else:
        tool = [*shlex.split(os.environ.get("CC") or "cc"), "-shared"]
    with tempfile.NamedTemporaryFile(suffix=".o", dir=os.path.dirname(path) or None) as f:
        f.write(obj)
        f.flush()
        try:
            p = subprocess.run([*tool, "-o", path, f.name] + (["-lm"] if tool[0] != ld else []),
                               capture_output=True, text=True)
        except OSError as e:
            raise OSError(f"cannot run {tool[0]!r} to link a shared object: {e}") from None
    if p.returncode != 0:
        raise OSError(f"linking a shared object with {tool[0]!r} failed: "
                      f"{(p.stderr or p.stdout).strip()[:500]}")


def _compile_object(module: ir.Module, exports: Sequence[str], opt: int, fastmath: bool,
                    timings: Timings | None, **target) -> tuple:
    """(object file, optimized IR, unoptimized IR, addresses of the declared externals, all
    exports) of `module` for the host CPU with the `target` relocation options (under
    COMPILE_LOCK)."""
    if not 0 <= opt <= 3:
        raise ValueError(f"opt must be 0..3, got {opt}")
    all_exports = list(dict.fromkeys([*exports, *exported_data(module)]))
    tm = _target_machine(opt, **target)
    mod, unoptimized, imports = _prepare(module, tm, all_exports, fastmath, timings)
    with phase(timings, "LLVM optimization"):
        _optimize(mod, tm, opt, module)
        optimized = str(mod)
    with phase(timings, "machine code"):
        obj = tm.emit_object(mod)
    return obj, optimized, unoptimized, imports, all_exports


def _prepare(module: ir.Module, tm, all_exports: list[str], fastmath: bool,
             timings: Timings | None):
    """(the parsed and verified module, its unoptimized text, the addresses of its declared
    externals), under COMPILE_LOCK. Fails early (before optimizing) on a missing export or a
    declared external outside the allow-list."""
    with phase(timings, "LLVM IR emission"):
        module.triple = host_cpu()[0]
        module.data_layout = str(tm.target_data)
        unoptimized = str(module)
        mod = _parse(_add_fastmath(unoptimized) if fastmath else unoptimized,
                     f"module {module.name!r}")
        defined = {f.name for f in mod.functions if not f.is_declaration}
        defined |= {g.name for g in mod.global_variables if not g.is_declaration}
    missing = [e for e in all_exports if e not in defined]
    if missing:
        raise RuntimeError(f"pyad internal compiler error: exported symbols {missing} are not "
                           f"defined in module {module.name!r}")
    return mod, unoptimized, {n: resolve_symbol(n) for n in _declared_externals(mod)}


def _link(obj: bytes, imports: dict[str, int], all_exports: list[str], name: str | None,
          optimized: str, unoptimized: str) -> CompiledLibrary:
    """Link object file `obj` into the JIT as a new library (under COMPILE_LOCK). `imports`
    are the externals already resolved; the object's other undefined symbols are resolved
    through the allow-list here."""
    imports = dict(imports)
    undefined = symbols.undefined_symbols_elf(obj)
    if undefined is None:  # not ELF: import everything codegen might reference
        undefined = [n for n in sorted(LIBM_SYMBOLS | LIBC_SYMBOLS) if n not in imports]
        undefined = [n for n in undefined if symbols.dlsym(symbols.dll("m"), n) or symbols.dlsym(symbols.dll("c"), n)]
    for sym in undefined:
        if sym not in imports and sym not in symbols.LINKER_SYMBOLS:
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
    token = register(tracker)
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
        mod, tm = _optimized(module, cpu, features, opt, reloc, codemodel, fastmath)
        return tm.emit_object(mod)


def optimized_ir(module: ir.Module, *, cpu: str | None = None, features: str | None = None,
                 opt: int = 2, reloc: str = "pic", codemodel: str = "small") -> str:
    """The text of `module` optimized as :func:`emit_object` optimizes it."""
    with COMPILE_LOCK:
        mod, _tm = _optimized(module, cpu, features, opt, reloc, codemodel, False)
        return str(mod)


def _optimized(module: ir.Module, cpu, features, opt: int, reloc: str, codemodel: str,
               fastmath: bool) -> tuple[llvm.ModuleRef, llvm.TargetMachine]:
    """Parse and optimize `module` for the given target (under COMPILE_LOCK)."""
    triple, _c, _f = host_cpu()
    tm = _target_machine(opt, cpu=cpu, features=features, reloc=reloc, codemodel=codemodel)
    module.triple = triple
    module.data_layout = str(tm.target_data)
    text = str(module)
    if fastmath:
        text = _add_fastmath(text)
    mod = _parse(text, f"module {module.name!r}")
    _optimize(mod, tm, opt, module)
    return mod, tm


def undefined_symbols(obj: bytes) -> list[str]:
    """Undefined symbols of an ELF object (helper for tests and the AOT path)."""
    return symbols.undefined_symbols_elf(obj) or []
