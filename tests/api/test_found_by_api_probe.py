"""What a probe of the API surfaces (2026-11-29) found crashing or refusing with the wrong
reason, now working: a custom_vjp backward rule returning None for an argument (JAX's "no
cotangent") or a tuple of cotangents for a tuple argument, results holding strings (the
pullback and has_aux), a compiled function returning a function, and the transforms given
something that is not a function."""
from __future__ import annotations

import numpy as np
import pytest

import pyad


@pyad.custom_vjp
def scaled(x, n):
    return x * n


def _scaled_fwd(x, n):
    return x * n, n


def _scaled_bwd(n, ct):
    return ct * n, None


scaled.defvjp(_scaled_fwd, _scaled_bwd)


@pyad.custom_vjp
def product(x, y):
    return x * y


def _product_fwd(x, y):
    return x * y, (x, y)


def _product_bwd(res, ct):
    return ct * res[1], None   # y declared without a cotangent: 0


product.defvjp(_product_fwd, _product_bwd)


@pyad.custom_vjp
def of_a_pair(t, s):
    return t[0] * t[1] * s


def _pair_fwd(t, s):
    return t[0] * t[1] * s, (t, s)


def _pair_bwd(res, ct):
    t, s = res
    return (ct * t[1] * s, ct * t[0] * s), ct * t[0] * t[1]


of_a_pair.defvjp(_pair_fwd, _pair_bwd)


def use_scaled(x, n):
    return scaled(x, n) + x * x


def use_product(x, y):
    return product(x, y)


def use_pair(a, b, s):
    return of_a_pair((a, b), s)


def test_custom_rules_with_none_and_tuple_cotangents():
    """Were PyadInternalError ('Record' object has no attribute 'type') and "`of_a_pair`
    takes 3 arguments" (it takes 2)."""
    assert pyad.jit_grad(use_scaled).grad(0.5, 3) == 3.0 + 1.0
    assert pyad.jit_grad(use_product, argnums="all").grad(0.5, 3.0) == (3.0, 0.0)
    assert pyad.jit_grad(use_pair, argnums="all").grad(0.5, 2.0, 3.0) == (6.0, 1.5, 1.0)


def with_a_label(x):
    return x * x, {"mode": "train", "x2": 2.0 * x}


def test_results_holding_strings_pull_back():
    """A string leaf takes whatever cotangent is given (it has no numbers); was "cotangent
    must have the structure of the result: a string, got 'train'" for every value."""
    (value, aux), g = pyad.value_and_grad(with_a_label, has_aux=True)(1.5)
    assert (value, aux, g) == (2.25, {"mode": "train", "x2": 3.0}, 3.0)
    y, back = pyad.jit_grad(with_a_label).pullback(1.5)
    for label in (None, "train", "", 0.0):
        assert back((1.0, {"mode": label, "x2": 1.0})) == 2.0 * 1.5 + 2.0
    with pytest.raises(TypeError, match="structure of the result"):
        back((1.0, {"x2": 1.0}))


def returns_a_function(x):
    def g(y):
        return y * x
    return g


def test_returning_a_function_is_a_located_error():
    """Was PyadInternalError: 'Closure' object has no attribute 'name'."""
    with pytest.raises(pyad.PyadSyntaxError, match="not a function or module") as e:
        pyad.jit_grad(returns_a_function)(1.0)
    assert "return g" in str(e.value)


@pytest.mark.parametrize("bad", [3, "abc", None])
def test_transforms_of_something_that_is_not_a_function(bad):
    """Were "cannot create weak reference to 'int' object"."""
    for transform in (pyad.grad, pyad.value_and_grad):
        with pytest.raises(TypeError, match="expects a Python function"):
            transform(bad)
    with pytest.raises(TypeError, match="expects a Python function"):
        pyad.vjp(bad, 1.0)


class Linear:
    def __init__(self):
        self.W = np.array([[1.0, 2.0], [0.5, -1.0]])

    def loss(self, x, y):
        return float(np.sum(np.tanh(self.W @ x) * y))

    @pyad.jit_grad
    def compiled(self, x):
        return np.sum(np.sin(self.W @ x))


def test_vmap_of_bound_methods():
    """`self` is passed to every element and not mapped; was "missing 1 required
    positional argument" (self dropped) or "pyad.vmap maps a Python function..."."""
    m = Linear()
    X = np.array([[0.3, -0.7], [1.0, 2.0], [0.5, 0.5]])
    Y = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    for fun, single in [(pyad.grad(m.loss), pyad.grad(m.loss)),
                        (pyad.grad(m.loss, argnums=1), pyad.grad(m.loss, argnums=1)),
                        (m.loss, pyad.jit_grad(m.loss))]:
        got = pyad.vmap(fun)(X, Y)
        want = np.array([single(x, y) for x, y in zip(X, Y)])
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(pyad.vmap(pyad.grad(m.loss), in_axes=(0, None))(X, Y[0]),
                                  np.array([pyad.grad(m.loss)(x, Y[0]) for x in X]))
    for fun, single in [(m.compiled, m.compiled), (m.compiled.grad, m.compiled.grad)]:
        np.testing.assert_array_equal(pyad.vmap(fun)(X), np.array([single(x) for x in X]))
