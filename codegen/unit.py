"""What a compiled unit is, without LLVM: the kernels and wrappers it was asked for, and the
:class:`Unit` it became (a library, its Python callables, its kernels' uniform entries).

build.py compiles a unit (llvmlite); :func:`load_unit` makes the same Unit from a shared
object of the on-disk cache with the dynamic loader alone, from the :class:`KernelInfo` it
recorded at compile time (no IR is needed to call it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from .library import CodeOwner, CompiledLibrary, load_shared
from .python.callables import make_callable

if TYPE_CHECKING:
    from pyad.ir.nodes import Func


class KernelSpec:
    """A kernel to compile: `func` (IR) called `name`; `pack_saved`: its trailing results are
    stored into a new pullback struct; `unpack_saved`: its leading params are loaded from one.
    (Plain classes here, not dataclasses: a cache hit imports this module, and making a
    dataclass costs about a millisecond.)"""
    __slots__ = ("name", "func", "pack_saved", "unpack_saved")

    def __init__(self, name: str, func: Func, pack_saved: int | None = None,
                 unpack_saved: int | None = None) -> None:
        self.name, self.func = name, func
        self.pack_saved, self.unpack_saved = pack_saved, unpack_saved

    def kinds(self) -> tuple[list[str], list[str]]:
        f = self.func
        unpack = self.unpack_saved or 0
        params = (["ptr"] if self.unpack_saved is not None else []) \
            + [p.type for p in f.params[unpack:]]
        n = len(f.results) - (self.pack_saved or 0)
        outs = [r.type for r in f.results[:n]] + (["ptr"] if self.pack_saved is not None else [])
        return params, outs


class Shadow:
    """Result spec: the `index`-th shadow array of the call (see python/wrap.emit_wrapper
    `shadows`), returned as is (a new reference per occurrence)."""
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __eq__(self, other) -> bool:
        return isinstance(other, Shadow) and other.index == self.index

    def __hash__(self) -> int:
        return hash(("Shadow", self.index))

    def __repr__(self) -> str:
        return f"Shadow({self.index})"


class WrapperSpec:
    """A native CPython wrapper `name` of kernel `kernel`: `result` is the wrap.py result spec
    over the kernel's outs (and shadows), `doc` its docstring, `fallback` what it calls with
    arguments it cannot take, `pickle_as` (obj, attr) how it pickles (library.CodeOwner),
    `shadows` the array arguments it makes zero shadows for (the kernel's trailing array
    params), `retry` what it calls with its arguments when the kernel asks for strong zeros
    (pyad/ad/gradient.py, `fused_parts`; None: the kernel never does)."""
    __slots__ = ("name", "kernel", "result", "doc", "fallback", "pickle_as", "shadows",
                 "retry")

    def __init__(self, name: str, kernel: str, result: Any, doc: str = "",
                 fallback: Callable | None = None, pickle_as: tuple | None = None,
                 shadows: tuple[int, ...] = (), retry: Callable | None = None) -> None:
        self.name, self.kernel, self.result, self.doc = name, kernel, result, doc
        self.fallback, self.pickle_as, self.shadows = fallback, pickle_as, shadows
        self.retry = retry


class KernelInfo(NamedTuple):
    """A compiled kernel as its callers see it: the kinds of its parameters and outs
    (`KernelSpec.kinds`), the symbol of its uniform entry (entry.py), whether it calls the
    Python C API (then it must run with the GIL held) and, when its wrappers are shared by
    every kernel of its family (python/families.py), its own exported symbol ("" when it has
    wrappers of its own). Stored in cache entries."""
    params: tuple[str, ...]
    outs: tuple[str, ...]
    entry: str
    needs_gil: bool
    shared: str = ""


class Unit:
    """A compiled unit: its library, its wrappers as Python callables, its kernels (name ->
    KernelInfo: the batch runner calls their entries)."""
    __slots__ = ("lib", "callables", "kernels")

    def __init__(self, lib: CompiledLibrary, callables: dict[str, Callable],
                 kernels: dict[str, KernelInfo] | None = None) -> None:
        self.lib, self.callables = lib, callables
        self.kernels = {} if kernels is None else kernels

    @property
    def llvm_ir(self) -> str:
        """The optimized IR of the unit, then that of the shared wrappers its callables call
        (python/families.py), if any."""
        text = self.lib.llvm_ir
        shared = {}
        for c in self.callables.values():
            owner = getattr(c, "__self__", None)
            if isinstance(owner, CodeOwner) and owner.wrappers is not None:
                shared[id(owner.wrappers)] = owner.wrappers
        for lib in shared.values():
            text += ("\n; the native wrappers shared by the kernels of this signature "
                     "(pyad/codegen/python/families.py)\n" + lib.llvm_ir)
        return text

    def entry(self, kernel: str) -> int:
        """The address of kernel `kernel`'s uniform entry, valid while this unit is alive
        (called by pyad_batch_run)."""
        return self.lib.address(self.kernels[kernel].entry)


def body_groups(wrappers: list[WrapperSpec]) -> dict[tuple, list[WrapperSpec]]:
    """The wrappers of one kernel with the same shadows and retry, in order: (kernel,
    shadows, retry) -> specs. Such wrappers may share one body (python/wrap.py
    `emit_wrappers`), and one family of shared wrappers (python/families.py)."""
    groups: dict[tuple, list[WrapperSpec]] = {}
    for w in wrappers:
        groups.setdefault((w.kernel, w.shadows, w.retry is not None), []).append(w)
    return groups


def family_key(params: tuple, outs: tuple, shadows: tuple, retry: bool, release_gil: bool,
               results: tuple) -> tuple:
    """The key of a family of shared wrappers (python/families.py): the kinds of the
    kernel's parameters (the wrapper's arguments, then the shadows) and outs, the shadows,
    whether the wrappers retry with strong zeros and release the GIL, and ``((wrapper name,
    result spec), ...)``."""
    return (tuple(params), tuple(outs), tuple(shadows), bool(retry), bool(release_gil),
            tuple(results))


def family_of(info: KernelInfo, specs: list[WrapperSpec]) -> tuple:
    """The family key of the wrappers `specs` of kernel `info`."""
    return family_key(info.params, info.outs, specs[0].shadows, specs[0].retry is not None,
                      not info.needs_gil, tuple((w.name, w.result) for w in specs))


def make_callables(lib: CompiledLibrary, wrappers: list[WrapperSpec],
                   kernels: dict[str, KernelInfo] | None = None, families=None,
                   pyname: str | None = None) -> dict[str, Callable]:
    """The native wrappers of `lib` as Python callables (codegen/python/callables.py): its
    own, or those of the families (python/families.py `Families`) of kernels it exports for
    shared wrappers (`kernels`), named `pyname`."""
    out: dict[str, Callable] = {}
    for (kernel, _shadows, _retry), specs in body_groups(wrappers).items():
        info = (kernels or {}).get(kernel)
        if info is not None and info.shared and families is not None:
            out.update(families.callables(family_of(info, specs), lib, info.shared, specs,
                                          pyname or specs[0].name))
            continue
        out.update({w.name: make_callable(lib, w.name, w.fallback, pickle_as=w.pickle_as,
                                          retry=w.retry) for w in specs})
    return {w.name: out[w.name] for w in wrappers}


def load_unit(path: str, name: str, wrappers: list[WrapperSpec], kernels: dict[str, KernelInfo],
              exports: tuple[str, ...], llvm_ir, families=None, pyname: str | None = None) -> Unit:
    """The unit compiled earlier into the shared object at `path` (OSError if it cannot be
    loaded or lacks one of `exports`). `llvm_ir`: its optimized IR, or a function reading it.
    `families` and `pyname`: see :func:`make_callables`."""
    lib = load_shared(path, exports, name, llvm_ir)
    return Unit(lib, make_callables(lib, wrappers, kernels, families, pyname), kernels)
