"""Loads behind the counter of a loop that keeps writing their array are re-read by the
reverse sweep instead of taped (pyad/ir/trip_order.py, memory.final_loads): substitutions
and factorizations written as loops read elements earlier trips finished. Each function is
checked against CPython's value, central differences with the dot-product test and the IR
interpreter; the tape sizes show whether the load was trusted. The loads that may see a
later write (the element the trip itself writes, an element ahead of the counter, an index
that may wrap, a view whose layout changes from trip to trip) must stay on the tape, or the
gradient would be wrong."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def back_substitution(U, b):
    n = len(b)
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= U[i, j] * x[j]
        x[i] = s / U[i, i]
    return float(np.sum(x * x))


def forward_substitution(L, b):
    n = len(b)
    y = np.zeros(n)
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= L[i, j] * y[j]
        y[i] = s / L[i, i]
    return float(np.dot(y, y))


def forward_substitution_down(L, b):
    """The inner loop counts down (`range(i - 1, -1, -1)`), still behind i."""
    n = len(b)
    y = np.zeros(n)
    for i in range(n):
        s = b[i]
        for j in range(i - 1, -1, -1):
            s -= L[i, j] * y[j]
        y[i] = s / L[i, i]
    return float(np.sum(np.sin(y)))


def cholesky_logdet(A):
    """L[j, k], L[i, k] with k < j: columns the outer loop finished (its writes are at
    column j)."""
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        L[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            t = A[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / L[j, j]
    ld = 0.0
    for i in range(n):
        ld += math.log(L[i, i])
    return 2.0 * ld


def recurrence(a):
    """y[i - 1] at i >= 1: the previous trip's element."""
    n = len(a)
    y = np.zeros(n)
    y[0] = a[0]
    for i in range(1, n):
        y[i] = math.sin(y[i - 1]) * a[i] + y[i - 1] * y[i - 1]
    return float(np.sum(y))


def reads_its_own_element(U, b):
    """x[j] for j in range(i, n) reads x[i] before the trip writes it: the old value."""
    n = len(b)
    x = np.ones(n)
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i, n):
            s -= U[i, j] * x[j] * x[j]
        x[i] = s / U[i, i]
    return float(np.sum(x * x))


def reads_ahead(a):
    """y[i + 1] counting up: an element a later trip writes."""
    n = len(a)
    y = np.ones(n + 1)
    for i in range(n):
        y[i] = a[i] * y[i + 1] * y[i + 1] + 0.5
    return float(np.sum(y * y))


def wraps_around(a):
    """y[i - 1] at i = 0 is y[-1], the last element, which the last trip writes."""
    n = len(a)
    y = np.ones(n)
    for i in range(n):
        y[i] = a[i] * y[i - 1] * y[i - 1] + 0.25
    return float(np.sum(y * y))


def rewritten_by_an_outer_loop(a):
    """The inner substitution is behind its loop's counter, but an outer loop runs it again
    and rewrites every element."""
    n = len(a)
    y = np.ones(n)
    for t in range(3):
        for i in range(n):
            s = a[i]
            for j in range(i):
                s -= 0.1 * y[j] * y[j]
            y[i] = s
    return float(np.sum(y * y))


def rest_of_the_row_after(a):
    """The trip stores y[i] (exp: its adjoint reads the stored value) and then a loop from
    i + 1 rewrites the elements ahead: y[i] stays, so it is loaded back."""
    n = len(a)
    y = np.ones(n)
    t = 0.0
    for i in range(n):
        y[i] = math.exp(a[i] * 0.5)
        t += y[i]
        for k in range(i + 1, n):
            y[k] = 0.25 * y[k] + 0.1
    return t + float(np.sum(y * y))


def rest_of_the_row_from_here(a):
    """The same with the loop from i: it rewrites y[i] too, so exp's value is taped."""
    n = len(a)
    y = np.ones(n)
    t = 0.0
    for i in range(n):
        y[i] = math.exp(a[i] * 0.5)
        t += y[i]
        for k in range(i, n):
            y[k] = 0.25 * y[k] + 0.1
    return t + float(np.sum(y * y))


def carried_reversed_view(a):
    """Found by a probe: `v` is x, then x reversed, each trip: the same name lays out x
    another way in the next trip, which writes the element this trip read behind its
    counter."""
    n = len(a)
    x = a.copy()
    v = x
    s = 0.0
    for i in range(1, n):
        t = v[i - 1]
        v[i] = 0.7 * t + a[i]
        s += t * t * t
        v = v[::-1]
    return s


def view_made_in_the_loop(a):
    """Found by a probe: a view made in each trip whose start moves back: v[i - 1] of one
    trip is v[i] of a later one."""
    n = len(a)
    x = np.ones(2 * n) * 0.5
    for i in range(1, n):
        v = x[2 * n - 2 * i:]
        v[i] = v[i - 1] * a[i]
    return float(np.sum(x * x))


def _triangular(n, seed, lower):
    rng = np.random.default_rng(seed)
    m = rng.uniform(-0.5, 0.5, (n, n)) + 3.0 * np.eye(n)
    return np.tril(m) if lower else np.triu(m)


def _spd(n, seed):
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


RNG = np.random.default_rng(0)
def trajectory(x):
    """Each row from the row before, written one ahead of the counter (`traj[t + 1]`): the
    loads at t are behind the writes (pyad/ir/trip_order.py, shifted writes)."""
    n = len(x)
    traj = np.zeros((n + 1, 2))
    traj[0, 0], traj[0, 1] = 0.3, -0.2
    for t in range(n):
        a, b = traj[t, 0], traj[t, 1]
        traj[t + 1, 0] = a + 0.1 * math.sin(b) * x[t]
        traj[t + 1, 1] = b + 0.1 * math.cos(a * x[t])
    return float(traj[n, 0] ** 2 + traj[n, 1] ** 2 + traj[n // 2, 0])


def trajectory_down(x):
    """Counting down, each element from the one above it, written one below the counter."""
    n = len(x)
    y = np.zeros(n + 1)
    y[n] = 0.5
    for t in range(n, 0, -1):
        y[t - 1] = math.sin(y[t]) * x[t - 1] + y[t] * y[t]
    return float(np.sum(y * y))


def shifted_reads_its_own_element(x):
    """Reads the element it writes next (t + 1), before writing it: taped."""
    n = len(x)
    y = np.zeros(n + 1) + 0.25
    for t in range(n):
        y[t + 1] = math.sin(y[t + 1] + y[t]) * x[t]
    return float(np.sum(y * y))


def shifted_reads_ahead(x):
    """Reads t + 2 while writing t + 1: the next trip writes it."""
    n = len(x)
    y = np.zeros(n + 2) + 0.5
    for t in range(n):
        y[t + 1] = math.sin(y[t + 2]) * x[t] + y[t]
    return float(np.sum(y * y))


TRUSTED = [(back_substitution, lambda n: (_triangular(n, 1, False), RNG.standard_normal(n))),
           (forward_substitution, lambda n: (_triangular(n, 2, True), RNG.standard_normal(n))),
           (forward_substitution_down, lambda n: (_triangular(n, 3, True),
                                                  RNG.standard_normal(n))),
           (cholesky_logdet, lambda n: (_spd(n, 4),)),
           (recurrence, lambda n: (RNG.uniform(-0.3, 0.3, n),)),
           (rest_of_the_row_after, lambda n: (RNG.uniform(-0.5, 0.5, n),)),
           (trajectory, lambda n: (RNG.uniform(0.5, 1.5, n),)),
           (trajectory_down, lambda n: (RNG.uniform(-0.5, 0.5, n),))]
TAPED = [(reads_its_own_element, lambda n: (_triangular(n, 5, False),
                                            RNG.uniform(0.5, 1.0, n))),
         (reads_ahead, lambda n: (RNG.uniform(-0.3, 0.3, n),)),
         (wraps_around, lambda n: (RNG.uniform(-0.3, 0.3, n),)),
         (rewritten_by_an_outer_loop, lambda n: (RNG.uniform(-0.5, 0.5, n),)),
         (rest_of_the_row_from_here, lambda n: (RNG.uniform(-0.5, 0.5, n),)),
         (carried_reversed_view, lambda n: (RNG.uniform(-0.5, 0.5, n),)),
         (view_made_in_the_loop, lambda n: (RNG.uniform(0.5, 1.5, n),)),
         (shifted_reads_its_own_element, lambda n: (RNG.uniform(-0.5, 0.5, n),)),
         (shifted_reads_ahead, lambda n: (RNG.uniform(-0.5, 0.5, n),))]


def _tape(fn, args) -> int:
    f = pyad.jit_grad(fn, argnums="all", cache=False)
    _, back = f.pullback(*args)
    return back.tape_bytes


@pytest.mark.parametrize("fn,make", TRUSTED + TAPED, ids=lambda c: getattr(c, "__name__", ""))
def test_values_and_gradients(fn, make):
    for n in (1, 2, 3, 6):
        check_against_python(fn, *make(n))


@pytest.mark.parametrize("fn,make", TRUSTED, ids=lambda c: getattr(c, "__name__", ""))
def test_loads_behind_the_counter_are_not_taped(fn, make):
    """The tape does not grow with the number of inner trips (n^2 / 2 loads at n = 40):
    at most a few values per outer trip (none for Cholesky, whose stores are all loaded
    back)."""
    assert _tape(fn, make(40)) <= (0 if fn is cholesky_logdet else 3 * 8 * 40)


@pytest.mark.parametrize("fn,make", TAPED, ids=lambda c: getattr(c, "__name__", ""))
def test_loads_a_later_write_may_change_are_taped(fn, make):
    assert _tape(fn, make(40)) >= 8 * 39   # a value a trip at least (39 trips from i = 1)
