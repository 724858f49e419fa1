"""The compiled function's own signature: defaults (floats, ints, bools, None meaning "not
given"), keyword arguments, keyword-only parameters and `*args`, through the primal, grad,
value_and_grad, pullback and the pyad.grad/value_and_grad/vjp transforms; JAX's argnums
convention; and the calls refused with Python's own TypeErrors."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad
from tests.gradients import assert_same_structure_leaves, check_against_python


def scaled(x, scale=2.0, n=3, flip=False):
    y = x * scale + n
    return -y if flip else y


def optional(x, scale=None, shift=None):
    if scale is None:
        scale = 1.5
    y = x * scale
    if shift is not None:
        y = y + shift * x
    return y if shift is None else y * 2.0


def keyword_only(x, *, w=0.5, power=2):
    return w * x ** power


def varargs(first, *rest):
    return first * len(rest) + rest[0] * rest[-1] if rest else first


def varargs_arrays(*xs, scale=1.0):
    return scale * np.sum(xs[0] * xs[1]) + math.sin(np.sum(xs[1]))


def early_none(x, y=None):
    if y is None:
        return x * x
    return x * y * y


def conditional_none(x, y=None):
    return x if y is None else x * y


CASES = [  # (function, args, kwargs)
    (scaled, (1.5,), {}),
    (scaled, (1.5, 0.5), {}),
    (scaled, (1.5,), {"scale": -1.0, "flip": True}),
    (scaled, (1.5,), {"n": 7}),
    (optional, (2.0,), {}),
    (optional, (2.0, 3.0), {}),
    (optional, (2.0,), {"shift": 0.25}),
    (optional, (2.0,), {"scale": 3.0, "shift": 0.25}),
    (keyword_only, (1.25,), {}),
    (keyword_only, (1.25,), {"w": 3.0, "power": 3}),
    (varargs, (1.0,), {}),
    (varargs, (1.0, 2.0, 3.0), {}),
    (varargs_arrays, (np.linspace(0, 1, 4), np.linspace(1, 2, 4)), {"scale": 0.5}),
    (early_none, (1.5,), {}),
    (early_none, (1.5, 2.0), {}),
    (conditional_none, (1.5,), {}),
    (conditional_none, (1.5,), {"y": -2.0}),
]


@pytest.mark.parametrize("fn,args,kwargs", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_value_and_gradients(fn, args, kwargs):
    check_against_python(fn, *args, kwargs=kwargs)


def test_defaults_and_keywords_through_every_entry_point():
    f = pyad.jit_grad(scaled)
    x = 1.5
    assert f(x) == scaled(x) and f(x, scale=3.0) == scaled(x, 3.0)
    assert f(x, 3.0, n=1) == scaled(x, 3.0, n=1) and f(scale=3.0, x=x) == scaled(x, 3.0)
    assert f.grad(x) == pytest.approx(2.0) and f.grad(x, scale=3.0) == pytest.approx(3.0)
    assert f.value_and_grad(x, scale=3.0) == pytest.approx((scaled(x, 3.0), 3.0))
    y, back = f.pullback(x, scale=-1.0)
    assert y == scaled(x, -1.0) and back(2.0) == pytest.approx(-2.0)
    assert pyad.grad(scaled)(x, scale=4.0) == pytest.approx(4.0)
    assert pyad.grad(scaled, argnums=1)(x, scale=4.0) == pytest.approx(x)
    v, (gx, gs) = pyad.value_and_grad(scaled, argnums=(0, 1))(x, scale=4.0)
    assert (v, gx, gs) == pytest.approx((scaled(x, 4.0), 4.0, x))
    y, vjp = pyad.vjp(scaled, x, n=2)
    assert y == scaled(x, n=2)
    assert vjp(1.0) == (pytest.approx(2.0), pytest.approx(x), None, None)


def test_none_specializes_the_signature():
    f = pyad.jit_grad(optional)
    assert f(2.0) == optional(2.0)
    assert f(2.0, None, 1.0) == optional(2.0, None, 1.0)
    assert f(2.0, 3.0) == optional(2.0, 3.0)
    assert len(f._specs) == 3
    assert f.grad(2.0, shift=None) == pytest.approx(1.5)
    assert pyad.jit_grad(optional, argnums="all").grad(2.0) == (pytest.approx(1.5), None, None)


def test_argnums_conventions():
    def h(a, n, b):
        return a * b ** n
    f = pyad.jit_grad(h)
    assert f.grad(2.0, 2, 3.0) == pytest.approx(9.0)                       # argument 0, bare
    g = pyad.jit_grad(h, argnums="all").grad(2.0, 2, 3.0)
    assert g == (pytest.approx(9.0), None, pytest.approx(12.0))            # None for the int
    assert pyad.jit_grad(h, argnums=(2, 0)).grad(2.0, 2, 3.0) == pytest.approx((12.0, 9.0))
    assert pyad.jit_grad(h, argnums=-1).grad(2.0, 2, 3.0) == pytest.approx(12.0)
    with pytest.raises(TypeError, match="with respect to parameter 'n' of type i64"):
        pyad.jit_grad(h, argnums=1).grad(2.0, 2, 3.0)
    with pytest.raises(ValueError, match="argnums 3 is out of range for 3 parameters"):
        pyad.jit_grad(h, argnums=3).grad(2.0, 2, 3.0)
    with pytest.raises(TypeError, match="argnums must be an int, a non-empty tuple of ints "
                                        "or 'all', not None"):
        pyad.jit_grad(h, argnums=None)
    with pytest.raises(TypeError, match="argnums must be"):
        pyad.grad(h, argnums="first")


def test_nothing_to_differentiate():
    def k(n):
        return n * 2.5
    f = pyad.jit_grad(k)
    assert f(2) == 5.0
    for call in (f.grad, f.value_and_grad, f.pullback, pyad.jit_grad(k, argnums="all").grad):
        with pytest.raises(TypeError, match="k: nothing to differentiate: no argument is a "
                                            "float or a float array"):
            call(2)


def test_the_native_fast_path_survives_keywords():
    f = pyad.jit_grad(scaled)
    assert f(1.0, 2.0, 3, False) == scaled(1.0, 2.0, 3, False)
    assert type(f.__call__).__name__ == "builtin_function_or_method"   # native from now on
    assert f(1.0, scale=5.0) == scaled(1.0, 5.0)                       # keywords: dispatcher
    assert f(1.0) == scaled(1.0)                                       # defaults: dispatcher
    assert f.grad(1.0, 2.0, 3, False) == pytest.approx(2.0)
    assert f.grad(1.0, scale=5.0) == pytest.approx(5.0)
    g = pyad.jit_grad(keyword_only)     # keyword-only: never called natively by the user
    assert g(2.0) == keyword_only(2.0) and g(2.0, w=1.0) == keyword_only(2.0, w=1.0)
    assert type(g.__call__).__name__ == "function"


def test_bound_calls_fail_as_python_would():
    f, g, v = pyad.jit_grad(scaled), pyad.jit_grad(keyword_only), pyad.jit_grad(varargs)
    for call, python in [(lambda: f(), lambda: scaled()),
                         (lambda: f(1.0, 2.0, 3, True, 5), lambda: scaled(1.0, 2.0, 3, True, 5)),
                         (lambda: f(1.0, sale=2.0), lambda: scaled(1.0, sale=2.0)),
                         (lambda: f(1.0, x=2.0), lambda: scaled(1.0, x=2.0)),
                         (lambda: g(1.0, 2.0), lambda: keyword_only(1.0, 2.0)),
                         (lambda: g(w=1.0), lambda: keyword_only(w=1.0)),
                         (lambda: v(rest=1.0), lambda: varargs(rest=1.0))]:
        with pytest.raises(TypeError) as want:
            python()
        with pytest.raises(TypeError) as got:
            call()
        assert str(got.value) == str(want.value)
    with pytest.raises(TypeError, match=r"scaled\(\) argument 'scale' must be a float, int, "
                                        r"bool, str, numpy array, None, or a tuple"):
        f(1.0, scale=1j)


def test_refusals():
    def kw(x, **options):
        return x
    with pytest.raises(TypeError, match=r"cannot compile kw: its parameter \*\*options takes "
                                        "any keywords"):
        pyad.jit_grad(kw)
    f = pyad.jit_grad(optional)
    with pytest.raises(pyad.PyadTypeError, match="None cannot be used as a number here") as e:
        pyad.jit_grad(lambda_free_none)(1.0)
    assert e.value.line == lambda_free_none.__code__.co_firstlineno + 1
    assert f(1.0) == optional(1.0)   # the same function with the value given works


def lambda_free_none(x, y=None):
    return x * y


def test_tree_results_and_pullback_cotangents():
    y, vjp = pyad.vjp(conditional_none, 2.0, y=3.0)
    assert_same_structure_leaves(vjp(1.0), (3.0, 2.0))
