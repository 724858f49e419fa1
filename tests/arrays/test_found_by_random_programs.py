"""What a generator of random array programs (shapes of up to three dimensions, steps,
fancy indexing, in-place updates, reductions, `@`, einsum) found, one test each, by the
differential harness (values against NumPy, gradients against central differences and the
interpreter). The third was a wrong gradient LLVM made (tests/codegen/test_running_sums.py)."""
from __future__ import annotations

import numpy as np

from .harness import check_function

A = np.array([[0.1, 0.2, -0.7], [0.3, 0.4, 1.1], [-0.5, 0.6, 0.25]])
X = np.array([1.0, -2.0, 3.0])


def overlapping_fancy_stores(a, x):
    """The value of a store through index arrays or a mask is read before the store, as
    NumPy copies it: here it is a view of the array written."""
    w = a.copy()
    w[np.array([1, 0])] = w[-2:]
    v = x.copy()
    v[np.array([2, 1, 0])] = v
    u = x.copy()
    u[u > 0] = u[::-1][:2]
    t = x.copy()
    np.add.at(t, np.array([0, 0, 2]), t)
    return w, v, u, t


def broadcast_views_of_one_argument(a, x):
    """A 1-D and a 3-D view of one array, multiplied and reduced by `@`: the unroll-and-jam
    pass met accesses of two ranks to the same array (an internal error)."""
    return np.sum((a[1] * a[:, None, :]) @ np.ones(3)) + np.sum((x * a[:, None, :]) @ x)


def test_overlapping_fancy_stores():
    check_function(overlapping_fancy_stores, (A, X))


def test_broadcast_views_of_one_argument():
    check_function(broadcast_views_of_one_argument, (A, X))
