"""Methods: `@pyad.jit_grad` on a method, used through instances, and bound methods passed
to `jit_grad` or the transforms.

    class Model:
        def __init__(self, w): self.w = w
        @pyad.jit_grad
        def loss(self, x): return np.sum((self.w * x) ** 2)

    m.loss(x); m.loss.grad(x)            # d loss / d x: argnums counts after self
    pyad.grad(m.loss)(x); pyad.jit_grad(m.loss).grad(x)

`self` is passed as a pytree of the instance's attributes that are numbers, arrays, None or
containers of them (`vars(self)`, or a dataclass's fields); other attributes (strings,
functions, other objects) are not visible to the compiled code. The attributes are read at
every call, so changing `m.w` is seen by the next call, and the names and types of the
attributes are part of the signature (instances of one class with the same attributes share
the compiled code). `self` is never differentiated: as with `jax.grad(m.loss)`, `argnums`
counts the explicit parameters, and "all" means all of them.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from .. import pytree
from .boundary import user_facing

#: argnums "all" of a bound method: every parameter but `self` (jit.py)
ALL_BUT_SELF = "all but self"


def self_tree(obj: Any) -> Any:
    """`obj` as the pytree passed for `self` (see the module docstring)."""
    if isinstance(obj, (tuple, list, dict)) or \
            (dataclasses.is_dataclass(obj) and not hasattr(obj, "__dict__")):
        return obj  # a container (a namedtuple with methods, a slotted dataclass)
    names = tuple(k for k, v in getattr(obj, "__dict__", {}).items() if _numeric_tree(v))
    return pytree.Record("object", type(obj), names, tuple(getattr(obj, k) for k in names))


def _numeric_tree(v: Any) -> bool:
    if pytree.as_node(v) is None:
        return isinstance(v, (bool, int, float, np.number, np.bool_)) or \
            (isinstance(v, np.ndarray) and v.dtype.kind in "biuf")
    try:
        return all(_numeric_tree(x) for x in pytree.tree_leaves(v))
    except TypeError:  # e.g. a dict whose keys do not sort
        return False


def shifted(argnums) -> Any:
    """`argnums` of the explicit parameters as argnums of the function with `self`."""
    if argnums == "all":
        return ALL_BUT_SELF
    if isinstance(argnums, int):
        return argnums + 1 if argnums >= 0 else argnums
    return tuple(shifted(k) for k in argnums)


class BoundJitGrad:
    """A compiled function bound to an instance (see the module docstring): the API of
    `JitGrad` with `self` passed first."""

    __slots__ = ("_jg", "_obj", "__weakref__")

    def __init__(self, jg, obj: Any) -> None:
        self._jg, self._obj = jg, obj

    @property
    def fn(self) -> Callable:
        return self._jg.fn

    @property
    def argnums(self):
        return self._jg.argnums

    @property
    def __name__(self) -> str:
        return self._jg.__name__

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self._jg.__doc__

    @user_facing
    def __call__(self, *args, **kwargs):
        return self._jg._dispatch_call(self_tree(self._obj), *args, **kwargs)

    @user_facing
    def grad(self, *args, **kwargs):
        return self._dispatch_grad(self._jg.argnums, False, *args, **kwargs)

    @user_facing
    def value_and_grad(self, *args, **kwargs):
        return self._dispatch_grad(self._jg.argnums, True, *args, **kwargs)

    @user_facing
    def pullback(self, *args, **kwargs):
        return self._pullback(self._jg.argnums, *args, **kwargs)

    def _dispatch_grad(self, argnums, with_value: bool, *args, **kwargs):
        return self._jg._grad_entry(shifted(argnums), with_value, self_tree(self._obj),
                                    *args, **kwargs)

    _grad_entry = _dispatch_grad  # what the transforms call (jit.py)

    def _pullback(self, argnums, *args, **kwargs):
        return self._jg._pullback(shifted(argnums), self_tree(self._obj), *args, **kwargs)

    def rebound(self, jg) -> "BoundJitGrad":
        """This binding for another compilation of the function (other options)."""
        return BoundJitGrad(jg, self._obj)

    def __repr__(self) -> str:
        return f"<pyad.jit_grad bound method {self._jg.__qualname__} of {self._obj!r}>"
