"""Writing through integer-array indices (`a[idx] = v`, `a[idx] += v`, `np.add.at`) and
reading through boolean masks (`x[x > 0]`, a length known only at run time): values against
NumPy, including repeated indices (a plain or augmented assignment keeps the last value,
np.add.at adds them all), and gradients by the differential harness."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from .harness import check_function

X = np.array([0.3, -1.2, 0.8, 2.0, -0.1, 0.6])
IDX = np.array([0, 3, 3, -1])
V = np.array([1.5, -0.5, 2.0, 0.25])


def scatters(x, idx, v):
    a = np.zeros(6)
    a[idx] = v * 2.0
    b = x.copy()
    b[idx] += v
    c = np.zeros((3, 4))
    c[np.array([0, 2]), np.array([1, 3])] = x[:2]
    c[1, np.array([0, 0, 2])] = 7.0
    np.add.at(a, idx, v * v)
    np.add.at(c, (np.array([1, 1]), np.array([2, 2])), x[0])
    return a, b, c


def masks(x, v):
    m = x[x > 0.0]
    return m * 2.0, np.sum(x[x > 0.5] ** 2), np.mean(v[v < 10.0]), x[x > 100.0]


def masked_2d(a):
    return a[a > 0.0], np.sum(a[np.abs(a) < 1.0])


@pytest.mark.parametrize("fn, args", [
    (scatters, (X, IDX, V)),
    (masks, (X, V)),
    (masked_2d, (np.random.default_rng(2).normal(size=(3, 4)),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_values_and_gradients(fn, args):
    check_function(fn, args)


def test_repeated_indices():
    a, b, c = pyad.jit_grad(scatters)(X, IDX, V)
    want = scatters(X, IDX, V)
    np.testing.assert_array_equal(a, want[0])   # last write, then np.add.at's sums
    np.testing.assert_array_equal(b, want[1])
    np.testing.assert_array_equal(c, want[2])


def mask_write(x):
    y = x.copy()
    y[y > 0.0] = 0.0
    return y


def test_writing_through_a_mask():
    """More mask writes (arrays of values, +=) are in test_gathers_and_masks.py."""
    check_function(mask_write, (X,))


def test_a_mask_of_another_shape_raises_index_error():
    def f(x, y):
        return np.sum(x[y > 0.0])
    with pytest.raises(IndexError, match="did not match"):
        pyad.jit_grad(f)(np.ones(3), np.ones(4))
