"""Indexing and creating arrays in compiled code: negative indices, shape queries, element
assignment into local arrays, and the creation functions (dtypes follow NumPy)."""
from __future__ import annotations

import numpy as np

from .. import corpus_arrays as C
from .harness import check_function, compiled


# =========================================================================== indexing
def negative_reads(x, A, T, i):
    """x[-1], A[-1, -2], T[-1, 0, -1] and an index from an int argument."""
    return x[-1] + 2.0 * x[-len(x)] + A[-1, -2] * A[0, -1] + T[-1, 0, -1] - T[1, -2, 2] \
        + x[i] * A[i, i] + T[i, i, i]


def shape_of(x, A, T):
    """a.shape returned as tuples."""
    return x.shape, A.shape, T.shape, len(T), T.shape[-1]


def local_assignments(x, s):
    """Element assignment and every augmented element assignment into local 1-D, 2-D and
    3-D arrays, with negative indices."""
    a = np.zeros(4)
    a[0] = x[0]
    a[-1] = s
    a[1] += x[1] * s
    a[2] -= x[2]
    a[-2] *= 3.0
    a[3] /= 2.0 + x[-1] * x[-1]
    a[1] **= 2
    B = np.ones((2, 3))
    B[0, -1] = x[0] * s
    B[-1, 0] += s
    B[1, 1] *= x[1]
    B[0, 0] -= B[0, -1]
    T = np.zeros((2, 2, 2))
    T[1, -1, 0] = s * s
    T[-1, 1, 0] += x[2]
    T[0, 0, -1] -= 1.5
    T[0, 1, 1] = T[1, 1, 0] * 2.0
    return np.sum(a * a) + np.sum(B) * T[1, 1, 0] + T[0, 0, 1] + T[0, 1, 1]


def int_local_assignments(k):
    """Element assignment into int and bool local arrays."""
    c = np.zeros(len(k), dtype=np.int64)
    m = np.zeros(len(k), dtype=bool)
    for i in range(len(k)):
        c[i] = k[i] * 2
        c[i] += k[-1 - i]
        c[i] //= 3
        m[i] = c[i] > 0
    return c, m


def test_negative_indices():
    g = np.random.default_rng(11)
    args = (g.normal(size=5), g.normal(size=(3, 4)), g.normal(size=(2, 3, 4)), -2)
    check_function(negative_reads, args)
    args = (g.normal(size=5), g.normal(size=(3, 4)), g.normal(size=(2, 3, 4)), 1)
    check_function(negative_reads, args)


def test_shape_queries():
    x, A, T = np.zeros(5), np.zeros((3, 4)), np.zeros((2, 3, 4))
    check_function(shape_of, (x, A, T))
    assert compiled(shape_of)(x, A, T) == ((5,), (3, 4), (2, 3, 4), 2, 4)
    check_function(C.shape_queries, (np.zeros((2, 7)), np.zeros((1, 1, 6))))
    # strided and transposed arguments report the logical shape
    assert compiled(shape_of)(np.zeros(10)[::2], A.T, np.zeros((4, 3, 2)).T) == \
        ((5,), (4, 3), (2, 3, 4), 2, 4)


def test_element_assignment_into_local_arrays():
    check_function(local_assignments, (np.array([0.7, -1.3, 0.4, 2.1]), -0.6))
    check_function(int_local_assignments, (np.array([4, -5, 0, 7, 2]),))


# =========================================================================== creation
def make_arrays(n, v):
    """Creation functions returned directly: dtypes follow NumPy."""
    return (np.zeros(n), np.ones((2, n)), np.full((n, 2), v), np.full(n, 7), np.full(n, 2.5),
            np.zeros(n, dtype=int), np.ones((n,), dtype=np.int64), np.zeros(n, dtype=bool),
            np.ones(n, dtype=np.bool_), np.full(n, True, dtype=bool), np.zeros(n, dtype=float),
            np.ones((2, 2, n), dtype=np.float64), np.full((1, n), 3, dtype=float))


def make_like(x, k, b):
    """The *_like functions keep the dtype and shape of their argument."""
    z, o = np.zeros_like(x), np.ones_like(x)
    zk, ok = np.zeros_like(k), np.ones_like(k)
    zb = np.zeros_like(b)
    e = np.empty_like(x)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            e[i, j] = x[i, j] * 2.0
    return z, o, zk, ok, zb, e


def fill_empty(n, v):
    """np.empty (int and tuple shapes) filled before reading."""
    a = np.empty(n)
    B = np.empty((n, 2))
    for i in range(n):
        a[i] = v * i
        B[i, 0] = v
        B[i, 1] = -v * a[i]
    return np.sum(a) + np.sum(B * B)


def full_with_gradient(v, n):
    """d/dv of sum(np.full(n, v) ** 2) = 2 n v."""
    return np.sum(np.full(n, v) ** 2) + np.sum(np.full((2, n), v))


def copies(x):
    """a.copy() and np.copy(a) are independent of their source."""
    a = x.copy()
    b = np.copy(x)
    a[0] = 5.0
    b[1] = -5.0
    c = a.copy()
    c[2] = 0.0
    return a, b, c, x * 1.0


def test_creation_functions():
    check_function(make_arrays, (4, -0.75))
    check_function(make_arrays, (0, 1.5))
    g = np.random.default_rng(13)
    check_function(make_like, (g.normal(size=(2, 3)), np.array([[1, 2, 3], [4, 5, 6]]),
                               np.array([True, False])))
    check_function(fill_empty, (5, 0.8))
    check_function(full_with_gradient, (1.25, 3))
    assert compiled(full_with_gradient).grad(1.25, 3) == (2 * 3 * 1.25 + 6.0, None)
    check_function(copies, (g.normal(size=4),))
