"""Values an inner loop computed again in every trip of the loop around it (a factor of the
column, from broadcasting along an outer axis or written by hand) are computed once before
the nest into a temporary (pyad/ir/hoist.py). Each spelling against CPython, central
differences and the interpreter (check_against_python); the IR has the temporary where the
rules allow it and not where they do not; the checks the nest would make still raise."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def standardize(X):
    mu = np.mean(X, axis=0, keepdims=True)
    sd = np.std(X, axis=0, keepdims=True)
    return np.sum(((X - mu) / (sd + 1e-3)) ** 3)


def broadcast_row(X, s):
    return np.sum(X * np.exp(s)[None, :] + X / np.sqrt(s * s + 1.0).reshape(1, -1))


def column_factor_loop(X, v):
    n, d = X.shape
    s = 0.0
    for i in range(n):
        for k in range(d):
            s += X[i, k] / math.sqrt(v[k] + 1.0)
    return s


def three_deep(A, v):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            for k in range(A.shape[2]):
                s += A[i, j, k] * math.tanh(v[k])
    return s


def written_in_the_outer_loop(X, v):
    """`w` changes in the outer loop: its factor is not hoisted."""
    n, d = X.shape
    w = v * 1.0
    s = 0.0
    for i in range(n):
        for k in range(d):
            s += X[i, k] / math.sqrt(w[k] + 1.0)
        w[i % d] += 1.0
    return s


def counted_by_the_outer_loop(X, v):
    """The inner loop's length changes with the outer counter: nothing is hoisted."""
    s = 0.0
    for i in range(X.shape[0]):
        for k in range(i % X.shape[1]):
            s += X[i, k] * math.exp(v[k])
    return s


def outer_runs(X, v, n):
    s = 0.0
    for i in range(n):
        for k in range(X.shape[1]):
            s += X[i, k] * math.exp(v[k])
    return s


RNG = np.random.default_rng(5)
X, V = RNG.standard_normal((7, 4)), RNG.random(4)
HOISTED = [(standardize, (X,)), (column_factor_loop, (X, V)), (outer_runs, (X, V, 7))]
KEPT = [(written_in_the_outer_loop, (X, V)), (counted_by_the_outer_loop, (X, V)),
        (broadcast_row, (X, V)),   # its factors are stored before the nest already
        # a loop inside a loop is no outer loop: its temporaries would be made every trip
        (three_deep, (RNG.standard_normal((3, 4, 5)), RNG.standard_normal(5)))]


@pytest.mark.parametrize("fn, args", HOISTED + KEPT, ids=lambda v: getattr(v, "__name__", ""))
def test_values_and_gradients(fn, args):
    check_against_python(fn, *args)


@pytest.mark.parametrize("fn, args", HOISTED, ids=lambda v: getattr(v, "__name__", ""))
def test_the_factor_is_computed_before_the_nest(fn, args):
    assert "%hoisted: f64[1d] = alloc" in pyad.jit_grad(fn).ir(*args)


@pytest.mark.parametrize("fn, args", KEPT, ids=lambda v: getattr(v, "__name__", ""))
def test_what_changes_in_the_outer_loop_stays(fn, args):
    assert "hoisted" not in pyad.jit_grad(fn).ir(*args)


def test_the_fill_runs_only_when_the_outer_loop_does():
    """With no outer trip the vector may be shorter than the inner loop: nothing is read."""
    assert pyad.jit_grad(outer_runs)(X, np.zeros(0), 0) == 0.0


def test_a_check_of_the_nest_still_raises_at_its_line():
    with pytest.raises(IndexError, match="out of bounds") as info:
        pyad.jit_grad(outer_runs)(X, np.zeros(2), 3)
    assert info.value.args[0].endswith(f"(line {outer_runs.__code__.co_firstlineno + 4} "
                                       "of test_hoist.py)")


def raises_before_it_reads_past(X, v, D):
    """The nest raises ZeroDivisionError at its first trip, before k leaves `v` (a probe
    found the fill reading v[k] for every k < D: a segfault with boundscheck=False)."""
    s = 0.0
    for i in range(X.shape[0]):
        for k in range(D):
            s += 1.0 / float(X[i, k % 4])
            s += math.exp(v[k])
    return s


def zero_outer(x, v, n, m):
    s = 0.0
    for i in range(n):
        for k in range(m):
            s += x[i] * math.exp(v[k])
    return s


@pytest.mark.parametrize("boundscheck", [True, False])
def test_the_fill_checks_its_indices_even_without_boundscheck(boundscheck):
    X = np.array([[0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    f = pyad.jit_grad(raises_before_it_reads_past, boundscheck=boundscheck)
    assert "%hoisted" in f.ir(X, np.ones(4), 5)
    with pytest.raises((ZeroDivisionError, IndexError)):   # CPython: ZeroDivisionError
        f(X, np.ones(4), 10 ** 8)


def test_no_room_is_made_when_the_outer_loop_does_not_run():
    """A nest that never runs allocates nothing (it raised MemoryError for m = 10**12)."""
    f = pyad.jit_grad(zero_outer)
    assert "%hoisted" in f.ir(np.ones(3), np.ones(3), 3, 3)
    assert f(np.ones(3), np.ones(3), 0, 10 ** 12) == 0.0
