"""np.nonzero, np.where(cond), np.flatnonzero, np.argwhere, np.triu_indices, np.tril_indices,
np.diag_indices (and their `_from` forms; pyad/frontend/positions.py): int64 index arrays
of a length known only at run time, in NumPy's row-major order; and indexing by the tuple
they give (`x[np.where(x > 0)]`, `a[np.nonzero(m)] = v`), whose gradient is the
gather's. Values against NumPy, gradients by the harness."""
from __future__ import annotations

import numpy as np
import pytest

from ..modules import assert_refused
from .harness import check_function, relayout

rng = np.random.default_rng(41)


def positions(a):
    return np.nonzero(a > 0), np.where(a < -0.5), np.flatnonzero(a), np.argwhere(a > 0.3)


def positions_of_ints(k):
    return np.nonzero(k), np.flatnonzero(k == 2), np.argwhere(k)


def picked(a):
    return np.sum(a[np.where(a > 0)] ** 2) + np.sum(a[np.nonzero(a < 0)])


def picked_and_scaled(a):
    i = np.flatnonzero(a > 0)
    return a.ravel()[i] * 2.0, a[np.nonzero(a > 0)]


def written(a):
    b = a.copy()
    b[np.nonzero(b < 0)] = 0.0
    b[np.where(b > 1.0)] *= 3.0
    return b * a


def indexed_by_a_tuple(a):
    t = (1, 0)
    return a[t] + a[(0, 0)]


def triangle_energy(x):
    d = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    return np.sum(1.0 / np.sqrt(d[np.triu_indices(x.shape[0], 1)])) \
        + np.sum(d[np.tril_indices(len(x))]) + np.sum(d[np.diag_indices(len(x))] + 1.0)


def index_tuples(a):
    return np.triu_indices(3), np.tril_indices(3, -1, 4), np.triu_indices_from(a), \
        np.tril_indices_from(a, 1), np.diag_indices_from(a[:, :a.shape[0]]), \
        np.diag_indices(2, 3), np.triu_indices(2, m=3, k=1), np.tril_indices(0)


def triangle_writes(a):
    b = a.copy()
    b[np.triu_indices_from(b, 1)] = 0.0
    b[np.diag_indices_from(b)] *= 2.0
    return b * a


@pytest.mark.parametrize("n", [1, 2, 4])
def test_triangle_and_diagonal_indices(n):
    check_function(triangle_energy, (rng.normal(size=(n, 3)) + np.arange(n)[:, None],))
    check_function(index_tuples, (np.ones((n, n + 1)),))
    check_function(triangle_writes, (rng.normal(size=(n, n)),))


@pytest.mark.parametrize("shape", [(7,), (3, 4), (1, 1), (2, 3, 2)])
def test_nonzero_where_flatnonzero_argwhere_like_numpy(shape):
    a = rng.normal(size=shape)
    check_function(positions, (a,))
    check_function(positions, (relayout(a, "reversed")[0],))
    check_function(positions_of_ints, (rng.integers(0, 3, size=shape),))
    check_function(positions_of_ints, (rng.integers(0, 3, size=shape).astype(bool),))


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2)])
def test_reading_and_writing_through_the_index_tuples(shape):
    a = rng.normal(size=shape)
    check_function(picked, (a,))
    check_function(picked_and_scaled, (a,))
    check_function(written, (a,))
    check_function(written, (relayout(a, "strided")[0],))


def test_nothing_selected_gives_empty_arrays():
    check_function(positions, (np.full((2, 3), -0.1),))
    check_function(picked_and_scaled, (np.full((2, 2), -1.0),))


def test_a_tuple_of_ints_indexes_one_element():
    check_function(indexed_by_a_tuple, (rng.normal(size=(2, 3)),))


@pytest.mark.parametrize("src, message", [
    ("np.nonzero(2.0)[0]", "np.nonzero of a number"),
    ("np.flatnonzero(x, 1)", "np.flatnonzero takes 1 positional arguments"),
    ("np.triu_indices_from(x[0])[0]", "np.triu_indices_from takes a 2-D array"),
    ("np.diag_indices(2, 4)[0]", "ndim must be 1 to 3"),
])
def test_refusals_are_located(src, message, tmp_path):
    assert_refused(tmp_path, "x", f"np.sum({src})", (np.ones((2, 3)),), message)
