"""Accumulating loops inside a loop the reverse sweep tapes (issue 17's "re-run a whole
trip from its live-in values"): when every load of the inner loop reads memory nothing
writes afterwards, the inner loop runs again in the reverse sweep, each trip followed by
its reverse with the cotangent the outer reverse trip has for it (fused.rerun_in_reverse),
and nothing of it is taped. When it reads memory written later (here the outer loop's
state, updated in place), it is taped as before. Each function is checked against
CPython's value, central differences with the dot-product test, the IR interpreter and
a pullback with another cotangent."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def row_energies(pos, m):
    """W4 spelled with each body's share filled into a vector first."""
    n = pos.shape[0]
    row = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for j in range(i + 1, n):
            d2 = (pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2
            acc += m[j] / math.sqrt(d2 + 0.01)
        row[i] = m[i] * acc
    return -np.sum(row)


def softmax_rows(a, w):
    """A non-accumulating outer loop (a running product) around a log-sum-exp."""
    p = 1.0
    for i in range(a.shape[0]):
        se = 0.0
        for j in range(a.shape[1]):
            se += math.exp(a[i, j] * w[j])
        p = p * 0.5 + math.log(se)
    return p


def masked_inner(a, w):
    """The inner accumulation under a branch, its result scaling the outer state."""
    s = 1.0
    for i in range(a.shape[0]):
        t = 0.0
        for j in range(a.shape[1]):
            if a[i, j] > 0.0:
                t += math.sqrt(a[i, j] * a[i, j] + w[j])
        s = s * math.tanh(t) + 1.0
    return s


def reads_updated_state(a, w):
    """The inner loop reads u, which the outer loop updates in place afterwards: its loads
    cannot be repeated in the reverse sweep."""
    u = np.zeros(a.shape[1]) + w
    s = 0.0
    for i in range(a.shape[0]):
        t = 0.0
        for j in range(a.shape[1]):
            t += math.sin(u[j] * a[i, j])
        for j in range(a.shape[1]):
            u[j] = u[j] * 0.9 + t * a[i, j]
        s = s * 0.5 + t
    return s


CASES = [(row_energies, True), (softmax_rows, True), (masked_inner, True),
         (reads_updated_state, False)]


def _args(fn):
    rng = np.random.default_rng(5)
    if fn is row_energies:
        return rng.uniform(-1.0, 1.0, (6, 2)), rng.uniform(0.5, 1.0, 6)
    return rng.uniform(-1.0, 1.0, (4, 5)), rng.uniform(0.5, 1.0, 5)


@pytest.mark.parametrize("fn, rerun", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_inner_accumulation_runs_again_in_reverse(fn, rerun):
    args = _args(fn)
    f = check_against_python(fn, *args)
    _, grads = f.value_and_grad(*args)
    _, back = f.pullback(*args)  # another cotangent than 1: the re-run trips use it
    for g, h in zip(back(0.7), grads):
        np.testing.assert_allclose(g, 0.7 * h, rtol=1e-12, atol=1e-14)
    assert ("run again in the reverse sweep" in f.grad_ir(*args)) == rerun


@pytest.mark.parametrize("fn", [row_energies, softmax_rows, masked_inner],
                         ids=lambda f: f.__name__)
def test_tape_holds_one_value_per_outer_trip(fn):
    """Only what the outer loop's reverse needs of each trip is taped (the inner sum, or
    the running value), whatever the inner loop's length."""
    f = pyad.jit_grad(fn, argnums="all")
    a, w = _args(fn)
    if fn is row_energies:
        small, large = f.tape_bytes(a, w), f.tape_bytes(np.vstack([a, a + 0.3]),
                                                        np.concatenate([w, w]))
        assert (small, large) == (8 * 6, 8 * 12)
    else:
        wide = (np.hstack([a, a * 0.5]), np.concatenate([w, w]))
        assert f.tape_bytes(a, w) == f.tape_bytes(*wide) <= 16 * a.shape[0]
