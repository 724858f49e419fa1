"""What a probe of 138 ordinary objective functions (statistics, physics, finance, Python
idioms) found refused or answered differently from CPython, one test each: `axis=None`
reaching a reduction through a helper's default or a variable, a list comprehension
unpacked into names, an int to a negative literal power, the builtin `abs` of an array, and
the hints of the refusals that stay."""
import math

import numpy as np
import pytest
from scipy.special import expit, logsumexp

import pyad
from ..gradients import check_against_python

X = np.array([0.3, -1.2, 2.0])
M = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


# --------------------------------------------------------------- constant axes through names

def _logsumexp(a, axis=None):
    m = np.max(a, axis=axis, keepdims=True)
    return np.sum(m + np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)), axis=axis)


def lse_default_axis(x):
    return _logsumexp(x) + np.sum(_logsumexp(M * x, axis=1) ** 2)


def axes_in_variables(a):
    everything = None
    rows = (0,)
    both = (1, 0)
    return np.sum(np.mean(a, axis=everything)) + np.sum(np.sum(a * a, axis=rows) ** 2) + \
        np.max(a, axis=both)


def test_axis_none_and_tuples_reach_reductions_through_names():
    check_against_python(lse_default_axis, X)
    check_against_python(axes_in_variables, M)


# --------------------------------------------------------------- unpacking a comprehension

def unpack_comprehension(x):
    a, b, c = [math.exp(v) for v in x]
    return a + b * c


def test_a_list_comprehension_unpacks_into_names():
    check_against_python(unpack_comprehension, X)
    with pytest.raises(ValueError, match=r"too many values to unpack \(expected 3\) \(line"):
        pyad.jit_grad(unpack_comprehension)(np.ones(4))
    with pytest.raises(ValueError, match="not enough values to unpack"):
        pyad.jit_grad(unpack_comprehension)(np.ones(2))


# --------------------------------------------------------------- int ** negative literal

def negative_literal_powers(x):
    n = 3
    m = -2
    return x * 10 ** -n + x * 2 ** m + 3 ** 2 + (-2) ** 3


def runtime_negative_power(x, n):
    return x * 2 ** -n


def test_an_int_to_a_negative_literal_power_is_a_float_as_in_python():
    f = check_against_python(negative_literal_powers, 1.5)
    assert f(1.5) == negative_literal_powers(1.5)
    # a run-time exponent keeps the int type pyad gives int ** int: negative ones raise
    with pytest.raises(ValueError, match="negative integer exponent"):
        pyad.jit_grad(runtime_negative_power)(1.0, 3)


# --------------------------------------------------------------- builtin abs of an array

def builtin_abs(x):
    return np.sum(abs(x - 2.0)) + sum(abs(x)) + float(np.max(abs(M)))


def test_builtin_abs_of_an_array_is_np_abs():
    check_against_python(builtin_abs, X)


# --------------------------------------------------------------- refusals and their hints

def scipy_special(x):
    return logsumexp(x) + np.sum(expit(x))


def test_scipy_special_compiles():
    """Refused once (with a hint); pyad/frontend/special.py now has these."""
    check_against_python(scipy_special, X)


def type_test(x):
    return 1.0 if isinstance(x, float) else 0.0


def bincount(x):
    return np.sum(np.bincount(np.array([0, 1, 1])) * x[:2])


@pytest.mark.parametrize("fn, message, hint", [
    (type_test, "call to unsupported function `isinstance`", "types are fixed when compiling"),
    (bincount, "unsupported numpy function `np.bincount`", "np.add.at(counts, x, 1)"),
], ids=lambda v: v.__name__ if callable(v) else None)
def test_refusals_say_what_to_write(fn, message, hint):
    with pytest.raises(pyad.PyadError) as info:
        pyad.jit_grad(fn)(X)
    text = str(info.value)
    assert message in text and hint in text and "test_found_by_probe.py" in text


# --------------------------------------------------------------- strings, compile-time values

def _loss(p, t, reduction="mean"):
    d = (p - t) ** 2
    if reduction == "mean":
        return np.mean(d)
    elif reduction in ("sum", "total"):
        return np.sum(d)
    return d


def _activation(z, kind):
    return np.tanh(z) if kind == "tanh" else np.maximum(z, 0.0)


def string_options(x):
    mode = "same"
    total = _loss(x, 1.0) + _loss(x, 0.5, "sum") + np.sum(_loss(x, 2.0, reduction="none"))
    for kind in ("tanh", "relu"):
        total += np.sum(_activation(x, kind))
    return total + np.sum(np.convolve(x, x, mode=mode)) + np.linalg.norm(np.outer(x, x), "fro")


def test_strings_are_compile_time_values():
    """A helper's string default, a string argument, a name bound to a string: each is
    known when compiling, so `==` and `in` on them pick the branch then (the branches not
    taken are not compiled), and NumPy functions read them as literals."""
    check_against_python(string_options, X)


def string_as_number(x):
    return x + "a"


def string_chosen_at_run_time(x):
    s = "a"
    if x > 0:
        s = "b"
    return x if s == "a" else -x


@pytest.mark.parametrize("fn, message", [
    (string_as_number, "a string cannot be used as a number here"),
    (string_chosen_at_run_time, "`s` is a different string (or a string and another value)"),
], ids=lambda v: v.__name__ if callable(v) else None)
def test_strings_used_as_run_time_values_are_refused(fn, message):
    with pytest.raises(pyad.PyadError, match=message.replace("(", r"\(").replace(")", r"\)")):
        pyad.jit_grad(fn)(1.0)


NAMES = ("w", "b")
MODE = "sum"


def sgd_step_over_names(params, x):
    """Dict keys and options held in names: a module's tuple of key names, a global string,
    a local name bound to a key."""
    p = dict(params)
    g = {"w": x * 2.0, "b": 1.0}
    for name in NAMES:
        p[name] = p[name] - 0.1 * g[name]
    key = "w"
    r = np.sum(p[key] ** 2) if MODE == "sum" else np.mean(p[key])
    return r + p["b"] ** 2


def test_dict_keys_and_options_in_names():
    check_against_python(sgd_step_over_names, {"w": np.array([1.0, 2.0]), "b": 0.5}, X[:2])
