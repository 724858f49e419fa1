"""Pickling of compiled functions (``pyad.api.jit.JitGrad``): by reference, never by code.

A decorated module-level function pickles as ``(module, qualified name)``; unpickling imports
the module and takes the ``JitGrad`` found there, which compiles on its first call in the new
process (or loads it from the on-disk cache).
This is how ``multiprocessing``, ``concurrent.futures.ProcessPoolExecutor``, Dask and Ray send
a function to a worker: the worker must be able to import the function's module.

When the module attribute is the undecorated function instead (``g = pyad.jit_grad(f)``), the
pickle holds that function (by reference, as pickle does for functions), the options and the
class (``pyad.api.jit.JitGrad``, by reference), and unpickling compiles it again. Anything else (a
lambda, a function defined inside another function) raises ``pickle.PicklingError``.

This module imports nothing of pyad: a compiled function is recognised by its
``__pyad_wrapped__`` attribute (the plain Python function).
"""
from __future__ import annotations

import importlib
import pickle
import sys
import threading
import weakref
from typing import Any

__all__ = ["reduce_jit_grad", "load_jit_grad", "rebuild_jit_grad"]


def _lookup(module: str, qualname: str) -> Any:
    mod = sys.modules.get(module)
    if mod is None:
        mod = importlib.import_module(module)
    obj = mod
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def reduce_jit_grad(f) -> tuple:
    """``__reduce__`` of a JitGrad."""
    module, qualname = f.__module__, f.__qualname__
    try:
        found = _lookup(module, qualname) if "<locals>" not in qualname else None
    except (ImportError, AttributeError):
        found = None
    if found is f:
        return load_jit_grad, (module, qualname)
    if found is f.fn:
        options = {"argnums": f.argnums, "fastmath": f.fastmath,
                   "boundscheck": f.boundscheck, "cache": f.cache,
                   "max_tape_bytes": f.max_tape_bytes}
        return rebuild_jit_grad, (type(f), f.fn, options)
    raise pickle.PicklingError(
        f"cannot pickle {f!r}: pyad compiled functions pickle by reference, and "
        f"{module}.{qualname} is not this function; decorate a function defined at the top "
        "level of an importable module")


def load_jit_grad(module: str, qualname: str):
    """Unpickle: the compiled function `module.qualname`."""
    try:
        obj = _lookup(module, qualname)
    except (ImportError, AttributeError) as e:
        raise pickle.UnpicklingError(f"cannot find the pyad function {module}.{qualname} in "
                                     f"this process: {e}") from e
    if getattr(obj, "__pyad_wrapped__", None) is None:
        raise pickle.UnpicklingError(f"{module}.{qualname} is not a pyad.jit_grad function in "
                                     f"this process (found {type(obj).__name__})")
    return obj


# Once per process for each function and options: a pool sends the function with every task,
# and each unpickled copy must be the same compiled object (weak keys: dies with the function).
_rebuilt: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_rebuilt_lock = threading.Lock()


def rebuild_jit_grad(cls: type, fn, options: dict):
    """Unpickle: ``cls(fn, **options)`` (``cls`` is ``pyad.api.jit.JitGrad``), made once per
    process for each function and options."""
    key = (cls, repr(sorted(options.items())))
    with _rebuilt_lock:
        per_fn = _rebuilt.setdefault(fn, {})
        f = per_fn.get(key)
        if f is None:
            f = per_fn[key] = cls(fn, **options)
    return f
