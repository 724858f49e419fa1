"""math.fmod (a row of the op table; its row is also in tests/ir/test_ops.py),
math.isclose (composed in frontend/ufuncs.py), math.trunc (the row of int()) and math.dist
(math.hypot of the differences, frontend/functions.py): values against CPython, gradients
against central finite differences, the interpreter and the pullback."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def remainder(x, y):
    return math.fmod(x, y) * x + math.fmod(3.5 * y, 1.3)


def remainders(x, y):
    return np.sum(np.fmod(x, y) ** 2 * np.fmod(x, 2.5))


@pytest.mark.parametrize("x, y", [(5.5, 2.0), (-5.5, 2.0), (5.5, -2.0), (-7.2, 2.5),
                                  (0.3, 0.7), (-0.3, 0.7)])
def test_fmod_of_numbers(x, y):
    check_against_python(remainder, x, y)
    assert pyad.jit_grad(remainder)(x, y) == remainder(x, y)


def test_fmod_of_arrays_and_a_zero_divisor():
    x, y = np.array([5.5, -3.2, 7.0, -0.25]), np.array([2.0, 1.5, -2.5, 0.75])
    check_against_python(remainders, x, y)
    f = pyad.jit_grad(remainder)
    assert math.isnan(f(1.0, 0.0))     # C's fmod (CPython raises ValueError)


def close_enough(x, y, rel, tol):
    return x * 2.0 if math.isclose(x, y, rel_tol=rel, abs_tol=tol) else y - x


def close_to_a_thousandth(x, y):
    return x * 2.0 if math.isclose(x, y, rel_tol=1e-3) else y - x


def close_default(x, y):
    return 1.0 if math.isclose(x, y) else 0.0


INF, NAN = math.inf, math.nan
PAIRS = [(1.0, 1.0), (1.0, 1.0 + 1e-10), (1.0, 1.0001), (0.0, 1e-300), (INF, INF),
         (INF, -INF), (NAN, NAN), (1e308, INF), (0.0, 0.4), (100.0, 100.09), (100.0, 100.2),
         (-0.0, 0.0), (-1.0, 1.0)]


def test_isclose_is_cpythons():
    f, g = pyad.jit_grad(close_enough), pyad.jit_grad(close_default)
    for x, y in PAIRS:
        for rel, tol in ((1e-9, 0.0), (1e-3, 0.0), (0.0, 0.5), (1e-3, 0.5)):
            want = close_enough(x, y, rel, tol)
            got = f(x, y, rel, tol)
            assert got == want or math.isnan(got) and math.isnan(want), (x, y, rel, tol)
        assert g(x, y) == close_default(x, y), (x, y)
    check_against_python(close_to_a_thousandth, 1.0, 1.0005)
    check_against_python(close_to_a_thousandth, 1.0, 1.5)


def test_isclose_negative_tolerance_raises_at_its_line():
    f = pyad.jit_grad(close_enough)
    line = close_enough.__code__.co_firstlineno + 1
    with pytest.raises(ValueError, match=rf"non-negative \(line {line} of "):
        f(1.0, 2.0, -1.0, 0.0)


def truncated(x, y):
    return math.trunc(x) * y + math.trunc(3) + math.trunc(True) * x


@pytest.mark.parametrize("x", [2.7, -2.7, 0.5, -0.5, 7.25])
def test_trunc_is_int(x):
    f = check_against_python(truncated, x, 1.5)
    assert isinstance(pyad.jit_grad(lambda a: math.trunc(a))(x), int)
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        f(math.nan, 1.0)


def distances(a, b):
    return math.dist([a, b], (1.0, 2.0)) + 2.0 * math.dist((a,), [b]) \
        + math.dist((a, b, 0.5), [b * b, 1.0, a])


@pytest.mark.parametrize("a, b", [(4.0, -1.5), (-0.3, 0.8), (2.5, 3.5)])
def test_dist_of_points(a, b):
    check_against_python(distances, a, b, rtol=4e-16)   # three numbers: hypot folded


def test_dist_at_equal_points_has_hypots_derivative_zero():
    f = pyad.jit_grad(lambda a, b: math.dist((a, b), (1.0, 2.0)), argnums="all")
    assert f(1.0, 2.0) == 0.0
    assert f.grad(1.0, 2.0) == (0.0, 0.0)


def test_dist_of_points_of_different_lengths_is_refused_at_the_call():
    def lopsided(a):
        return math.dist((a, a), (1.0,))
    with pytest.raises(pyad.PyadTypeError, match="same dimension") as e:
        pyad.jit_grad(lopsided)(1.0)
    assert "math.dist((a, a), (1.0,))" in str(e.value)
