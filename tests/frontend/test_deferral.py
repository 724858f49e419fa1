"""Elementwise expressions bound to a name and read by one later statement stay unevaluated
until that statement (pyad/frontend/deferral.py): no temporary array, and the values CPython
computes even where memory changes in between."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad
from tests.gradients import check_against_python

RNG = np.random.default_rng(5)
POS = RNG.standard_normal((6, 3))
M = RNG.uniform(0.5, 1.5, 6)
X = RNG.standard_normal(5)
Y = RNG.standard_normal(5)


def _pairs(pos, m):
    n = pos.shape[0]
    diff = pos[:, None, :] - pos[None, :, :]
    inv = 1.0 / np.sqrt(np.sum(diff * diff, axis=2) + 0.01)
    upper = np.triu(np.ones((n, n)), 1)
    return -np.sum(upper * (m[:, None] * m[None, :]) * inv)


def _chain(x, y):
    a = x * y
    b: np.ndarray = np.tanh(a) + 1.0
    c = b * b - np.exp(-x)
    return float(np.mean(c)) + math.sqrt(np.sum(y * y))


def _write_between(x, y):
    """x changes after d is bound: d must hold the old values."""
    z = x.copy()
    d = z - y
    z[0] = 100.0
    return np.sum(d * d) + z[0]


def _inplace_between(x, y):
    z = x.copy()
    d = z * 2.0
    z += y
    return np.sum(d) + np.sum(z)


def _helper_between(x, y):
    z = x.copy()
    d = z + y
    _bump(z)
    return np.sum(d * z)


def _bump(a):
    a[1] = a[1] + 3.0
    return 0.0


def _method_between(x, y):
    z = x.copy()
    d = z * y
    z.sort()
    return np.sum(d * z)


def _read_twice(x, y):
    """Two reads in two statements: evaluated once where it is bound."""
    d = np.exp(x - y)
    s = np.sum(d)
    return s + np.max(d)


def _read_in_loop(x, y, n):
    d = np.sin(x) * y
    s = 0.0
    for k in range(n):
        s = s + np.sum(d) * k
    return s


def _read_in_comprehension(x, y):
    d = x * y
    return sum([np.sum(d) * k for k in range(3)])


def _rebound(x, y):
    d = x - y
    e = np.sum(d)
    d = x + y
    return e * np.sum(d)


def _in_branch(x, y, flag):
    if flag:
        d = x * x
        s = np.sum(d - y)
    else:
        s = np.sum(y)
    return s


def _in_loop_body(x, y, n):
    s = 0.0
    for k in range(n):
        d = x * (k + 1.0) - y
        s = s + np.sum(d * d)
    return s


def _comprehension_between(x, y):
    """A comprehension (lowered as statements of its own) between the binding and the
    read must not evaluate d inside its loop."""
    d = x * y
    s = sum([v * 2.0 for v in x])
    t = [np.sum(x[:k]) for k in range(3)]
    return np.sum(d) + s + t[2]


CASES = [
    (_comprehension_between, (X, Y)),
    (_pairs, (POS, M)),
    (_chain, (X, Y)),
    (_write_between, (X, Y)),
    (_inplace_between, (X, Y)),
    (_helper_between, (X, Y)),
    (_method_between, (X, Y)),
    (_read_twice, (X, Y)),
    (_read_in_loop, (X, Y, 4)),
    (_read_in_comprehension, (X, Y)),
    (_rebound, (X, Y)),
    (_in_branch, (X, Y, True)),
    (_in_branch, (X, Y, False)),
    (_in_loop_body, (X, Y, 3)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_values_and_gradients(fn, args):
    check_against_python(fn, *args)


def _allocs(fn, *args) -> int:
    return pyad.jit_grad(fn).ir(*args).count(" alloc ")


def test_a_deferred_chain_allocates_nothing():
    assert _allocs(_pairs, POS, M) == 1      # only the sum over axis 2 (n x n)
    assert _allocs(_chain, X, Y) == 0
    assert _allocs(_in_loop_body, X, Y, 3) == 0


def test_values_read_more_than_once_or_after_a_write_are_arrays():
    assert _allocs(_read_twice, X, Y) == 1
    assert _allocs(_read_in_loop, X, Y, 4) == 1
    assert _allocs(_write_between, X, Y) == 2     # the copy, and d before the write


def _contraction_read_twice(x, y):
    """An einsum contraction (a loop per element: row-wise dot products are not matrix
    products) read twice in one statement is evaluated once, where it is bound; read once,
    it is deferred."""
    q = np.einsum("ij,ij->i", np.outer(x, y), np.outer(x, x))
    r = np.einsum("ij,ij->i", np.outer(x, y), np.outer(y, y))
    return np.sum(q * q) + np.sum(r)


def test_a_contraction_read_twice_is_evaluated_once():
    f = check_against_python(_contraction_read_twice, X, Y)
    assert f.ir(X, Y).count(" alloc ") == 1      # q; r is deferred into the sum


def _broadcast_costly(theta, z):
    """np.exp(theta) read over a new leading axis is computed once per element of theta
    (stored), not once per element of the product; a cheap expression is not stored."""
    p = np.exp(theta)
    return np.sum(p * z) + np.sum(np.tanh(theta) * z) + np.sum((theta * 2.0) * z)


def test_a_costly_expression_broadcast_over_new_axes_is_stored_once():
    z = np.random.default_rng(3).normal(size=(4, 5))
    f = check_against_python(_broadcast_costly, X, z)
    assert f.ir(X, z).count(" alloc ") == 2
