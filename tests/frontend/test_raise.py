"""The user's own `raise` and `assert` (pyad/frontend/raising.py): they raise the named
builtin exception with the message and the line, from every entry point and from the
interpreter; where they do not fire, values and gradients are those of the function without
them; what cannot be compiled is refused at its place.

PYTEST_DONT_REWRITE: pytest rewrites the `assert` statements of test modules, so the functions
compiled here would no longer be the code their source text compiles to (pyad refuses such a
function as "changed after it was defined")."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad
from pyad.api.check import interp_value_and_grad
from tests.gradients import assert_gradients


def _line_of(fn, text: str) -> int:
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _entry_points(f):
    return {"call": f, "grad": f.grad, "value_and_grad": f.value_and_grad,
            "pullback": f.pullback, "interpreter": lambda *a: interp_value_and_grad(f, *a)}


def checked_sqrt(v):
    if v < 0:
        raise ValueError(f"negative value {v}")
    return math.sqrt(v)


def sum_of_roots(x):
    s = 0.0
    for v in x:          # the raise is in a helper, inside a loop
        s += checked_sqrt(v)
    return s


def piecewise(x):
    if x > 1.0:
        return 2.0 * x
    elif x > 0.0:
        return x * x
    raise NotImplementedError("x <= 0")  # the last path ends in a raise: no return needed


def log_likelihood(x, scale):
    assert x.ndim == 1                       # decided when compiling
    assert np.all(x > 0), "x must be positive"
    assert scale > 0
    return np.sum(np.log(x / scale))


def nested_recursion(n, x):
    if n < 0:
        raise ValueError("n must not be negative")
    if n == 0:
        return x
    return math.sin(nested_recursion(n - 1, x))


def recursive(x, n):
    return nested_recursion(n, x)


def raise_in_while(x):
    it = 0
    while x > 1e-3:
        x = 0.5 * x
        it += 1
        if it > 20:
            raise RuntimeError("no convergence")
    return x


CASES = [
    (sum_of_roots, (np.array([1.0, 4.0, 2.0]),), (np.array([1.0, -4.0]),), ValueError,
     "negative value {v}", "raise ValueError"),
    (piecewise, (0.5,), (-1.0,), NotImplementedError, "x <= 0", "raise NotImplementedError"),
    (piecewise, (1.5,), (0.0,), NotImplementedError, "x <= 0", "raise NotImplementedError"),
    (log_likelihood, (np.array([1.0, 2.0]), 2.0), (np.array([1.0, -2.0]), 2.0),
     AssertionError, "x must be positive", "x must be positive"),
    (log_likelihood, (np.array([1.0, 2.0]), 2.0), (np.array([1.0, 2.0]), -1.0),
     AssertionError, "", "assert scale > 0"),
    (recursive, (0.5, 3), (0.5, -1), ValueError, "n must not be negative", "raise ValueError"),
    (raise_in_while, (0.7,), (1e9,), RuntimeError, "no convergence", "raise RuntimeError"),
]


@pytest.mark.parametrize("fn, good, bad, cls, message, where", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_raise_and_assert(fn, good, bad, cls, message, where):
    f = pyad.jit_grad(fn)
    assert f(*good) == fn(*good)
    assert_gradients(f, *good)
    with pytest.raises(cls):
        fn(*bad)                                   # CPython raises it too
    owner = nested_recursion if fn is recursive else checked_sqrt if fn is sum_of_roots else fn
    line = _line_of(owner, where)
    for name, call in _entry_points(f).items():
        with pytest.raises(cls) as info:
            call(*bad)
        text = str(info.value)
        if name == "interpreter":
            assert text == message, name
        else:
            assert text == f"{message} (line {line} of test_raise.py)".lstrip(), name


def test_code_after_a_raise_runs_only_on_the_paths_that_did_not_raise():
    def f(x, k):
        y = np.zeros(3)
        if k > 2:
            raise IndexError("k is too large")
        y[k] = x              # would write out of bounds when k > 2
        return np.sum(y * y)
    jf = pyad.jit_grad(f)
    assert jf.value_and_grad(1.5, 1) == (2.25, 3.0)
    with pytest.raises(IndexError, match="k is too large"):
        jf.value_and_grad(1.5, 7)


def test_raise_without_a_call_and_from():
    def f(x):
        if x < 0:
            raise ZeroDivisionError
        if x > 10:
            raise ValueError("too large") from None
        return x * 3.0
    jf = pyad.jit_grad(f)
    assert jf.grad(2.0) == 3.0
    with pytest.raises(ZeroDivisionError, match=r"^\(line"):
        jf(-1.0)
    with pytest.raises(ValueError, match="too large"):
        jf.grad(11.0)


class NotPositive(ValueError):
    pass


def _refused(fn, match, hint=None):
    with pytest.raises(pyad.PyadError) as info:
        pyad.jit_grad(fn)(1.0)
    assert info.value.line == _line_of(fn, "raise") and match in str(info.value)
    if hint:
        assert hint in str(info.value)


def test_refusals_are_located():
    def own_class(x):
        if x > 0:
            raise NotPositive("x")
        return x

    def bare(x):
        if x > 0:
            raise
        return x

    def two_arguments(x):
        if x > 0:
            raise ValueError("x", 3)
        return x

    def memory(x):
        if x > 0:
            raise MemoryError("x")
        return x

    def not_a_class(x):
        if x > 0:
            raise len
        return x

    _refused(own_class, "cannot raise `NotPositive`", "raise ValueError (a base class")
    _refused(bare, "bare `raise`")
    _refused(two_arguments, "takes one message")
    _refused(memory, "cannot raise `MemoryError`")
    _refused(not_a_class, "needs an exception class")


def test_every_raisable_class_is_an_error_kind_of_native_code():
    """raising.RAISABLE names classes the code generator must find in abi.ERROR_KINDS (a
    missing one would be an internal error at the raise, not the user's exception)."""
    from pyad.codegen import abi
    from pyad.frontend import raising
    assert set(raising.RAISABLE) <= set(abi.ERROR_KINDS)
    assert not {"MemoryError", "RecursionError"} & set(raising.RAISABLE)
