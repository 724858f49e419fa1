"""NumPy functions written in the compiled subset (pyad/frontend/prelude.py): np.polyval,
checked by the harness against NumPy's value, central finite differences, the IR interpreter
and the pullback (check_function). (np.median, np.percentile, np.quantile and np.interp:
test_quantiles.py.)"""
from __future__ import annotations

import numpy as np
import pytest

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


def spaces(a, b):
    return (np.logspace(a, b, 7), np.logspace(a, b, 5, base=2.0),
            np.logspace(a, b, 4, endpoint=False, base=3.0), np.logspace(b, a, 1),
            np.geomspace(2.0 ** a, 2.0 ** b, 6), np.geomspace(-3.0, -7.0 * b, 5),
            np.geomspace(2.0, 3.0 * b, 4, endpoint=False), np.geomspace(a + 2.0, b, 1))


def test_logspace_and_geomspace_are_numpy_close_with_exact_ends():
    f = pyad.jit_grad(spaces)
    for a, b in ((0.0, 3.0), (-1.5, 2.25), (0.5, 0.5)):
        for got, want in zip(f(a, b), spaces(a, b)):
            # np.power differs from libm's pow in the last bit at some points
            np.testing.assert_allclose(got, want, rtol=4e-16, atol=0.0)
            assert got.shape == want.shape
        g = f(a, b)
        assert (g[4][0], g[4][-1], g[5][0], g[5][-1]) == (2.0 ** a, 2.0 ** b, -3.0, -7.0 * b)


def spaced_loss(a, b, x):
    return np.sum(np.logspace(a, b, 5) * x) + np.sum(np.geomspace(a, b, 5, endpoint=False) * x)


def test_logspace_and_geomspace_gradients():
    check_function(spaced_loss, (0.3, 1.7, np.linspace(-1.0, 1.0, 5)))


def zero_end(b):
    return np.sum(np.geomspace(0.0, b, 3))


def test_geomspace_of_zero_raises_at_the_users_line():
    f = pyad.jit_grad(zero_end)
    line = zero_end.__code__.co_firstlineno + 1
    with pytest.raises(ValueError, match=rf"cannot include zero \(line {line} of test_prelude.py\)"):
        f(2.0)


def stacked(x, y, m):
    return (np.column_stack((x, y)), np.column_stack([x, m, y]), np.column_stack((m,)),
            np.column_stack([x]))


def test_column_stack_of_tuples_and_lists_of_vectors_and_matrices():
    x, y, m = np.arange(3.0), np.array([0.5, -1.0, 2.0]), np.arange(6.0).reshape(3, 2)
    for got, want in zip(pyad.jit_grad(stacked)(x, y, m), stacked(x, y, m)):
        np.testing.assert_array_equal(got, want)
    check_function(lambda x, m: np.sum(np.column_stack([x, m * x[0], np.sin(x)]) ** 2),
                   (x, m))
