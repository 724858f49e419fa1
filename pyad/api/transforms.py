"""JAX-style function transformations over `jit_grad`: `grad`, `value_and_grad`, `vjp`.

    df = pyad.grad(f)                  # d f / d (first argument), like jax.grad
    val, g = pyad.value_and_grad(f, argnums=(0, 1))(x, y)
    (val, aux), g = pyad.value_and_grad(f, has_aux=True)(x)
    y, f_vjp = pyad.vjp(f, x, y);  f_vjp(ct)  -> one cotangent per argument

`f` is a plain Python function (compiled on first use, once per function) or a `jit_grad`
object (its options are used; `argnums` here overrides its own). As in JAX, `argnums`
defaults to 0; an int gives the gradient bare, a tuple (or "all") gives a tuple. Gradients
have the structure of their argument (a dict for a dict, arrays of the argument's shape);
of ints and bools they are `None`. The returned functions take keyword arguments as `f` does.
"""
from __future__ import annotations

import functools
import inspect
import weakref
from typing import Any, Callable

import numpy as np

from .. import pytree
from .boundary import user_facing
from .jit import JitGrad, check_argnums, gradient_entry, jit_grad
from .methods import BoundJitGrad

#: set on the functions grad and value_and_grad return: (compiled function, its kind,
#: argnums), which pyad.vmap maps natively (vmap.py)
TRANSFORM_ATTR = "__pyad_transform__"

_compiled_for: "weakref.WeakKeyDictionary[Callable, JitGrad]" = weakref.WeakKeyDictionary()


def _compiled(f: Callable) -> JitGrad | BoundJitGrad:
    if isinstance(f, (JitGrad, BoundJitGrad)):
        return f
    if inspect.ismethod(f):  # compiled once for the function, bound to this instance
        return BoundJitGrad(_compiled(f.__func__), f.__self__)
    if not callable(f):
        raise TypeError(f"pyad.jit_grad expects a Python function, got {type(f).__name__}")
    jg = _compiled_for.get(f)
    if jg is None:
        jg = _compiled_for[f] = jit_grad(f)
    return jg


def grad(f: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """The function computing the gradient of `f` (a single float result) with respect to
    the arguments `argnums`. With `has_aux=True`, `f` returns `(value, aux)` and the result
    is `(gradient of value, aux)` (JAX's)."""
    if has_aux:
        vg = value_and_grad(f, argnums, has_aux=True)

        @functools.wraps(vg)
        @user_facing
        def grad_aux(*args, **kwargs):
            (_, aux), g = vg(*args, **kwargs)
            return g, aux
        _mark(grad_aux, getattr(vg, TRANSFORM_ATTR)[0], "grad with aux", argnums)
        return grad_aux
    argnums = check_argnums(argnums)
    jg = _compiled(f)

    gradient = functools.wraps(jg.fn)(gradient_entry(jg, argnums, False))
    _mark(gradient, jg, "grad", argnums)
    return gradient


def value_and_grad(f: Callable, argnums: int | tuple[int, ...] = 0,
                   has_aux: bool = False) -> Callable:
    """The function computing `(f(*args), gradient)`. With `has_aux=True`, `f` returns
    `(value, aux)` and the result is `((value, aux), gradient of value)`; aux may hold
    numbers, arrays and tuples and receives no gradient."""
    argnums = check_argnums(argnums)
    jg = _compiled(f)
    if not has_aux:
        vg = functools.wraps(jg.fn)(gradient_entry(jg, argnums, True))
        _mark(vg, jg, "value_and_grad", argnums)
        return vg

    @functools.wraps(jg.fn)
    @user_facing
    def vg_aux(*args, **kwargs):
        out, back = jg._pullback(argnums, *args, **kwargs)
        if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], float)):
            raise TypeError(f"value_and_grad(has_aux=True): {jg.__name__} must return a pair "
                            "(float value, aux)")
        value, aux = out
        return (value, aux), back((1.0, _zeros_like(aux)))
    _mark(vg_aux, jg, "value_and_grad with aux", argnums)
    return vg_aux


def _mark(fn: Callable, jg, kind: str, argnums) -> None:
    """What pyad.vmap maps when given `fn`: (compiled function or bound method, kind,
    argnums)."""
    setattr(fn, TRANSFORM_ATTR, (jg, kind, argnums))


@user_facing
def vjp(f: Callable, *args, **kwargs) -> tuple[Any, Callable]:
    """`(f(*args, **kwargs), f_vjp)`: `f_vjp(ct)` maps a cotangent with the structure of the
    value to a tuple with one cotangent per parameter of `f` (argnums="all": None for ints
    and bools; keyword arguments are parameters too)."""
    y, back = _compiled(f)._pullback("all", *args, **kwargs)
    return y, back


def _zeros_like(v: Any) -> Any:
    def zero(x: Any) -> Any:
        if isinstance(x, np.ndarray):
            return np.zeros(x.shape)
        return 0.0 if isinstance(x, float) else x
    return pytree.user_tree_map(zero, v)
