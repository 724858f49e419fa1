"""Scratch arrays (pyad/ad/refill.py): a loop body that fills a 1-D array completely and then
reads it re-runs the fill in the reverse sweep instead of taping the reads. Look-alikes that
do not fill the whole array, or write it again, must keep their gradients right (they tape).

Gradients: central finite differences and the dot-product test, the IR interpreter, and the
pullback, through tests/gradients.py.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def scratch(x, w):
    """W2's shape: per (i, k), fill xc from x and w, then a quadratic form over it."""
    n, d = x.shape
    xc = np.zeros(d)
    s = 0.0
    for i in range(n):
        t = 0.0
        for k in range(w.shape[0]):
            for j in range(d):
                xc[j] = x[i, j] - w[k, j]
            q = 0.0
            for r in range(d):
                v = xc[r]
                for c in range(r):
                    v += 0.5 * xc[c]
                q += v * v
            t = t * 0.9 + q * q
        s += t
    return s


def partial_then_written_after(x, w):
    """The fill skips the last element, which the code after the loop overwrites: re-running
    the fill would leave the new value there. Not a fill."""
    n, d = x.shape
    xc = np.ones(d)
    s = 0.0
    for k in range(n):
        for j in range(d - 1):
            xc[j] = x[k, j] * w[j]
        q = 0.0
        for r in range(d):
            q = q * 0.5 + xc[r] * xc[r] * w[r]
        s = s * 0.9 + q
    xc[d - 1] = s
    return s + xc[0]


def from_one_then_written_after(x, w):
    """The fill starts at 1; element 0 changes after the loop. Not a fill."""
    n, d = x.shape
    xc = np.ones(d)
    s = 0.0
    for k in range(n):
        for j in range(1, d):
            xc[j] = x[k, j] * w[j]
        q = 0.0
        for r in range(d):
            q = q * 0.5 + xc[r] * xc[r] * w[r]
        s = s * 0.9 + q
    xc[0] = s
    return s + xc[1]


def longer_then_written_after(x, w):
    """The array is longer than the fill loop; its last element changes after the loop."""
    n, d = x.shape
    xc = np.ones(d + 1)
    s = 0.0
    for k in range(n):
        for j in range(d):
            xc[j] = x[k, j] * w[j]
        q = 0.0
        for r in range(d + 1):
            q = q * 0.5 + xc[r] * xc[r] * w[r % d]
        s = s * 0.9 + q
    xc[d] = s
    return s + xc[0]


def fill_reads_memory_changed_later(x, w):
    """The fill reads `y`, which the code after the loop overwrites."""
    n, d = x.shape
    y = np.zeros(d)
    for j in range(d):
        y[j] = w[j] * 2.0
    xc = np.zeros(d)
    s = 0.0
    for k in range(n):
        for j in range(d):
            xc[j] = x[k, j] * y[j]
        q = 0.0
        for r in range(d):
            q = q * 0.5 + xc[r] * xc[r]
        s = s * 0.9 + q
    for j in range(d):
        y[j] = 0.0
    return s + y[0]


def written_again(x, w):
    """A later write in the same trip: the reads before it are re-read, those after are not."""
    n, d = x.shape
    xc = np.zeros(d)
    s = 0.0
    for k in range(n):
        for j in range(d):
            xc[j] = x[k, j] + w[j]
        q = 0.0
        for r in range(d):
            q = q * 0.5 + xc[r] * xc[r]
        xc[0] = q
        s = s * 0.9 + xc[0] * xc[1]
    return s


def prefix_fill(x, w):
    """The fill reads the array it writes (a running sum): not re-run."""
    n, d = x.shape
    xc = np.zeros(d)
    s = 0.0
    for k in range(n):
        xc[0] = x[k, 0]
        for j in range(1, d):
            xc[j] = xc[j - 1] + x[k, j] * w[j]
        q = 0.0
        for r in range(d):
            q = q * 0.5 + xc[r] * xc[r]
        s = s * 0.9 + q
    return s


def expensive_fill(x, w):
    """W5's shape: the fill computes tanh of a dot product (an inner loop): re-running it in
    every reverse trip would cost as much as the forward sweep, so its reads are taped."""
    n, d = x.shape
    h = np.zeros(d)
    s = 0.0
    for k in range(n):
        for j in range(d):
            a = 0.0
            for f in range(d):
                a += x[k, f] * w[f]
            h[j] = math.tanh(a * (j + 1) * 0.1)
        q = 0.0
        for r in range(d):
            q = q * 0.5 + h[r] * h[r]
        s = s * 0.9 + q
    return s


RNG = np.random.default_rng(3)
X, W = RNG.standard_normal((4, 5)), RNG.standard_normal((3, 5))


@pytest.mark.parametrize("fn, args", [
    (scratch, (X, W)),
    (partial_then_written_after, (X, W[0])),
    (from_one_then_written_after, (X, W[0])),
    (longer_then_written_after, (X, W[0])),
    (fill_reads_memory_changed_later, (X, W[0])),
    (written_again, (X, W[0])),
    (prefix_fill, (X, W[0])),
    (expensive_fill, (X, W[0])),
])
def test_gradients(fn, args):
    check_against_python(fn, *args)


def test_reads_of_a_refilled_array_are_not_taped():
    f = pyad.jit_grad(scratch)
    small = f.tape_bytes(X[:, :3].copy(), W[:, :3].copy())
    big = f.tape_bytes(X.repeat(4, axis=1), W.repeat(4, axis=1))  # d = 20: 190 reads of xc[c]
    # per (i, k): the d values of v and nothing per read of xc
    assert big - small <= 4 * 3 * 8 * (20 - 3) + 1024


def test_expensive_fills_are_not_re_run():
    f = pyad.jit_grad(expensive_fill)
    # per trip: the d values of tanh and the d reads of h (a re-run fill would save the latter)
    assert f.tape_bytes(np.ones((40, 5)), np.ones(5)) >= 40 * 5 * 8 * 2
