"""Loops that make a view of a differentiated array in every trip (a row, a column, a tail)
and read single elements of it into a sum: `for x, y in pts`, `r = A[i]; s += r[0]`.

The accumulating-loop plan (pyad/ad/fused.py) sums contributions to elements that do not
move in the loop in a carried value and adds it after the loop (pyad/ad/carry.py); an
element of a view the trip makes (`r[0]` of `r = A[i]`) moves with the trip, and the view is
not there after the loop: such contributions are added in the trip (the gradient failed IR
verification with an internal error). Found by a probe of real code (the shoelace formula).
Each: CPython's value, central differences and the interpreter."""
from __future__ import annotations

import numpy as np
import pytest

from ..gradients import check_against_python


def unpack_rows(pts):
    a = 0.0
    for x, y in pts:
        a += x * y
    return a


def shoelace(pts):
    n = len(pts)
    a = 0.0
    for i in range(n):
        x1, y1 = pts[i]
        x2, y2 = pts[(i + 1) % n]
        a += x1 * y2 - x2 * y1
    return abs(a) / 2


def first_of_each_row(pts):
    s = 0.0
    for p in pts:
        s += p[0]
    return s


def row_by_index(A):
    s = 0.0
    for i in range(len(A)):
        r = A[i]
        s += r[0] * r[-1]
    return s


def columns_of_the_transpose(A):
    s = 0.0
    for c in A.T:
        s += c[1] * c[0] - c[-1]
    return s


def moving_tail(x):
    s = 0.0
    for k in range(1, 4):
        tail = x[k:]
        s += tail[0] * tail[-1]
    return s


def fixed_tail_made_in_the_trip(x):
    s = 0.0
    for k in range(3):
        tail = x[1:]
        s += tail[0] * tail[-1] * k
    return s


def planes_of_a_stack(T):
    s = 0.0
    for m in T:
        s += m[0, 1] * m[1, 0]
    return s


def energy(p):
    return p[0] * p[0] + 0.5 * p[1]


def helper_on_each_row(A):
    e = 0.0
    for i in range(A.shape[0]):
        e += energy(A[i])
    return e


def with_an_outer_element(A, x):
    """A contribution that does move out of the loop (x[0]) next to those that cannot."""
    s = 0.0
    for r in A:
        s += r[1] * x[0]
    return s


RNG = np.random.default_rng(7)
CASES = [
    (unpack_rows, (RNG.normal(size=(5, 2)),)),
    (shoelace, (np.array([[0.0, 0.0], [2.0, 0.1], [2.2, 1.5], [1.0, 2.3]]),)),
    (first_of_each_row, (RNG.normal(size=(4, 3)),)),
    (row_by_index, (RNG.normal(size=(3, 3)),)),
    (columns_of_the_transpose, (RNG.normal(size=(3, 4)),)),
    (moving_tail, (RNG.normal(size=6),)),
    (fixed_tail_made_in_the_trip, (RNG.normal(size=5),)),
    (planes_of_a_stack, (RNG.normal(size=(3, 2, 2)),)),
    (helper_on_each_row, (RNG.normal(size=(4, 2)),)),
    (with_an_outer_element, (RNG.normal(size=(4, 2)), RNG.normal(size=3))),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_elements_of_a_view_made_in_each_trip(fn, args):
    check_against_python(fn, *args)
