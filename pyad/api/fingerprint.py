"""What the compiled code of a function can depend on, as one digest: the key of the on-disk
cache (cache.py), computed without reading or parsing any source.

The frontend compiles a function from its text only after proving that the text compiles to
the function's own code object (frontend/recover.py), so the code object stands for the text:
its bytecode, constants, names, file, lines and columns. Everything else the compiler reads
comes through the function's names, and is digested by value:

- for each name the code (or a nested lambda, comprehension or function) mentions, the global
  or builtin it is bound to now, or "absent"; attribute names are included (`cfg.N` mentions
  `cfg` and `N`), which is how the attributes a module supplies are digested;
- closure cells and default values;
- numbers, strings, None, NumPy arrays (dtype, shape and contents) and scalars, tuples, lists,
  dicts, sets;
- a function called from it: the same digest, recursively (a cycle is written as a back
  reference); a `jit_grad` or `custom_vjp` function: its Python function(s) and options;
- a module: its name; for a module outside numpy, the standard library and pyad, also the
  attributes it has among the mentioned names;
- a class: its name; a class of the user's: its fields (dataclass, namedtuple) and everything
  in its namespace (methods by their digest).

Anything else (an object of unknown kind) makes the function :class:`Uncacheable`: it is
compiled as usual, and not cached. The versions of Python, NumPy and pyad are part of the key
(cache.py), so the modules of those are digested by name.
"""
from __future__ import annotations

import builtins
import collections
import dataclasses
import types
from typing import Any

import numpy as np

from .. import pytree

__all__ = ["Uncacheable", "digest", "sha256"]

try:  # CPython's own SHA-256: importing hashlib loads OpenSSL (~4 ms at `import pyad`)
    from _sha256 import sha256  # Python <= 3.11
except ImportError:  # pragma: no cover
    try:
        from _sha2 import sha256  # Python >= 3.12
    except ImportError:
        from hashlib import sha256

#: Modules whose contents are fixed by the versions in the key (digested by name).
_FIXED = frozenset({"numpy", "math", "cmath", "builtins", "pyad", "operator", "functools",
                    "itertools", "collections", "dataclasses", "typing", "abc", "enum"})
_SCALARS = (type(None), bool, int, float, complex, str, bytes, type(NotImplemented),
            type(Ellipsis))
#: class namespace entries that say nothing the compiler reads
_CLASS_NOISE = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                          "__annotations__", "__dataclass_fields__", "__dataclass_params__",
                          "__match_args__", "__slots__", "__firstlineno__",
                          "__static_attributes__", "__orig_bases__", "__parameters__"})


#: a namedtuple's field accessors (their positions are in `_fields`, digested)
_FIELD_GETTER = type(collections.namedtuple("_Probe", "x").x)


class Uncacheable(Exception):
    """The function reaches an object whose meaning to the compiler cannot be digested."""


def digest(*parts: Any) -> str:
    """The SHA-256 (hex) of `parts` digested as described in the module docstring (a
    function, a tree structure, signature strings, options)."""
    h = _Digest()
    for p in parts:
        h.value(p)
    return h.sha.hexdigest()


def _fixed(module_name: str | None) -> bool:
    return bool(module_name) and module_name.split(".")[0] in _FIXED


def _names(code: types.CodeType) -> set[str]:
    """The names `code` and the code nested in it mention (globals, attributes, builtins)."""
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


class _Digest:
    def __init__(self) -> None:
        self.sha = sha256()
        self.seen: dict[int, int] = {}  # id of a function or class -> its number
        self.keep: list = []            # what `seen` refers to stays alive meanwhile

    def put(self, *tokens: Any) -> None:
        for t in tokens:
            self.sha.update(repr(t).encode())
            self.sha.update(b"\x00")

    def once(self, obj: Any) -> bool:
        """Whether `obj` is digested for the first time (else a back reference is written)."""
        k = self.seen.get(id(obj))
        if k is not None:
            self.put("ref", k)
            return False
        self.seen[id(obj)] = len(self.seen)
        self.keep.append(obj)
        return True

    # ------------------------------------------------------------------------- values
    def value(self, v: Any, names: frozenset = frozenset()) -> None:
        t = type(v)
        if t in _SCALARS:
            self.put(t.__name__, v)
        elif t in (tuple, list):
            self.put(t.__name__, len(v))
            for x in v:
                self.value(x, names)
        elif t is dict:
            self.put("dict", len(v))
            for k, x in v.items():
                self.value(k)
                self.value(x, names)
        elif t in (set, frozenset):
            self.put(t.__name__, sorted(map(repr, v)) if all(type(x) in _SCALARS for x in v)
                     else self._refuse(v))
        elif isinstance(v, np.ndarray):
            a = np.ascontiguousarray(v)
            self.put("ndarray", a.dtype.str, a.shape, sha256(a.tobytes()).hexdigest())
        elif isinstance(v, (np.generic, np.dtype)):
            self.put(t.__name__, repr(v))
        elif isinstance(v, pytree.Record):
            self.put("record", v.kind, v.fields)
            self.value(v.cls)
            self.value(v.children)
        elif v is pytree.LEAF:
            self.put("leaf")
        elif isinstance(v, types.ModuleType):
            self.module(v, names)
        elif isinstance(v, types.FunctionType):
            self.function(v)
        elif isinstance(v, types.CodeType):
            self.code(v)
        elif isinstance(v, type):
            self.cls(v)
        elif hasattr(v, "__pyad_wrapped__"):  # a jit_grad function (api/jit.py)
            self.put("jit_grad", getattr(v, "fastmath", None), getattr(v, "boundscheck", None))
            self.value(v.__pyad_wrapped__)
        elif type(v).__name__ == "CustomVJP" and _fixed(type(v).__module__):
            self.put("custom_vjp")
            for f in (v.fn, v.fwd, v.bwd):
                self.value(f)
        elif isinstance(v, (staticmethod, classmethod)):
            self.put(t.__name__)
            self.value(v.__func__)
        elif isinstance(v, property):
            self.put("property")
            for f in (v.fget, v.fset, v.fdel):
                self.value(f)
        elif dataclasses.is_dataclass(v):
            self.put("dataclass instance")
            self.cls(t)
            for f in dataclasses.fields(v):
                self.value(getattr(v, f.name), names)
        elif _fixed(t.__module__) and hasattr(v, "__name__"):
            # a builtin function, a ufunc, a numpy dispatcher: fixed by the versions
            self.put("named", t.__module__, t.__qualname__, getattr(v, "__module__", None),
                     getattr(v, "__qualname__", v.__name__))
        elif isinstance(v, tuple) and hasattr(t, "_fields"):  # a namedtuple instance
            self.cls(t)
            self.value(tuple(v), names)
        else:
            self._refuse(v)

    def _refuse(self, v: Any):
        raise Uncacheable(f"it reads {type(v).__module__}.{type(v).__qualname__} objects")

    # ------------------------------------------------------------------------- kinds
    def code(self, code: types.CodeType) -> None:
        self.put("code", code.co_name, code.co_qualname, code.co_filename, code.co_firstlineno,
                 code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
                 code.co_flags, code.co_code, code.co_names, code.co_varnames,
                 code.co_freevars, code.co_cellvars, code.co_linetable,
                 code.co_exceptiontable)
        for c in code.co_consts:
            self.value(c)

    def function(self, fn: types.FunctionType) -> None:
        if _fixed(fn.__module__):
            self.put("function", fn.__module__, fn.__qualname__)
            return
        if not self.once(fn):
            return
        code = fn.__code__
        self.put("function")
        self.code(code)
        self.value(fn.__defaults__)
        self.value(fn.__kwdefaults__)
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell (a name assigned later)
                self.put(name, "empty")
                continue
            self.put(name)
            self.value(contents)
        names = frozenset(_names(code))
        space, spare = fn.__globals__, vars(builtins)
        for name in sorted(names):
            if name in space:
                self.put("global", name)
                self.value(space[name], names)
            elif name in spare:
                self.put("builtin", name)
                self.value(spare[name], names)
            else:
                self.put("absent", name)

    def module(self, mod: types.ModuleType, names: frozenset) -> None:
        self.put("module", mod.__name__)
        if _fixed(mod.__name__) or not self.once(mod):
            return
        for name in sorted(names):
            if hasattr(mod, name):
                self.put("attribute", name)
                self.value(getattr(mod, name), names)

    def cls(self, c: type) -> None:
        self.put("class", c.__module__, c.__qualname__)
        if _fixed(c.__module__) or not self.once(c):
            return
        for base in c.__bases__:
            self.value(base)
        if dataclasses.is_dataclass(c):
            for f in dataclasses.fields(c):
                self.put("field", f.name)
                self.value(f.default if f.default is not dataclasses.MISSING else None)
                self.value(f.default_factory if f.default_factory is not dataclasses.MISSING
                           else None)
        for name, v in vars(c).items():
            if name in _CLASS_NOISE or isinstance(v, (types.GetSetDescriptorType, _FIELD_GETTER)):
                continue
            self.put("member", name)
            self.value(v)
