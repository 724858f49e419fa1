"""Contributions a loop reversed inside its forward sweep makes to an element whose index
does not change in it (`pos[i, 0]` in the loop over `j` of a pair loop) are summed in a
carried value and added after the loop (pyad/ad/carry.py), where the trips ran: each
function is checked against CPython, central differences with the dot-product test and the
IR interpreter. The sum is added only when it is not 0.0, so an index that is out of bounds
when the loop runs no trip is never computed."""
from __future__ import annotations

import math

import numpy as np
import pytest


from ..gradients import check_against_python

NOTE = "contributions to elements it does not move summed first"


def pair_energy(pos, m):
    e = 0.0
    for i in range(pos.shape[0]):
        for j in range(i + 1, pos.shape[0]):
            d2 = (pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2
            e -= m[i] * m[j] / math.sqrt(d2 + 0.01)
    return e


def next_element_in_an_empty_loop(x):
    """At i = n - 1 the inner loop runs no trip, and x[i + 1] would be out of bounds."""
    s = 0.0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            s += math.sin(x[i + 1] * x[j]) + x[i] * x[j]
    return s


def contributions_that_cancel(x):
    """The inner sums for x[i] come out exactly 0.0 (+1 and -1 times the same terms)."""
    s = 0.0
    for i in range(len(x)):
        for j in range(len(x)):
            s += x[i] * x[j] - x[i] * x[j] + x[j] * x[j]
    return s


CASES = [
    (pair_energy, (np.cos(np.arange(14.0)).reshape(7, 2), np.linspace(0.5, 1.5, 7))),
    (next_element_in_an_empty_loop, (np.linspace(-0.6, 0.9, 9),)),
    (contributions_that_cancel, (np.linspace(-0.6, 0.9, 9),)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_carried_sums(fn, args):
    f = check_against_python(fn, *args)
    assert NOTE in f.grad_ir(*args)


def test_a_private_scratch_element_is_not_carried():
    """`t[0]` is a scratch element each trip writes before reading it: the reverse of the
    store reads its adjoint back within the trip, so the contributions to it stay in
    memory (only the adjoints of arrays the loop does not write are summed first)."""
    def scratch(x):
        s = 0.0
        t = np.zeros(2)
        for j in range(len(x)):
            t[0] = x[j] * 2.0
            s += t[0] * math.sin(t[0])
        return s
    x = np.linspace(-0.6, 0.9, 6)
    f = check_against_python(scratch, x)
    assert NOTE not in f.grad_ir(x)


def test_an_element_of_an_outer_scratch_array_is_carried():
    """`t` is written by the outer loop's trips; the inner loop only reads `t[i]`, so its
    contributions to `t[i]` are summed first and added before the outer trip's reverse
    reads them."""
    def scratch(x):
        s = 0.0
        t = np.zeros(len(x))
        for i in range(len(x)):
            for j in range(len(x)):
                t[j] = x[j] * x[i]
            for j in range(len(x)):
                s += t[j] * t[i]
        return s
    x = np.linspace(-0.6, 0.9, 6)
    f = check_against_python(scratch, x)
    assert NOTE in f.grad_ir(x)
