"""NumPy functions written in the compiled subset (pyad/frontend/prelude.py): np.polyval,
np.median, np.percentile, np.quantile. Each is checked by the harness against NumPy's value,
central finite differences, the IR interpreter and the pullback (check_function), on inputs
of odd and even length and with the interpolation landing between elements."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..modules import assert_refused
from .harness import check_function


def poly_sum(p, x):
    return np.sum(np.polyval(p, x))


def poly_scalar(p, t):
    return np.polyval(p, t) * 2.0


def poly_list(x):
    return np.sum(np.polyval([0.5, -1.0, 2.0, 3.0], x))


def medians(a, b):
    return np.median(a) + 2.0 * np.median(b)


def quantiles(a):
    return np.percentile(a, 30.0) + np.quantile(a, 0.9) - np.quantile(a, 0.0) \
        + np.percentile(a, 100.0)


def percentile_of(a, q):
    return np.percentile(a, q)


def interp_of(x, xp, fp):
    return np.interp(x, xp, fp) * 2.0


def interp_outside(xp, fp):
    return np.interp(-3.0, xp, fp) + np.interp(1e9, xp, fp) + np.interp(0.5, xp, fp)


def test_polyval_of_arrays_numbers_and_lists():
    rng = np.random.default_rng(1)
    check_function(poly_sum, (rng.normal(size=4), rng.normal(size=5)))
    check_function(poly_sum, (rng.normal(size=1), rng.normal(size=(2, 3))))
    check_function(poly_scalar, (rng.normal(size=3), 0.7))
    check_function(poly_list, (rng.normal(size=6),))


def test_median_of_odd_and_even_lengths_and_of_a_matrix():
    rng = np.random.default_rng(2)
    check_function(medians, (rng.permutation(7) + rng.normal(size=7) * 0.1,
                             rng.permutation(8).reshape(2, 4) + rng.normal(size=(2, 4)) * 0.1))


@pytest.mark.parametrize("n", [1, 2, 5, 10])
def test_percentile_and_quantile_interpolate_like_numpy(n):
    rng = np.random.default_rng(3 + n)
    check_function(quantiles, (rng.permutation(n) + rng.normal(size=n) * 0.1,))


def test_a_q_out_of_range_raises_valueerror_at_the_call():
    f = pyad.jit_grad(percentile_of)
    a = np.arange(5.0)
    assert f(a, 40.0) == np.percentile(a, 40.0)
    for q in (100.5, -0.5, float("nan")):
        with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\] "
                                             r"\(line \d+ of test_prelude.py\)"):
            f(a, q)


@pytest.mark.parametrize("x", [0.3, 1.7, 2.2, 3.99])
def test_interp_between_the_knots(x):
    """Away from the knots (where the slope jumps) finite differences hold in x, xp, fp."""
    xp, fp = np.array([0.0, 1.0, 2.5, 4.0, 6.0]), np.array([1.0, 3.0, -1.0, 2.0, 0.5])
    check_function(interp_of, (x, xp, fp))


def test_interp_outside_the_knots_takes_the_end_values():
    xp, fp = np.array([0.0, 1.0, 2.5]), np.array([1.0, 3.0, -1.0])
    check_function(interp_outside, (xp, fp))


@pytest.mark.parametrize("src, message", [
    ("np.interp(x, x[0], x[0])", "np.interp takes one number x here"),
    ("np.median(x, axis=0)", "np.median\\(\\): got an unexpected keyword argument 'axis'"),
    ("np.percentile(x, 50.0, axis=0)", "np.percentile takes an array and one number q"),
    ("np.quantile(x, x)", "np.quantile: q must be one number"),
])
def test_what_the_prelude_does_not_take_is_refused_at_the_call(src, message, tmp_path):
    assert_refused(tmp_path, "x", f"np.sum({src})", (np.ones((2, 3)),), message)
