"""Native wrappers shared by every kernel of one signature: compiled once per process (or
loaded from the on-disk cache), not once per function.

A wrapper checks and converts the arguments, makes the shadows, calls the kernel and builds
the result (wrap.py). Nothing in it depends on the function but the kernel it calls, its
name (in messages) and its docstring. A kernel with a loop is not inlined into its wrapper
anyway, so its wrappers call it through the address their ``self`` holds (the CodeOwner's
kernel item, python/pyobj.py `kernel_pointer`): one compiled wrapper serves every kernel of
the same *family* -- the same argument and output kinds, shadows, results, strong-zero
retry and GIL release -- and a function's unit compiles its kernels alone. Wrappers were 40%
of the LLVM IR pyad emitted for the test corpus (390 functions, tests/corpus_*.py); with
shared ones compiling the corpus takes 18% less time once its families exist, 11% less in
a fresh process (docs/processes.md).

A kernel without a loop keeps its own wrappers, with the kernel inlined: a call through a
pointer costs a straight-line kernel more than it takes.

:class:`Families` holds the compiled families of a process (a cache: families are never
dropped; there are few). A unit stored in the on-disk cache asks with a store (the API's,
pyad/api/families.py), which is asked first and given what is compiled, so a later process
loads the family without LLVM.
"""
from __future__ import annotations

import threading

from .callables import LAYOUT, make_shared_callable

__all__ = ["Families", "Bound", "emit_family", "usable"]


def usable() -> bool:
    """Whether wrappers can be shared in this process (the capsule's pointer is read inline)."""
    return LAYOUT["capsule_pointer"] is not None


def emit_family(key: tuple):
    """The LLVM module of family `key` (unit.py `family_key`) and its exported wrapper
    symbols."""
    from llvmlite import ir  # import-time: llvmlite (~100 ms); a family loaded from disk needs none

    from . import wrap  # import-time: llvmlite, as above
    params, outs, shadows, retry, release_gil, results = key
    module = ir.Module(name="wrappers")
    n_args = len(params) - len(shadows)
    wrap.emit_wrappers(module, wrap.kernel_type(params, len(outs)), [(name, result, "") for name, result in results],
                       params=params[:n_args], outs=outs, release_gil=release_gil,
                       shadows=shadows, retry=retry)
    return module, [name for name, _ in results]


class Families:
    """The wrapper families of a process: each compiled once (or loaded from a `store`), kept
    for the life of the process. A `store` (the API's on-disk cache, pyad/api/families.py)
    has ``where() -> str`` (its directory), ``load(key) -> CompiledLibrary | None`` and
    ``build(key, module, exports) -> CompiledLibrary`` (which compiles it into a shared
    object it keeps). A family is stored in every directory a unit that needs it is cached
    in (also when it was first compiled into the JIT), so that a later process using that
    directory loads it without LLVM."""

    def __init__(self) -> None:
        self._libs: dict[tuple, tuple] = {}  # key -> (library, the stores' dirs holding it)
        self._lock = threading.Lock()

    def library(self, key: tuple, store=None):
        """The compiled wrappers of family `key`."""
        where = store.where() if store is not None else None
        got = self._libs.get(key)
        if got is not None and (where is None or where in got[1]):
            return got[0]
        with self._lock:
            lib, dirs = self._libs.get(key, (None, frozenset()))
            if lib is None or where is not None and where not in dirs:
                found = store.load(key) if store is not None else None
                if found is None:
                    module, exports = emit_family(key)
                    if store is not None:
                        found = store.build(key, module, exports)
                    else:
                        from .. import jit  # import-time: LLVM only when compiling
                        found = jit.compile_module(module, exports, name="wrappers")
                lib = lib or found
                dirs = dirs | {where} if where is not None else dirs
                self._libs[key] = (lib, dirs)
            return lib

    def bound(self, store=None) -> "Bound":
        """These families, with `store` for the families a unit needs."""
        return Bound(self, store)


class Bound:
    """:class:`Families` with the store of one unit (what build.py and unit.py are given)."""

    def __init__(self, families: Families, store) -> None:
        self.families, self.store = families, store

    def callables(self, key: tuple, lib, kernel: str, specs: list, pyname: str) -> dict:
        """{name: callable} of the wrappers `specs` (unit.WrapperSpec, in the family's order)
        of kernel `kernel` (its exported symbol) of `lib`."""
        wrappers = self.families.library(key, self.store)
        return {w.name: make_shared_callable(wrappers, w.name, lib, kernel, pyname, w.doc,
                                             w.fallback, pickle_as=w.pickle_as, retry=w.retry)
                for w in specs}
