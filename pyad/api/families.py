"""The process's families of shared native wrappers (codegen/python/families.py) and their
entries in the on-disk cache.

A unit that is cached asks for its families with :data:`STORE`: a family is then loaded from
the cache directory (no LLVM), or compiled into a cache entry of its own, keyed by the family
(the kinds of the arguments and results) and the environment of every entry (cache.py). A
unit that is not cached (`cache=False`) compiles its families into the JIT and writes
nothing. Either way a family is compiled at most once per process.
"""
from __future__ import annotations

import functools

from .. import _runtime
from . import cache

__all__ = ["families", "STORE"]

_NAME = "wrappers"


@functools.cache  # the one set of families of this process
def families():
    from ..codegen.python.families import Families  # import-time: no LLVM
    return Families()


class _Store:
    """The on-disk cache as codegen/python/families.py's store."""

    @staticmethod
    def where() -> str:
        return cache._dir()

    @staticmethod
    def _key(key: tuple) -> str | None:
        return cache.key("wrapper family", repr(key)) if cache.usable() else None

    def load(self, key: tuple):
        k = self._key(key)
        entry = cache.lookup(k, _NAME, counted=False) if k is not None else None
        if entry is None:
            return None
        from ..codegen.library import load_shared  # import-time: ctypes only
        _runtime.dll()  # opened RTLD_GLOBAL: the shared object finds the runtime there
        try:
            return load_shared(entry.path, entry.exports, _NAME, entry.llvm_ir)
        except OSError:
            cache.reject(entry)
            return None

    def build(self, key: tuple, module, exports: list):
        from ..codegen import jit  # import-time: LLVM (a family is being compiled)
        from ..codegen.library import load_shared
        k = self._key(key)
        slot = cache.slot(k, _NAME, None, counted=False) if k is not None else None
        if slot is None:
            return jit.compile_module(module, exports, name=_NAME)
        try:
            llvm_ir, symbols = jit.build_shared(module, exports, slot.path)
            return load_shared(slot.commit(llvm_ir, symbols, {}), tuple(symbols), _NAME, llvm_ir)
        except OSError as e:  # the C compiler could not link the shared object
            cache.link_failed(e)
            return jit.compile_module(module, exports, name=_NAME)
        finally:
            slot.discard()


#: the store of a cached unit's families
STORE = _Store()
