"""The product of two float vectors (`np.dot(u, v)`, `u @ v`, `np.matmul`, `u.dot(v)`) is the
running sum of the elements' products, fused with the loops of its operands
(pyad/frontend/products.py): nothing is stored for a computed operand, the value has the
bits of `np.sum(u * v)`, the gradient passes finite differences, the dot-product test, the
interpreter and the pullback, and lengths that differ raise NumPy's ValueError."""
from __future__ import annotations

import numpy as np
import pytest

import pyad
from tests.gradients import check_against_python


def dot_of_residuals(x):
    t = x[1:] - x[:-1] ** 2
    u = 1.0 - x[:-1]
    return 100.0 * np.dot(t, t) + u @ u


def sum_of_residuals(x):
    t = x[1:] - x[:-1] ** 2
    u = 1.0 - x[:-1]
    return 100.0 * np.sum(t * t) + np.sum(u * u)


def spellings(x, w):
    return np.dot(np.tanh(x), w) + np.matmul(x, w * w) + x.dot(np.exp(-w)) + np.dot(x, x)


def int_vectors(k, x):
    return np.dot(k, k) + np.dot(k, x)


def lengths(x, w):
    return np.dot(x, w)


def test_a_computed_vector_is_not_stored():
    x = np.random.default_rng(0).uniform(-1.0, 1.0, 50)
    f = check_against_python(dot_of_residuals, x)
    assert " alloc " not in f.ir(x) and " matmul " not in f.ir(x) + f.grad_ir(x)
    g = pyad.jit_grad(sum_of_residuals, argnums="all")
    assert f(x) == g(x)    # the same sums: the same bits, the same gradient
    np.testing.assert_array_equal(f.grad(x), g.grad(x))


def test_spellings_of_vector_products():
    rng = np.random.default_rng(1)
    x, w = rng.uniform(-1.0, 1.0, 17), rng.uniform(-1.0, 1.0, 17)
    check_against_python(spellings, x, w)
    k = np.arange(5)
    assert pyad.jit_grad(int_vectors, argnums=1)(k, np.linspace(0.0, 1.0, 5)) == \
        pytest.approx(int_vectors(k, np.linspace(0.0, 1.0, 5)))


def test_lengths_that_differ():
    with pytest.raises(ValueError, match="not aligned"):
        pyad.jit_grad(lengths)(np.ones(3), np.ones(4))
