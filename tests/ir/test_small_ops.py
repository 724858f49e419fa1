"""Whole-array primitives of small arrays of known shape become element code
(pyad/ir/small_ops.py), so the arrays they read become scalars (pyad/ir/scalarize.py):
products of every rank combination, outer products, copies, inside loops and after them.
Each function computes what CPython and NumPy compute and differentiates right (finite
differences, dot-product test, interpreter, pullback); its IR has neither an array nor a
kernel call left, and its loop tapes what the elementwise spelling tapes. Products the pass
must leave to the kernel (too many products, a shape mismatch, shapes known only when
called) still give NumPy's values and errors."""
from __future__ import annotations

import numpy as np
import pytest

import pyad
from tests.gradients import check_against_python


def _rhs(s):
    return np.array([10.0 * (s[1] - s[0]), s[0] * (28.0 - s[2]) - s[1],
                     s[0] * s[1] - 8.0 / 3.0 * s[2]])


def _rk4_weights(x, y, z, dt, steps):
    """RK4 stages kept in a (4, 3) array and combined by np.dot(w, K)."""
    s = np.array([x, y, z])
    w = np.array([1.0, 2.0, 2.0, 1.0]) / 6.0
    k = np.zeros((4, 3))
    for _ in range(steps):
        k[0] = _rhs(s)
        k[1] = _rhs(s + 0.5 * dt * k[0])
        k[2] = _rhs(s + 0.5 * dt * k[1])
        k[3] = _rhs(s + dt * k[2])
        s = s + dt * np.dot(w, k)
    return np.dot(s, s)


def _rotate(theta, x, y, n):
    """A 2x2 matrix applied with @ to a 2-vector, then a matrix product and a trace."""
    r = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    v = np.array([x, y])
    for _ in range(n):
        v = 0.99 * (r @ v)
    rr = r @ r
    return v @ v + rr[0, 0] + rr[1, 1] + (v @ r)[1]


def _outer_and_copy(a, b, c):
    u = np.array([a, b, c])
    v = np.array([b * c, a])
    m = np.outer(u, v)
    keep = u.copy()
    u[0] = 7.0
    return np.sum(m * m) + keep[0] * u[0] + np.dot(u, keep)


def _matrix_times_matrix(a, b):
    p = np.array([[a, b, 1.0], [b, a * b, -a]])
    q = np.array([[1.0, a], [b, 2.0], [a * a, b]])
    return np.sum(p @ q) + np.sum(q @ p)


SMALL = [(_rk4_weights, (1.0, 1.2, 0.9, 0.001, 30)), (_rotate, (0.3, 1.0, -0.5, 7)),
         (_outer_and_copy, (0.7, -1.3, 2.1)), (_matrix_times_matrix, (0.4, -0.8))]


@pytest.mark.parametrize("fn,args", SMALL, ids=lambda x: getattr(x, "__name__", ""))
def test_small_products_become_scalars(fn, args):
    f = check_against_python(fn, *args)
    text = f.ir(*args) + f.grad_ir(*args)
    for op in (" alloc ", " constarray ", " matmul ", " outer ", " copy "):
        assert op not in text, op


def _rk4_sum(x, y, z, dt, steps):
    """_rk4_weights with the weighted sum and the square spelled elementwise."""
    s = np.array([x, y, z])
    k = np.zeros((4, 3))
    for _ in range(steps):
        k[0] = _rhs(s)
        k[1] = _rhs(s + 0.5 * dt * k[0])
        k[2] = _rhs(s + 0.5 * dt * k[1])
        k[3] = _rhs(s + dt * k[2])
        s = s + dt / 6.0 * (k[0] + 2.0 * k[1] + 2.0 * k[2] + k[3])
    return np.sum(s * s)


def test_a_product_tapes_what_the_elementwise_spelling_tapes():
    """Before, np.dot(w, K) kept K and the state in memory: 28 values a step on the tape
    instead of the state's 3."""
    args = (1.0, 1.2, 0.9, 0.001, 50)
    dot = pyad.jit_grad(_rk4_weights, argnums=(0, 1, 2))
    ew = pyad.jit_grad(_rk4_sum, argnums=(0, 1, 2))
    assert dot.tape_bytes(*args) == ew.tape_bytes(*args) == 50 * 3 * 8
    np.testing.assert_allclose(dot.grad(*args), ew.grad(*args), rtol=1e-12)


def _big(a):
    m = np.zeros((5, 5))
    for i in range(5):
        for j in range(5):
            m[i, j] = a * (i - j) + 1.0 / (1.0 + i + j)
    return np.sum(m @ m)


def _mismatch(a):
    p = np.array([a, 2.0 * a, 3.0])
    q = np.array([[a, 1.0], [2.0, a]])
    return np.sum(p @ q)


def _runtime_shape(m, v):
    return np.sum(m @ v)


def test_products_left_to_the_kernel():
    f = check_against_python(_big, 0.3)                 # 125 products: the kernel
    assert " matmul " in f.ir(0.3)
    rng = np.random.default_rng(3)
    m, v = rng.standard_normal((2, 3)), rng.standard_normal(3)
    g = check_against_python(_runtime_shape, m, v)      # shapes known only when called
    assert " matmul " in g.ir(m, v)
    with pytest.raises(ValueError, match="shapes are not aligned"):
        pyad.jit_grad(_mismatch)(0.5)
    with pytest.raises(ValueError):
        _mismatch(0.5)
