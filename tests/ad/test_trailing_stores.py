"""A loop reversed inside the trip of an accumulating loop (its cotangent known there) adds
its contributions into the shadows while it runs forward; a store after it in the same trip
(or in later trips of the loops around it there) into an array it loads has its reverse run
afterwards, reading and clearing the shadow of what it overwrote. Such a loop is reversed in
its place instead (fused.py `_overwritten_later`). A probe of loop spellings found these
silently wrong: `sc[1] = 7.0` after a loop summing `sc[i] * sc[i]` gave x[1] a zero
gradient (pyad 0, CPython's finite differences -4). Each function is checked against
CPython, central finite differences with the dot-product test, the interpreter and the
pullback."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ..gradients import check_against_python


def trailing_store(x, w):
    sc = np.zeros(len(x))
    s = 0.0
    for t in range(len(w)):
        for i in range(len(x)):
            sc[i] = x[i] * w[t]
        for i in range(len(x)):
            s += sc[i] * sc[i]
        sc[1] = 7.0
    return s


def trailing_array_sum(x, w):
    sc = np.zeros(len(x))
    s = 0.0
    for t in range(len(w)):
        for i in range(len(x)):
            sc[i] = math.sin(x[i] * (t + 1)) * w[t]
        s += np.sum(sc * sc) + np.dot(sc, x)
        sc[0] = 7.0
    return s


def trailing_in_inner_loop(x, w):
    """The store comes in a later trip of a loop around the summing loop."""
    sc = np.zeros(len(x))
    s = 0.0
    for t in range(len(w)):
        for i in range(len(x)):
            sc[i] = x[i] + w[t]
        for r in range(2):
            for i in range(len(x)):
                s += sc[i] * sc[i] * (r + 1)
            sc[r] = 0.5 * r
    return s


def trailing_conditional(x, w):
    sc = np.zeros(len(x))
    s = 0.0
    for t in range(len(w)):
        for i in range(len(x)):
            sc[i] = math.tanh(x[i] - w[t])
        for i in range(len(x)):
            s += math.exp(sc[i])
        if w[t] > 0.0:
            sc[len(x) - 1] = -1.0
    return s


@pytest.mark.parametrize("fn", [trailing_store, trailing_array_sum, trailing_in_inner_loop,
                                trailing_conditional], ids=lambda f: f.__name__)
def test_a_store_after_a_loop_reversed_in_the_trip(fn):
    rng = np.random.default_rng(3)
    x, w = rng.uniform(-1.0, 1.0, 4), rng.uniform(-1.0, 1.0, 3)
    f = check_against_python(fn, x, w)
    _, grads = f.value_and_grad(x, w)
    _, back = f.pullback(x, w)
    for g, h in zip(back(0.7), grads):
        np.testing.assert_allclose(g, 0.7 * h, rtol=1e-12, atol=1e-14)
