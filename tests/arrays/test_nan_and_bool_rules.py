"""NumPy's rules that pyad followed Python's for, found by probes comparing `fn(x)` with
`pyad.jit_grad(fn)(x)`: np.maximum and np.minimum with a nan in the second argument gave the
other one (Python's `max(a, b)` is `b if b > a else a`), np.max, np.min and their methods
skipped a nan (np.max(np.sqrt(x)) was 1.58 where NumPy gives nan), np.argmax and np.argmin did
not stop at the first nan, and `+` of bool arrays added them as ints (NumPy's is `or`: the
sum of (x > 0) + (x < 1) was 13.1 where NumPy gives 11.1). NumPy's `-` of bool arrays is an
error, and so is pyad's, at compile time."""
import warnings

import numpy as np
import pytest

import pyad
from tests.gradients import check_against_python

X = np.array([0.3, -1.2, 2.5, 0.7, -0.5, 1.6])   # np.sqrt: nan at 1 and 4


def maximum_nan_second(x):
    return np.maximum(0.5, np.sqrt(x))


def minimum_nan_second(x):
    return np.minimum(np.sqrt(x[::-1]), np.sqrt(x))


def clip_of_nan(x):
    return np.clip(np.sqrt(x), 0.6, 1.0)


def max_of_nan(x):
    return np.max(np.sqrt(x)) + np.min(np.sqrt(x))


def max_along_an_axis(x):
    return np.max(np.sqrt(x).reshape(2, 3), axis=1) + np.min(np.sqrt(x[::-1]).reshape(3, 2),
                                                             axis=0).sum()


def max_methods(x):
    y = np.sqrt(x)
    return y.max() + y[2:].min() + np.amax(y, initial=0.0)


def arg_of_nan(x):
    y = np.sqrt(x)
    return int(np.argmax(y)) * 10 + int(np.argmin(y[2:]))


def arg_along_an_axis(x):
    return np.argmax(np.sqrt(x).reshape(3, 2), axis=1) + np.argmin(np.sqrt(x).reshape(2, 3),
                                                                   axis=0).sum()


def python_max_keeps_its_rule(x):
    y = np.sqrt(x)
    return max(y[0], y[1]) + max(y[1], y[0]) + min(y[4], 0.2)


@pytest.mark.parametrize("fn", [maximum_nan_second, minimum_nan_second, clip_of_nan,
                                max_of_nan, max_along_an_axis, max_methods, arg_of_nan,
                                arg_along_an_axis, python_max_keeps_its_rule])
def test_nan_as_numpy_propagates_it(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = fn(X.copy())
    got = pyad.jit_grad(fn)(X.copy())
    np.testing.assert_array_equal(got, want)


Y = np.array([0.3, -1.2, 2.5, 0.7, -0.5, 1.6])


def maxima_without_nan(x):
    return np.sum(np.maximum(0.5, x) * np.minimum(x, 0.1)) + np.max(x) * np.min(x) + \
        np.sum(np.max(x.reshape(2, 3), axis=0)) + float(np.argmax(x) + np.argmin(x))


def fmax_ignores_nan(x):
    y = np.sqrt(np.abs(x)) * np.where(x > 0, 1.0, np.nan)
    return np.sum(np.fmax(y, 0.6) + np.fmin(0.4, y)) + np.nanmax(y) + np.nanmin(y)


def bool_plus_is_or(x):
    b = (x > 0) + (x < 1)
    return np.sum(b * x) + np.sum(b)


def bool_times_is_and(x):
    b = (x > 0) * (x < 1)
    return np.sum(b * x) + np.sum(b) + np.mean((x > 0) + True)


def bool_with_numbers(x):
    return np.sum(((x > 0) + 1) * x) + np.sum(np.add(x > 0, x < 2) * x) + \
        np.sum(((x > 0) ** (x < 1)) * x)


@pytest.mark.parametrize("fn", [maxima_without_nan, fmax_ignores_nan, bool_plus_is_or,
                                bool_times_is_and, bool_with_numbers])
def test_values_and_gradients(fn):
    check_against_python(fn, Y.copy())


def bool_difference(x):
    return np.sum(((x > 0) - (x < 1)) * x)


def bool_negated(x):
    return np.sum(-(x > 0) * x)


@pytest.mark.parametrize("fn, what", [(bool_difference, "subtract"), (bool_negated, "negate")])
def test_minus_of_bool_arrays_is_refused_as_numpy_raises(fn, what):
    with pytest.raises(TypeError):
        fn(Y.copy())
    with pytest.raises(pyad.PyadTypeError, match=f"NumPy does not {what} bool arrays") as info:
        pyad.jit_grad(fn)(Y.copy())
    assert info.value.line is not None and "logical_" in str(info.value)
