"""Compile a set of IR Funcs into one native library with their Python wrappers.

One call = one LLVM module = one optimizer run = one JIT library: the primal of a
signature, or all gradient kernels of a signature (fused value-and-grad, forward, backward).
Dropping every callable made here frees the code. The wrappers are native (pywrap.py), for
array signatures too; only when numpy's object layout could not be verified in this process
(`callables.NATIVE_ARRAYS` false) are array kernels called through cffi (python.cffi_call.PyWrapper).
"""
from __future__ import annotations

from llvmlite import ir

from pyad.ir.nodes import is_array
from pyad.timings import Timings, phase

from . import jit
from .library import load_shared
from .entry import emit_entry, entry_name
from .python import callables, families as pyfamilies, wrap as pywrap
from .lower.emit import ModuleState, emit_kernel
from .python.cffi_call import PyWrapper, RawKernel
from .python.kernel_facts import has_loop
from .unit import KernelInfo, KernelSpec, Unit, WrapperSpec, make_callables

__all__ = ["compile_unit", "KernelSpec", "WrapperSpec", "Unit", "KernelInfo"]

def compile_unit(name: str, kernels: list[KernelSpec], wrappers: list[WrapperSpec], *,
                 fastmath: bool = False, boundscheck: bool = True,
                 pyname: str | None = None, shared=None, families=None,
                 max_depth: int | None = None, timings: Timings | None = None) -> Unit:
    """Compile `kernels` with native CPython `wrappers`, or, when a kernel takes or returns
    arrays and `callables.NATIVE_ARRAYS` is false, with `python.cffi_call.PyWrapper` callables of the same
    contract.

    With `shared` (the on-disk cache's slot for this unit: `.path`, where to link, and
    `.commit(llvm_ir, exports, kernels)`, which stores the file and returns the path to load),
    the unit is linked into a shared object (`jit.build_shared`) and loaded from it with the
    dynamic loader instead of the JIT. Units with arrays but no native wrappers ignore it
    (the slot is then never committed). A wrapper releases the
    GIL around its kernel call when the kernel contains a loop (pywrap `release_gil`): a
    straight-line kernel takes nanoseconds, less than the release costs. `max_depth` is the
    call-depth limit of natively called functions (`pyad.pipeline.max_call_depth()`),
    needed when the kernels call any. `timings` (pyad/timings.py) gets the time of the
    phases. With `families` (python/families.py `Families`), the wrappers of a kernel with a
    loop are those of its family, compiled once per process: the unit exports the kernel
    instead of compiling wrappers of its own."""
    module = ir.Module(name=name)
    state = ModuleState(module, max_depth)
    fns = {}
    with phase(timings, "LLVM IR emission"):
        for k in kernels:
            fns[k.name] = (emit_kernel(state, k.func, f"{k.func.name}.kernel", fastmath=fastmath,
                                       boundscheck=boundscheck, pack_saved=k.pack_saved,
                                       unpack_saved=k.unpack_saved), k)
            emit_entry(module, fns[k.name][0], *k.kinds())  # for batches (pyad_batch_run)
    by_family = _family_kernels(fns, wrappers, families)
    infos = {name: KernelInfo(*map(tuple, k.kinds()), entry_name(fn), pywrap.uses_python_api(fn),
                              fn.name if name in by_family else "")
             for name, (fn, k) in fns.items()}
    entries = [k.entry for k in infos.values()] + [infos[name].shared for name in by_family]
    if not callables.NATIVE_ARRAYS and any(is_array(t) for k in kernels for t in sum(k.kinds(), [])):
        unit = _compile_pycall(name, module, fns, wrappers, fastmath, pyname, timings, entries)
        unit.kernels = infos
        return unit
    with phase(timings, "LLVM IR emission"):
        for kname, (fn, _k) in fns.items():
            _called_by_wrappers_only(fn, exported=kname in by_family)
        # the wrappers of a kernel with a loop share one body (wrap.py, emit_wrappers): half
        # the wrapper code to optimize; a loop-free kernel is inlined into each of its own
        # (a shared body costs its calls ~10 ns, more than they take otherwise)
        groups: dict[tuple, list[WrapperSpec]] = {}
        for k, w in enumerate(wrappers):
            if w.kernel in by_family:
                continue  # its family's wrappers call it (python/families.py)
            one_body = pywrap.has_loop(fns[w.kernel][0])
            groups.setdefault((w.kernel, w.shadows, w.retry is not None, one_body or k),
                              []).append(w)
        for (kernel, shadows, retry, _), ws in groups.items():
            fn, k = fns[kernel]
            params, outs = k.kinds()
            pywrap.emit_wrappers(module, fn, [(w.name, w.result, w.doc) for w in ws],
                                 params=params[:len(params) - len(shadows)], outs=outs,
                                 pyname=pyname, release_gil=pywrap.has_loop(fn),
                                 shadows=shadows, retry=retry)
    if shared is None:
        lib = jit.compile_module(module, entries, fastmath=fastmath, name=name, timings=timings)
    else:
        llvm_ir, exports = jit.build_shared(module, entries, shared.path, fastmath=fastmath,
                                            timings=timings)
        with phase(timings, "cache"):
            path = shared.commit(llvm_ir, exports, infos)
        with phase(timings, "linking"):
            lib = load_shared(path, tuple(exports), name, llvm_ir)
    with phase(timings, "wrapper build"):
        return Unit(lib, make_callables(lib, wrappers, infos, families, pyname), infos)


def _family_kernels(fns: dict, wrappers: list[WrapperSpec], families) -> set[str]:
    """The kernels whose wrappers are their family's (python/families.py): every kernel with
    a loop, when `families` is given and this process can share wrappers."""
    if families is None or not pyfamilies.usable():
        return set()
    return {w.kernel for w in wrappers if pywrap.has_loop(fns[w.kernel][0])}


def _called_by_wrappers_only(fn: ir.Function, exported: bool = False) -> None:
    """A kernel called only by this module's wrappers: internal (no symbol of its own), and
    not inlined when it holds a loop. LLVM would otherwise inline it into every wrapper that
    calls it (grad and value_and_grad share one) and keep the original too, optimizing and
    compiling its loops up to three times; a call costs a nanosecond next to a loop.
    `exported`: the wrappers of its family call it by address (it keeps its symbol)."""
    if not exported:
        fn.linkage = "internal"
    if has_loop(fn):
        fn.attributes.add("noinline")


def _compile_pycall(name: str, module: ir.Module, fns: dict, wrappers: list[WrapperSpec],
                    fastmath: bool, pyname: str | None, timings: Timings | None,
                    entries: list[str]) -> Unit:
    lib = jit.compile_module(module, [fn.name for fn, _ in fns.values()] + entries,
                             fastmath=fastmath, name=name, timings=timings)
    with phase(timings, "wrapper build"):
        return Unit(lib, _pycall_wrappers(lib, fns, wrappers, pyname))


def _pycall_wrappers(lib, fns: dict, wrappers: list[WrapperSpec], pyname: str | None) -> dict:
    callables = {}
    for w in wrappers:
        fn, k = fns[w.kernel]
        params, outs = k.kinds()
        raw = RawKernel(lib.address(fn.name), params, outs)
        raw.owner = lib  # the code lives as long as the callable
        callables[w.name] = PyWrapper(raw, params[:len(params) - len(w.shadows)], w.shadows,
                                      w.result, name=pyname or w.name, fallback=w.fallback,
                                      pickle_as=w.pickle_as, retry=w.retry)
    return callables
