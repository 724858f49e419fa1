"""Compile a set of IR Funcs into one native library with their Python wrappers.

One call = one LLVM module = one optimizer run = one JIT library: the primal of a
signature, or all gradient kernels of a signature (fused value-and-grad, forward, backward).
Dropping every callable made here frees the code. The wrappers are native (pywrap.py), for
array signatures too; only when numpy's object layout could not be verified in this process
(:data:`NATIVE_ARRAYS` false) are array kernels called through cffi (python.cffi_call.PyWrapper).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from llvmlite import ir

from pyad.ir.nodes import Func, is_array
from pyad.timings import Timings, phase

from . import jit
from .entry import emit_entry, entry_name
from .python import wrap as pywrap, wrap_arrays as pywrap_arrays
from .lower.emit import ModuleState, emit_kernel
from .python.cffi_call import PyWrapper, RawKernel
from .python.kernel_facts import has_loop

#: Whether array kernels get native wrappers (tests switch it off to compare with the cffi path).
NATIVE_ARRAYS = pywrap_arrays.NUMPY_LAYOUT is not None


@dataclass(frozen=True)
class KernelSpec:
    name: str
    func: Func
    pack_saved: int | None = None    # trailing results stored into a new pullback struct
    unpack_saved: int | None = None  # leading params loaded from a pullback struct

    def kinds(self) -> tuple[list[str], list[str]]:
        f = self.func
        unpack = self.unpack_saved or 0
        params = (["ptr"] if self.unpack_saved is not None else []) \
            + [p.type for p in f.params[unpack:]]
        n = len(f.results) - (self.pack_saved or 0)
        outs = [r.type for r in f.results[:n]] + (["ptr"] if self.pack_saved is not None else [])
        return params, outs


@dataclass(frozen=True)
class WrapperSpec:
    name: str
    kernel: str
    result: Any              # wrap.py result spec over the kernel's outs (and shadows)
    doc: str = ""
    fallback: Callable | None = field(default=None, compare=False)
    pickle_as: tuple | None = field(default=None, compare=False)  # (obj, attr): see pywrap
    # array arguments the wrapper makes zero shadows for (the kernel's trailing array params)
    shadows: tuple[int, ...] = ()


@dataclass
class Unit:
    lib: jit.CompiledLibrary
    callables: dict[str, Callable]
    llvm_ir: str
    #: kernel name -> (its spec, the symbol of its uniform entry (codegen/entry.py), whether
    #: it calls the Python C API: then it must run with the GIL held)
    kernels: dict[str, tuple[KernelSpec, str, bool]] = field(default_factory=dict)

    def entry(self, kernel: str) -> int:
        """The address of kernel `kernel`'s uniform entry, valid while this unit is alive
        (called by pyad_batch_run)."""
        return self.lib.address(self.kernels[kernel][1])


def compile_unit(name: str, kernels: list[KernelSpec], wrappers: list[WrapperSpec], *,
                 fastmath: bool = False, boundscheck: bool = True,
                 pyname: str | None = None, object_cache=None,
                 max_depth: int | None = None, timings: Timings | None = None) -> Unit:
    """Compile `kernels` with native CPython `wrappers`, or, when a kernel takes or returns
    arrays and :data:`NATIVE_ARRAYS` is false, with `python.cffi_call.PyWrapper` callables of the same
    contract.

    The module text depends only on the arguments (its name is `name`, no counter), so
    `object_cache` (see `jit.compile_module`) can key it by content. A wrapper releases the
    GIL around its kernel call when the kernel contains a loop (pywrap `release_gil`): a
    straight-line kernel takes nanoseconds, less than the release costs. `max_depth` is the
    call-depth limit of natively called functions (`pyad.pipeline.max_call_depth()`),
    needed when the kernels call any. `timings` (pyad/timings.py) gets the time of the
    phases."""
    module = ir.Module(name=name)
    state = ModuleState(module, max_depth)
    fns = {}
    with phase(timings, "LLVM IR emission"):
        for k in kernels:
            fns[k.name] = (emit_kernel(state, k.func, f"{k.func.name}.kernel", fastmath=fastmath,
                                       boundscheck=boundscheck, pack_saved=k.pack_saved,
                                       unpack_saved=k.unpack_saved), k)
            emit_entry(module, fns[k.name][0], *k.kinds())  # for batches (pyad_batch_run)
    specs = {name: (k, entry_name(fn), pywrap.uses_python_api(fn))
             for name, (fn, k) in fns.items()}
    entries = [e for _k, e, _gil in specs.values()]
    if not NATIVE_ARRAYS and any(is_array(t) for k in kernels for t in sum(k.kinds(), [])):
        unit = _compile_pycall(name, module, fns, wrappers, fastmath, pyname, object_cache,
                               timings, entries)
        unit.kernels = specs
        return unit
    with phase(timings, "LLVM IR emission"):
        for fn, _k in fns.values():
            _called_by_wrappers_only(fn)
        for w in wrappers:
            fn, k = fns[w.kernel]
            params, outs = k.kinds()
            pywrap.emit_wrapper(module, fn, name=w.name,
                                params=params[:len(params) - len(w.shadows)], outs=outs,
                                result=w.result, doc=w.doc, pyname=pyname or w.name,
                                release_gil=pywrap.has_loop(fn), shadows=w.shadows)
    lib = jit.compile_module(module, entries, fastmath=fastmath, name=name,
                             object_cache=object_cache, timings=timings)
    with phase(timings, "wrapper build"):
        callables = {w.name: pywrap.make_callable(lib, w.name, w.fallback,
                                                  pickle_as=w.pickle_as) for w in wrappers}
    return Unit(lib, callables, lib.llvm_ir, specs)


def _called_by_wrappers_only(fn: ir.Function) -> None:
    """A kernel called only by this module's wrappers: internal (no symbol of its own), and
    not inlined when it holds a loop. LLVM would otherwise inline it into every wrapper that
    calls it (grad and value_and_grad share one) and keep the original too, optimizing and
    compiling its loops up to three times; a call costs a nanosecond next to a loop."""
    fn.linkage = "internal"
    if has_loop(fn):
        fn.attributes.add("noinline")


def _compile_pycall(name: str, module: ir.Module, fns: dict, wrappers: list[WrapperSpec],
                    fastmath: bool, pyname: str | None, object_cache,
                    timings: Timings | None, entries: list[str]) -> Unit:
    lib = jit.compile_module(module, [fn.name for fn, _ in fns.values()] + entries,
                             fastmath=fastmath,
                             name=name, object_cache=object_cache, timings=timings)
    with phase(timings, "wrapper build"):
        return Unit(lib, _pycall_wrappers(lib, fns, wrappers, pyname), lib.llvm_ir)


def _pycall_wrappers(lib, fns: dict, wrappers: list[WrapperSpec], pyname: str | None) -> dict:
    callables = {}
    for w in wrappers:
        fn, k = fns[w.kernel]
        params, outs = k.kinds()
        raw = RawKernel(lib.address(fn.name), params, outs)
        raw.owner = lib  # the code lives as long as the callable
        callables[w.name] = PyWrapper(raw, params[:len(params) - len(w.shadows)], w.shadows,
                                      w.result, name=pyname or w.name, fallback=w.fallback,
                                      pickle_as=w.pickle_as)
    return callables
