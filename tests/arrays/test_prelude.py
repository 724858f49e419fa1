"""NumPy functions written in the compiled subset (pyad/frontend/prelude.py): np.polyval,
checked by the harness against NumPy's value, central finite differences, the IR interpreter
and the pullback (check_function). (np.median, np.percentile, np.quantile and np.interp:
test_quantiles.py.)"""
from __future__ import annotations

import numpy as np

import pyad

from .harness import check_function


def poly_sum(p, x):
    return np.sum(np.polyval(p, x))


def poly_scalar(p, t):
    return np.polyval(p, t) * 2.0


def poly_list(x):
    return np.sum(np.polyval([0.5, -1.0, 2.0, 3.0], x))


def test_polyval_of_arrays_numbers_and_lists():
    rng = np.random.default_rng(1)
    check_function(poly_sum, (rng.normal(size=4), rng.normal(size=5)))
    check_function(poly_sum, (rng.normal(size=1), rng.normal(size=(2, 3))))
    check_function(poly_scalar, (rng.normal(size=3), 0.7))
    check_function(poly_list, (rng.normal(size=6),))


def vander_and_nan_to_num(x):
    return (np.vander(x), np.vander(x, 3, increasing=True), np.vander(x, 2),
            np.nan_to_num(x / (x - 1.0)),
            np.nan_to_num(np.log(x * x), nan=-1.0, neginf=-5.0, posinf=7.0))


def test_vander_and_nan_to_num_are_numpy_bit_for_bit():
    x = np.array([0.0, 1.0, 2.5, -1.5])
    f = pyad.jit_grad(vander_and_nan_to_num)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = vander_and_nan_to_num(x)
    for got, w in zip(f(x), want):
        np.testing.assert_array_equal(got, w)


def vander_loss(x, c):
    return np.sum((np.vander(x, 4) @ c) ** 2) + np.sum(np.nan_to_num(x / (x - 1.0)) ** 2)


def test_vander_and_nan_to_num_gradients():
    from tests.gradients import check_against_python
    check_against_python(vander_loss, np.array([0.3, -0.7, 2.0, 0.0]),
                         np.array([0.5, -1.0, 0.25, 2.0]))
