"""Programs the differential tester (tests/fuzz) found to be compiled wrongly: silently wrong
gradients and internal errors. Each is checked against CPython (value), a gradient worked out
by hand from the program, and central finite differences."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


# ----------------------------------------------------------------------------- scratch-array refills

def fill_in_outer_loop(a):
    sc1 = np.zeros(4)
    s2 = 0.0
    for i in range(2):
        for j in range(4):
            sc1[j] = a[j] + i
        s2 = s2 + sc1[0] * sc1[1]
    return s2


def fill_then_overwrite_through_negative_index(a):
    s0 = 0.0
    sc7 = np.zeros(4)
    s8 = 0.0
    for i in range(1):
        for j in range(4):
            sc7[j] = a[j]
        s8 = sc7[0] * sc7[-1]
    s0 += s8
    t9, s0 = (s0, 0.5)
    t13 = t9
    sc7[-1] = 0.5
    return t13


def fill_read_by_a_later_statement_and_an_inner_loop(a):
    """The reads after a re-run fill: at the top of the trip, through a view, and in an
    inner loop, with the array overwritten after the loop."""
    sc = np.zeros(len(a))
    s = 0.0
    for i in range(3):
        for j in range(len(a)):
            sc[j] = a[j] * (i + 1.0)
        head = sc[:2]
        s = s * 0.5 + sc[-1] * head[1]
        for k in range(len(a)):
            s += sc[k] * sc[k - 1]
    sc[0] = 7.0
    return s + sc[0]


def test_a_fill_re_run_in_the_reverse_sweep_sees_the_outer_loop_variable():
    a = np.array([0.713, 0.848, -1.156, 0.403])
    f = check_against_python(fill_in_outer_loop, a)
    (g,) = f.grad(a)
    np.testing.assert_allclose(g, [2 * a[1] + 1, 2 * a[0] + 1, 0, 0], rtol=1e-13)


def test_values_read_after_a_fill_are_read_after_it_is_re_run():
    a = np.array([0.051, -0.934, -0.769, -0.012])
    f = check_against_python(fill_then_overwrite_through_negative_index, a)
    (g,) = f.grad(a)
    np.testing.assert_allclose(g, [a[3], 0, 0, a[0]], rtol=1e-13)


def test_re_run_fills_with_views_inner_loops_and_a_later_overwrite():
    check_against_python(fill_read_by_a_later_statement_and_an_inner_loop,
                         np.array([0.3, -1.2, 0.8, 0.45, -0.6]))


# ----------------------------------------------------------------------------- strong zeros

def exp_of_minus_inf(g):
    return math.exp(-math.inf / g) + g


def logistic_of_an_overflowed_exp(x):
    big = math.exp(1000.0 * x)   # inf at x = 2; 1 / (1 + inf) is 0, its derivative 0
    return 1.0 / (1.0 + big) + x


def test_a_zero_cotangent_gives_zero_even_through_infinite_partials():
    f = pyad.jit_grad(exp_of_minus_inf, argnums="all")
    assert f(0.5) == 0.5
    assert f.grad(0.5) == (1.0,)
    assert f.value_and_grad(0.5) == (0.5, (1.0,))


def test_no_nan_gradient_where_the_primal_is_finite():
    f = pyad.jit_grad(logistic_of_an_overflowed_exp, argnums="all")
    value, (g,) = f.value_and_grad(2.0)
    assert value == 2.0
    assert g == 1.0


# ----------------------------------------------------------------------------- inlined helpers

def h1(p):
    t1 = p
    return 0.64 * p


def calls_h1():
    t10 = 0.5
    t10 += h1(0.5)
    return 0.91


def h2(p, v):
    t1 = p
    return 0.87 * p


def calls_h2(x1, a):
    x1 += h2(0.5, a)
    return 0.52 + x1 * 0.0


def h3(p):
    t1 = p
    for i in range(1):
        p = 0.5
    return (0.5, 1.29)


def calls_h3():
    t10, t11 = h3(2.38)
    return 0.77


def h4(p, q, v):
    t1 = q
    k6 = 1.08 - q
    return 1.11


def calls_h4():
    w11 = 0.5
    t14 = h4(0.5, 0.5, w11)
    return 1.2


def copy_param_and_use_it(p, x):
    t = p
    s = p * x
    return t * s + p


def calls_with_constants(x):
    return copy_param_and_use_it(2.0, x) + copy_param_and_use_it(x, 3.0)


def pair(p):
    return (p, p)


def one_value_two_names(x):
    a, b = pair(2.0)
    c = d = x * 3.0
    return a * x + b + c * d


@pytest.mark.parametrize("fn", [calls_h1, calls_h3, calls_h4])
def test_helpers_copying_a_parameter_compile(fn):
    assert pyad.jit_grad(fn, argnums="all")() == fn()


def test_a_helper_copying_a_parameter_inside_an_augmented_assignment():
    f = check_against_python(calls_h2, 1.151, np.array([0.25, -1.0]))
    g_x, g_a = f.grad(1.151, np.array([0.25, -1.0]))
    assert g_x == 0.0 and not g_a.any()


def test_a_copied_parameter_keeps_its_gradient():
    f = check_against_python(calls_with_constants, 0.7)
    # d/dx [2*(2x) + 2 + x*(3x) + x] = 4 + 6x + 1
    assert f.grad(0.7)[0] == pytest.approx(4 + 6 * 0.7 + 1, rel=1e-14)


def test_one_value_bound_to_two_names():
    f = check_against_python(one_value_two_names, 1.5)
    assert f.grad(1.5)[0] == pytest.approx(2 + 18 * 1.5, rel=1e-14)
