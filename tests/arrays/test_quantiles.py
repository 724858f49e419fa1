"""np.median, np.percentile, np.quantile (over all elements, an int, negative or tuple axis,
keepdims) and np.interp (x a number or an array; left/right; period): pyad/frontend/sorting.py. Each
is checked by the harness against NumPy's value, central finite differences, the IR
interpreter and the pullback, on inputs of odd and even length, size 1, non-contiguous
layouts, and with the interpolation landing between elements (ties would make the
finite differences one-sided)."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..modules import assert_refused
from .harness import check_function, relayout


def distinct(shape, seed):
    """Values with no ties: a permutation plus small noise."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return (rng.permutation(n) + rng.normal(size=n) * 0.1).reshape(shape)


def medians(a, b):
    return np.median(a) + 2.0 * np.median(b)


def quantiles(a):
    return np.percentile(a, 30.0) + np.quantile(a, 0.9) - np.quantile(a, 0.0) \
        + np.percentile(a, 100.0)


def percentile_of(a, q):
    return np.percentile(a, q)


def along_axes_2d(a):
    return np.median(a, axis=0), np.median(a, 1, keepdims=True), \
        np.quantile(a, 0.3, axis=-1), np.percentile(a, 75.0, axis=(0, 1)), \
        np.quantile(a, 0.6, axis=0, keepdims=True), np.median(a, axis=None, keepdims=True)


def along_axes_3d(t):
    return np.median(t, axis=(0, 2), keepdims=True), np.quantile(t, 0.25, axis=(1, 2)), \
        np.percentile(t, 40.0, axis=-2), np.median(t, axis=(2, 0)), \
        np.quantile(t, 1.0, axis=(0, 1, 2), keepdims=True)


def interp_of(x, xp, fp):
    return np.interp(x, xp, fp) * 2.0


def interp_outside(xp, fp):
    return np.interp(-3.0, xp, fp) + np.interp(1e9, xp, fp) + np.interp(0.5, xp, fp)


def interp_ends(x, xp, fp):
    return np.interp(x, xp, fp, left=-5.0, right=fp[0] * 3.0)


def interp_ints(x):
    return np.interp(x, np.array([0, 2, 4]), np.array([1, -1, 3]))


XP, FP = np.array([0.0, 1.0, 2.5, 4.0, 6.0]), np.array([1.0, 3.0, -1.0, 2.0, 0.5])


def test_median_of_odd_and_even_lengths_and_of_a_matrix():
    check_function(medians, (distinct(7, 2), distinct((2, 4), 3)))


@pytest.mark.parametrize("n", [1, 2, 5, 10])
def test_percentile_and_quantile_interpolate_like_numpy(n):
    check_function(quantiles, (distinct(n, 3 + n),))


@pytest.mark.parametrize("shape", [(3, 4), (1, 1), (4, 1), (2, 5)])
def test_along_an_axis_with_keepdims(shape):
    a = distinct(shape, 11)
    check_function(along_axes_2d, (a,))
    check_function(along_axes_2d, (relayout(a, "negative")[0],))


@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 3, 1), (3, 1, 2)])
def test_along_tuples_of_axes_of_a_3d_array(shape):
    t = distinct(shape, 12)
    check_function(along_axes_3d, (t,))
    check_function(along_axes_3d, (relayout(t, "transposed")[0],))


def test_a_q_out_of_range_raises_valueerror_at_the_call():
    f = pyad.jit_grad(percentile_of)
    a = np.arange(5.0)
    assert f(a, 40.0) == np.percentile(a, 40.0)
    for q in (100.5, -0.5, float("nan")):
        with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\] "
                                             r"\(line \d+ of test_quantiles.py\)"):
            f(a, q)


@pytest.mark.parametrize("x", [0.3, 1.7, 2.2, 3.99])
def test_interp_between_the_knots(x):
    """Away from the knots (where the slope jumps) finite differences hold in x, xp, fp."""
    check_function(interp_of, (x, XP, FP))


def test_interp_outside_the_knots_takes_the_end_values():
    check_function(interp_outside, (XP[:3], FP[:3]))


@pytest.mark.parametrize("x", [np.array([-1.0, 0.3, 1.7, 5.5, 7.0]),
                               np.array([[0.3, 2.2], [3.99, -0.5]]), np.array([4.5])])
def test_interp_of_an_array_of_x(x):
    check_function(interp_of, (x, XP, FP))
    check_function(interp_of, (relayout(x, "strided")[0], XP, relayout(FP, "negative")[0]))
    check_function(interp_ends, (x, XP, FP))
    check_function(interp_ints, (x,))


def interp_periodic(x, xp, fp):
    return np.interp(x, xp, fp, period=360.0), np.interp(x * 0.01, xp * 0.01, fp,
                                                          period=-1.5, left=9.0)


def test_interp_with_a_period_takes_numpys_knots():
    """NumPy's example (knots given unsorted, beyond one period), x between knots and on
    them (check_function compares values bit for bit; gradients only off the knots)."""
    xp = np.array([190.0, -190.0, 350.0, -350.0])
    fp = np.array([5.0, 10.0, 3.0, 4.0])
    on = np.array([-180.0, -170.0, -185.0, 185.0, -10.0, -5.0, 0.0, 365.0, 10.0, 5.0])
    check_function(interp_periodic, (on, xp, fp), fd=False)
    check_function(interp_periodic, (on + 0.25, xp, fp))
    check_function(interp_periodic, (relayout(on + 0.5, "strided")[0], xp, fp))
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        pyad.jit_grad(interp_zero_period)(on)


def interp_zero_period(x):
    return np.interp(x, x, x, period=0.0)


def test_interp_with_one_knot_has_no_nan_gradient():
    """The segment formula is computed, not taken, where a zero-width segment would divide
    by zero: its zero gradient must not become nan."""
    check_function(interp_of, (np.array([-1.0, 0.5, 2.0]), np.array([0.5]), np.array([2.0])))
    check_function(interp_of, (np.array([np.inf, -np.inf, 0.5]), XP, FP), fd=False)


@pytest.mark.parametrize("src, message", [
    ("np.interp(x, x, x[0])", "np.interp takes 1-D arrays xp and fp"),
    ("np.interp(x, x[0], x[0], scale=2.0)", "unsupported keyword argument `scale`"),
    ("np.median(x, axis=(0, 0))", "duplicate value in axis"),
    ("np.median(x, axis=2)", "axis 2 is out of bounds"),
    ("np.percentile(x, x)", "np.percentile: q must be a number or a list of numbers"),
    ("np.quantile(x, 0.5, method='nearest')", "method='linear'"),
])
def test_what_is_not_supported_is_refused_at_the_call(src, message, tmp_path):
    assert_refused(tmp_path, "x", f"np.sum({src})", (np.ones((2, 3)),), message)


def _sorts(x, A):
    return (np.sort(x), np.argsort(x, kind="stable"), np.sort(A, axis=0),
            np.argsort(A, axis=1, kind="stable"), np.median(A, axis=0))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33])
def test_merge_sort_is_numpys_stable_sort(n):
    """sorting.py `order` is a bottom-up merge sort (it was an O(n^2) insertion sort): every
    length around the powers of two, with ties (equal elements keep their order)."""
    rng = np.random.default_rng(n)
    x = np.round(rng.normal(size=n) * 2.0)
    A = np.round(rng.normal(size=(max(n, 1), 3)), 0)
    got = pyad.jit_grad(_sorts)(x, A)
    for g, w in zip(got, _sorts(x, A)):
        np.testing.assert_array_equal(g, w)
