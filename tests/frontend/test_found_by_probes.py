"""Silent differences from CPython that probes comparing `fn(x)` with `pyad.jit_grad(fn)(x)`
found, one test each with the spellings around it: a helper's positional-only and
keyword-only parameters were bound to the wrong arguments (a positional-only one nobody
read gave its value to the next parameter: 0.6 where CPython gives -2.4), and the constant
-0.0 became 0.0 when the constant 0.0 was also in the function (common-subexpression
elimination compared 0.0 == -0.0)."""
import math

import numpy as np
import pytest

from ..gradients import check_against_python

X = np.array([0.3, -1.2, 2.5, 0.7, -0.5, 1.6])


# ----------------------------------------------------------------------- parameter kinds

def _unused_first(u, /, c):
    return c * 2.0


def positional_only_unread(x):
    return _unused_first(x[0], x[1])


def _positional_only(a, b, /, c):
    return a - 2.0 * b + 3.0 * c


def positional_only(x):
    return _positional_only(x[0], x[1], x[2]) + _positional_only(x[0], x[1], c=x[3])


def _keyword_only(a, *, c, d=4.0):
    return a - 2.0 * c + d


def keyword_only(x):
    return _keyword_only(x[0], c=x[1]) + _keyword_only(x[1], d=x[2], c=x[3])


def _mixed(a, /, b=0.5, *, c=2.0):
    return a * b + c


def all_three_kinds(x):
    return _mixed(x[0]) + _mixed(x[1], x[2]) + _mixed(x[3], c=x[4]) + _mixed(x[5], b=3.0)


def _halving_count(n, t, /):
    if n == 0:
        return t
    return _halving_count(n - 1, t * 1.5)


def recursive_positional_only(x):
    return _halving_count(2, x[0])


def _scaled_steps(t, *, n):
    if n == 0:
        return t
    return _scaled_steps(t * 1.5, n=n - 1) + 1.0


def recursive_keyword_only(x):
    return _scaled_steps(x[0], n=2)


@pytest.mark.parametrize("fn", [positional_only_unread, positional_only, keyword_only,
                                all_three_kinds, recursive_positional_only,
                                recursive_keyword_only])
def test_positional_only_and_keyword_only_parameters_of_helpers(fn):
    check_against_python(fn, X.copy())


# ----------------------------------------------------------------------- signed zeros

def negative_zero_times(x):
    return math.copysign(1.0, -0.0 * x) + math.copysign(1.0, 0.0 * x)


def negative_zero_named(x):
    z = -0.0
    return np.copysign(1.0, z * x) + 1.0 / (0.0 * x + 1.0)


def negative_zero_branch_cut(x):
    return math.atan2(-0.0 * x, -1.0) + 2.0 * math.atan2(0.0 * x, -1.0)


@pytest.mark.parametrize("fn", [negative_zero_times, negative_zero_named,
                                negative_zero_branch_cut])
def test_negative_zero_is_not_zero(fn):
    check_against_python(fn, 0.73)
