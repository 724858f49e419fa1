"""What a compiled unit is, without LLVM: the kernels and wrappers it was asked for, and the
:class:`Unit` it became (a library, its Python callables, its kernels' uniform entries).

build.py compiles a unit (llvmlite); :func:`load_unit` makes the same Unit from a shared
object of the on-disk cache with the dynamic loader alone, from the :class:`KernelInfo` it
recorded at compile time (no IR is needed to call it).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from pyad.ir.nodes import Func

from .library import CompiledLibrary, load_shared
from .python.callables import make_callable


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
class Shadow:
    """Result spec: the `index`-th shadow array of the call (see python/wrap.emit_wrapper
    `shadows`), returned as is (a new reference per occurrence)."""
    index: int


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


@dataclass(frozen=True)
class KernelInfo:
    """A compiled kernel as its callers see it: the kinds of its parameters and outs
    (`KernelSpec.kinds`), the symbol of its uniform entry (entry.py) and whether it calls the
    Python C API (then it must run with the GIL held)."""
    params: tuple[str, ...]
    outs: tuple[str, ...]
    entry: str
    needs_gil: bool


@dataclass
class Unit:
    lib: CompiledLibrary
    callables: dict[str, Callable]
    #: kernel name -> its KernelInfo (the batch runner calls the entries)
    kernels: dict[str, KernelInfo] = field(default_factory=dict)
    #: loaded from a shared object (the on-disk cache), not from the JIT
    shared: bool = False

    @property
    def llvm_ir(self) -> str:
        return self.lib.llvm_ir

    def entry(self, kernel: str) -> int:
        """The address of kernel `kernel`'s uniform entry, valid while this unit is alive
        (called by pyad_batch_run)."""
        return self.lib.address(self.kernels[kernel].entry)


def make_callables(lib: CompiledLibrary, wrappers: list[WrapperSpec]) -> dict[str, Callable]:
    """The native wrappers of `lib` as Python callables (codegen/python/callables.py)."""
    return {w.name: make_callable(lib, w.name, w.fallback, pickle_as=w.pickle_as)
            for w in wrappers}


def load_unit(path: str, name: str, wrappers: list[WrapperSpec], kernels: dict[str, KernelInfo],
              exports: tuple[str, ...], llvm_ir) -> Unit:
    """The unit compiled earlier into the shared object at `path` (OSError if it cannot be
    loaded or lacks one of `exports`). `llvm_ir`: its optimized IR, or a function reading it."""
    lib = load_shared(path, exports, name, llvm_ir)
    return Unit(lib, make_callables(lib, wrappers), kernels, shared=True)
