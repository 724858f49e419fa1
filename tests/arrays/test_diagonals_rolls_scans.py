"""np.diag(v, k) and np.diag(A, k), np.diagonal, np.trace(offset), np.roll (flattened, tuple
shifts and axes), np.cumulative_sum/np.cumulative_prod (NumPy 2.1), np.atleast_1d/2d/3d,
np.cov, np.corrcoef, np.clip with a None bound: values against NumPy, gradients by the
harness (finite differences, the interpreter, the pullback's dot-product test), several
shapes including size 1, non-contiguous inputs; refusals located."""
from __future__ import annotations

import numpy as np
import pytest

from ..modules import assert_refused
from .harness import check_function, relayout

rng = np.random.default_rng(31)


def diagonals_of_vectors(v):
    return np.diag(v, k=1), np.diag(v, -2) * 2.0, np.diag(v, 0), np.diag(v * v, k=len(v))


def diagonals_of_matrices(a):
    return np.diag(a, k=1), np.diag(a, -1), np.diag(a, 7), np.diagonal(a), \
        np.diagonal(a, 1), a.diagonal(-1), np.trace(a, 1) + a.trace(offset=-1) + np.trace(a)


def diagonals_of_stacks(t):
    return np.diagonal(t, -1, 2, 0), t.diagonal(axis1=1, axis2=2, offset=1), \
        np.diagonal(t), np.trace(t), np.trace(t, -1), np.trace(t, axis1=0, axis2=2), \
        np.trace(t, 1, 2, 1), t.trace(-1, axis1=1, axis2=2)


def rolls(a):
    return np.roll(a, 2), np.roll(a, -7), np.roll(a, (1, 2), axis=(0, -1)), \
        np.roll(a, (1, -1), axis=-1), np.roll(a, 3, axis=(0, 1)), np.roll(a, 0)


def rolls_3d(t):
    return np.roll(t, 5), np.roll(t, (1, 2, -1), axis=(2, 0, 1)), np.roll(t, -1, axis=1)


def cumulative(v):
    return np.cumulative_sum(v), np.cumulative_prod(v), \
        np.cumulative_sum(v, include_initial=True), np.cumulative_prod(v, axis=0,
                                                                      include_initial=True)


def cumulative_2d(a):
    return np.cumulative_sum(a, axis=0, include_initial=True), \
        np.cumulative_prod(a, axis=-1, include_initial=True), np.cumulative_sum(a, axis=1)


def at_least(v, x):
    return np.atleast_1d(v) * 2.0, np.atleast_2d(v), np.atleast_3d(v), \
        np.atleast_3d(np.atleast_2d(v)), np.atleast_1d(x), np.atleast_2d(x), \
        np.atleast_3d(x)


def at_least_many(a):
    p, q = np.atleast_2d(a, a[0])
    return p * q


def at_least_writes(v):
    w = v.copy()
    m = np.atleast_2d(w)
    m[0, 0] = 5.0   # a view, as in NumPy: the write reaches w
    return w * v


def covariances(a):
    return np.cov(a), np.cov(a, rowvar=False), np.cov(a, bias=True), np.cov(a, ddof=0), \
        float(np.cov(a[0])) * np.cov(a[:, 0], ddof=0)


def correlations(a):
    return np.corrcoef(a), np.corrcoef(a, rowvar=False), np.corrcoef(a[0])


def clipped(a):
    return np.clip(a, None, 0.5), np.clip(a, -0.3, None), a.clip(-0.1, 0.1), \
        a.clip(None, 0.0)


@pytest.mark.parametrize("n", [1, 3, 5])
def test_diag_builds_and_reads_the_kth_diagonal(n):
    v = rng.normal(size=n)
    check_function(diagonals_of_vectors, (v,))
    check_function(diagonals_of_vectors, (relayout(v, "negative")[0],))


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (1, 1), (2, 2)])
def test_diag_diagonal_and_trace_of_matrices(shape):
    a = rng.normal(size=shape)
    check_function(diagonals_of_matrices, (a,))
    check_function(diagonals_of_matrices, (relayout(a, "transposed")[0],))


@pytest.mark.parametrize("shape", [(2, 3, 4), (3, 3, 1)])
def test_diagonal_and_trace_of_3d_arrays(shape):
    check_function(diagonals_of_stacks, (rng.normal(size=shape),))


@pytest.mark.parametrize("shape", [(3, 4), (1, 5), (1, 1)])
def test_roll_flattened_and_along_tuples_of_axes(shape):
    a = rng.normal(size=shape)
    check_function(rolls, (a,))
    check_function(rolls, (relayout(a, "strided")[0],))
    check_function(rolls, (rng.integers(-9, 9, size=shape),))


def test_roll_of_3d_arrays():
    check_function(rolls_3d, (rng.normal(size=(2, 3, 4)),))


@pytest.mark.parametrize("n", [1, 4])
def test_cumulative_sum_and_prod(n):
    check_function(cumulative, (rng.normal(size=n),))
    check_function(cumulative, (rng.integers(-3, 3, size=n),))
    check_function(cumulative_2d, (rng.normal(size=(n, 3)),))
    check_function(cumulative_2d, (relayout(rng.normal(size=(3, n)), "fortran")[0],))


@pytest.mark.parametrize("n", [1, 3])
def test_atleast_nd(n):
    check_function(at_least, (rng.normal(size=n), 1.5))
    check_function(at_least, (rng.normal(size=(n, 2)), 2))
    check_function(at_least, (rng.normal(size=(2, n, 1)), True))
    check_function(at_least_many, (rng.normal(size=(2, n)),))
    check_function(at_least_writes, (rng.normal(size=n),))


@pytest.mark.parametrize("shape", [(3, 5), (2, 2), (4, 3)])
def test_cov(shape):
    a = rng.normal(size=shape)
    check_function(covariances, (a,))
    check_function(covariances, (relayout(a, "offset")[0],))
    check_function(correlations, (a,))


@pytest.mark.parametrize("shape", [(7,), (2, 3)])
def test_clip_with_one_bound(shape):
    check_function(clipped, (rng.normal(size=shape),))


@pytest.mark.parametrize("src, message", [
    ("np.diag(np.ones((2, 2, 2)))", "np.diag takes a 1-D or 2-D array"),
    ("np.diagonal(x, 0, 1, 1)", "two different axes"),
    ("np.trace(x[0])", "at least 2 dimensions"),
    ("np.trace(x, 0, 1, -1)", "two different axes"),
    ("np.roll(x, (1, 2))", "np.roll without an axis takes one shift"),
    ("np.roll(x, (1, 2, 3), axis=(0, 1))", "shift and axis have different lengths"),
    ("np.cumulative_sum(x)", "needs an axis"),
    ("np.cov(x[None])", "np.cov takes 1-D or 2-D arrays"),
])
def test_what_numpy_refuses_is_refused_at_the_call(src, message, tmp_path):
    assert_refused(tmp_path, "x", f"np.sum({src})", (np.ones((2, 3)),), message)
