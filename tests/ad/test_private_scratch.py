"""Scratch arrays private to the trips of an accumulating loop (pyad/ir/private.py): the
loop is reversed trip by trip inside its forward sweep (fused.py) and the tape peaks at
one trip's values. Each function is checked against CPython's value, central finite
differences with the dot-product test, and the IR interpreter; the printed plan says
whether the analysis found the arrays private. The spellings where a trip may read what
another trip wrote (read before the fill, partial or strided fills, a conditional store,
a read after the loop) must not be found private, and their gradients must be right too."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ..gradients import check_against_python


def fill_then_update(x, w):
    sc = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        for j in range(len(w)):
            sc[j] = math.sin(x[i] * w[j])
        for j in range(len(w)):
            sc[j] += sc[j] * x[i]
        for j in range(len(w)):
            s += math.exp(sc[j]) * sc[(j + 1) % len(w)]
    return s


def new_each_trip(x, w):
    s = 0.0
    for i in range(len(x)):
        acc = np.zeros(len(w))
        for j in range(len(w)):
            acc[j] += w[j] * x[i]
            acc[j] = math.tanh(acc[j])
        t = 0.0
        for j in range(len(w)):
            t += acc[j] * acc[j]
        s += math.log(1.0 + t)
    return s


def nested_private(x, w):
    """h is filled per (i, k) pair inside the k loop: private to it, and so to the i loop;
    z is filled per i."""
    h = np.zeros(len(w))
    z = np.zeros(3)
    s = 0.0
    for i in range(len(x)):
        for k in range(3):
            for j in range(len(w)):
                h[j] = w[j] * x[i] + k
            q = 0.0
            for j in range(len(w)):
                q += h[j] * h[j]
            z[k] = math.sqrt(q + 1.0)
        m = max(z[0], z[1])
        s += m + z[2] * x[i]
    return s


def while_outer(x, w):
    sc = np.zeros(len(w))
    s = 0.0
    i = 0
    while i < len(x):
        for j in range(len(sc)):       # the fill's bound spelled as the array's length
            sc[j] = x[i] - w[j]
        v = sc[1:]                      # a view of the private array
        for j in range(len(v)):
            s += v[j] * v[j] * sc[0]
        i += 1
    return s


def read_before_fill(x, w):
    """Each trip first reads sc[0], written by the previous trip: not private."""
    sc = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        s += sc[0] * x[i]
        for j in range(len(w)):
            sc[j] = math.cos(x[i] * w[j])
        for j in range(len(w)):
            s += sc[j]
    return s


def partial_fill(x, w):
    """sc[0] is never written by the fill from 1: the analysis does not see a full fill."""
    sc = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        for j in range(1, len(w)):
            sc[j] = x[i] * w[j]
        for j in range(len(w)):
            s += sc[j] * sc[j] + sc[0]
        sc[0] = x[i]
    return s


def strided_fill(x, w):
    """Every other element written; the rest keep the previous trip's values."""
    sc = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        for j in range(0, len(w), 2):
            sc[j] = x[i] * w[j]
        for j in range(len(w)):
            s += math.sin(sc[j]) * x[i]
        for j in range(len(w)):
            sc[j] = sc[j] + 1.0
    return s


def conditional_store(x, w):
    sc = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        for j in range(len(w)):
            if w[j] > 0.0:
                sc[j] = x[i] * w[j]
        for j in range(len(w)):
            s += sc[j] * sc[j] * x[i]
    return s


def read_after_loop(x, w):
    sc = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        for j in range(len(w)):
            sc[j] = x[i] * w[j]
        for j in range(len(w)):
            s += math.exp(sc[j])
    return s + sc[0] * sc[-1]


def short_fill(x, w):
    """The fill covers len(w) - 1 of sc's elements: the last one carries over."""
    sc = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        for j in range(len(w) - 1):
            sc[j] = x[i] * w[j]
        for j in range(len(w)):
            s += sc[j] * sc[j]
        sc[len(w) - 1] = x[i] * 2.0
    return s


def refill_shared_inactive(x, w):
    """The outer loop is reversed trip by trip; the inner loop's reverse could re-run the
    fill of sc (inactive, cheap), but the next forward trip reads sc before its fills
    (t0): re-running the fill inside the trip would change what it reads. Before the fix
    value_and_grad returned 66.34 here where CPython gives 73.94."""
    n = len(w)
    sc = np.zeros(n)
    s = 0.0
    for i in range(len(x)):
        t0 = sc[0] + sc[n - 1]
        q = x[i]
        for k in range(3):
            for j in range(n):
                sc[j] = float(i + k + j)
            u = 0.0
            for j in range(n):
                u += sc[j] * w[j]
            q = q * math.sin(u) + sc[n - 1]
        s += q + t0 * x[i]
    return s


def branch_fill(x, w):
    """The fill and its uses under a branch (the W4 all-pairs spelling's shape)."""
    sc = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        if x[i] > -0.5:
            for j in range(len(w)):
                sc[j] = x[i] - w[j]
            for j in range(len(w)):
                s += sc[j] * sc[j] * x[i]
    return s


def branch_stale(x, w):
    """One branch fills sc, the other reads what an earlier trip left: not private."""
    sc = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.0:
            for j in range(len(w)):
                sc[j] = x[i] * w[j]
        else:
            for j in range(len(w)):
                s += math.sin(sc[j]) * x[i]
    return s


def set_then_update_row(x, w):
    """Each element is set and then updated in place inside the fill loop (the ADBench C++
    GMM spelling: `y[r] = 0; for c: y[r] += Q[r, c] * xc[c]`)."""
    n = len(w)
    y = np.zeros(n)
    s = 0.0
    for i in range(len(x)):
        for r in range(n):
            y[r] = 0.0
            for c in range(r + 1):
                y[r] += w[c] * math.sin(x[i] * (c + 1))
            y[r] = y[r] * y[r]
        for r in range(n):
            s += y[r] * x[i]
    return s


def fill_2d(x, w):
    """A 2-D scratch array filled row by row, element by element, then updated."""
    m = np.zeros((len(w), 3))
    s = 0.0
    for i in range(len(x)):
        for r in range(len(w)):
            for c in range(3):
                m[r, c] = w[r] * x[i] + c
                m[r, c] += math.cos(m[r, c])
        for r in range(len(w)):
            s += m[r, 0] * m[r, 2] - m[r, 1]
    return s


def branch_in_fill(x, w):
    """Both branches store the element first."""
    sc = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        for j in range(len(w)):
            if w[j] > 0.0:
                sc[j] = x[i] * w[j]
            else:
                sc[j] = x[i] - w[j]
            sc[j] += math.exp(sc[j])
        for j in range(len(w)):
            s += sc[j] * x[i]
    return s


def update_before_set(x, w):
    """y[r] += ... reads the previous trip's y[r] before the store: not private."""
    y = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        for r in range(len(w)):
            y[r] += x[i] * w[r]
            y[r] = math.sin(y[r])
        for r in range(len(w)):
            s += y[r] * x[i]
    return s


def fill_touches_neighbour(x, w):
    """The fill of row r also reads y[r - 1]: for r = 0 that is the previous trip's last
    element."""
    y = np.zeros(len(w))
    s = 0.0
    for i in range(len(x)):
        for r in range(len(w)):
            y[r] = x[i] * w[r]
            y[r] += 0.5 * y[r - 1]
        for r in range(len(w)):
            s += y[r] * y[r]
    return s


def fill_2d_short(x, w):
    """The inner loop skips the last column: it carries over between trips."""
    m = np.zeros((len(w), 3))
    s = 0.0
    for i in range(len(x)):
        for r in range(len(w)):
            for c in range(2):
                m[r, c] = w[r] * x[i] + c
        for r in range(len(w)):
            s += m[r, 0] * m[r, 2] + m[r, 1]
            m[r, 2] = m[r, 1] * x[i]
    return s


PRIVATE = [(fill_then_update, "%sc"), (new_each_trip, "%acc"), (nested_private, "%h"),
           (while_outer, "%sc"), (branch_fill, "%sc"), (set_then_update_row, "%y"),
           (fill_2d, "%m"), (branch_in_fill, "%sc")]
SHARED = [read_before_fill, partial_fill, strided_fill, conditional_store, read_after_loop,
          short_fill, refill_shared_inactive, branch_stale, update_before_set,
          fill_touches_neighbour, fill_2d_short]


def _args():
    rng = np.random.default_rng(7)
    return rng.uniform(-1.0, 1.0, 5), rng.uniform(-1.0, 1.0, 4)


def _check(fn):
    x, w = _args()
    f = check_against_python(fn, x, w)
    _, grads = f.value_and_grad(x, w)
    _, back = f.pullback(x, w)  # another cotangent than 1: the contributions are scaled
    for g, h in zip(back(0.7), grads):
        np.testing.assert_allclose(g, 0.7 * h, rtol=1e-12, atol=1e-14)
    return f, (x, w)


@pytest.mark.parametrize("fn, name", PRIVATE, ids=lambda c: getattr(c, "__name__", ""))
def test_private_scratch_is_reversed_per_trip(fn, name):
    f, args = _check(fn)
    text = f.grad_ir(*args)
    assert "private to its trips: " + name in text
    # the outer loop is reversed inside its trips: no reverse loop with a tape for it, so
    # the tape peaks at one trip's values, whatever the number of trips
    x, w = args
    more = (np.concatenate([x, x, x]), w)
    assert f.tape_bytes(*more) == f.tape_bytes(*args)


@pytest.mark.parametrize("fn", SHARED, ids=lambda c: c.__name__)
def test_shared_scratch_is_not_private(fn):
    f, args = _check(fn)
    assert "private to its trips" not in f.grad_ir(*args)
