"""Recursion: a function calling itself, directly or through helpers, becomes a native
function with its own forward and backward halves; the depth is limited (RecursionError,
never a native stack overflow).

Every gradient is checked three ways: central finite differences and a dot-product test
(pyad.check_grad), and the IR interpreter on the fused gradient IR.
"""
from __future__ import annotations

import math
import sys
import threading

import numpy as np
import pytest

import pyad
from pyad import pipeline
from pyad.ir.nodes import Callee, callees_of

from ..gradients import check_against_python


# =========================================================================== programs
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


def power(x, n):
    if n == 0:
        return 1.0
    h = power(x, n // 2)
    if n % 2 == 0:
        return h * h
    return x * h * h


def branching(x, k):
    """Two recursive calls per level, one with a changed float argument."""
    if k == 0:
        return math.sin(x)
    return math.cos(branching(x, k - 1)) * x + branching(x * 0.5, k - 1)


def uses_branching(x, k):
    return branching(x, k) * 2.0


def fib_pair(n, a, b):
    if n == 0:
        return a, b
    return fib_pair(n - 1, b, a + b)


def uses_fib_pair(a, b, n):
    u, v = fib_pair(n, a, b)
    return u * v


def is_even_weight(x, n):
    if n == 0:
        return x
    return 2.0 * is_odd_weight(x * x * 0.5, n - 1)


def is_odd_weight(x, n):
    if n == 0:
        return -x
    return math.exp(-x) + is_even_weight(x, n - 1)


def mutual(x, n):
    return is_even_weight(x, n)


def ping(x):
    return pong(x - 1.0) if x > 0 else x


def pong(x):
    return ping(x * 0.5)


def uses_ping(x):
    """Mutual recursion of float functions through a conditional expression."""
    return ping(x) * x


def with_loop(x, n):
    """A loop inside the recursive function: its tape nests inside the call's."""
    if n == 0:
        return x
    s = 0.0
    for i in range(n):
        s += math.sin(x * (i + 1))
    return s * with_loop(x * 0.9, n - 1)


def loop_of_calls(x, n):
    """Calls inside a loop, with the result of some calls unused by the gradient: every
    forward half still has its backward half (tape balance)."""
    s = 0.0
    for i in range(n):
        unused = power(x, i)
        if i % 2 == 0:
            s += power(x + s * 0.01, i) * 0.5
        else:
            s += unused * 0.0 + 1.0
    return s


def branch_skips_result(x, n):
    """A call in a branch whose result does not reach the output."""
    t = 0.0
    if n > 2:
        t = power(x, n)
    return x * 3.0 + t * 0.0


def local_array(x, n):
    """A recursive function using a local array."""
    if n == 0:
        return x
    a = np.zeros(3)
    for i in range(3):
        a[i] = x * (i + 1)
    return a[0] * a[2] + local_array(a[1] * 0.25, n - 1)


def int_and_float(x, n):
    """Int arguments and a float argument; an int result next to a float one."""
    if n <= 0:
        return 0, x
    k, y = int_and_float(x * 1.5, n - 1)
    return k + n, y + math.log(1.0 + x * x)


def uses_int_and_float(x, n):
    k, y = int_and_float(x, n)
    return y * k


def ackermann_like(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann_like(m - 1, 1)
    return ackermann_like(m - 1, ackermann_like(m, n - 1))


def divides(x, n):
    if n == 0:
        return 1.0 / x
    return divides(x - 1.0, n - 1)


def deep(x, n):
    if n == 0:
        return x
    return deep(x, n - 1) + 1e-3 * x


def takes_array(x, n):
    if n == 0:
        return x[0]
    return takes_array(x, n - 1)


def returns_array(x, n):
    if n == 0:
        return np.ones(2) * x
    return returns_array(x, n - 1)


def calls_takes_array(x):
    return takes_array(x, 3)


def calls_returns_array(x):
    return returns_array(x, 3)[0]


# =========================================================================== values and gradients
def test_int_recursion_stays_int():
    f = check_against_python(fact, 10)
    assert f(20) == math.factorial(20)
    assert f(0) == 1


def test_float_recursion_value_and_gradient():
    f = check_against_python(power, 1.1, 13)
    v, (g, gn) = f.value_and_grad(1.1, 13)
    assert g == pytest.approx(13 * 1.1 ** 12, rel=1e-12)
    assert gn is None
    for n in (0, 1, 2, 7, 64):
        assert f(0.97, n) == pytest.approx(0.97 ** n, rel=1e-12)


@pytest.mark.parametrize("k", [0, 1, 4])
def test_two_calls_per_level(k):
    check_against_python(uses_branching, 0.7, k)


def test_tuple_results():
    check_against_python(uses_fib_pair, 1.0, 2.0, 6)
    check_against_python(uses_fib_pair, 0.5, -1.5, 0)


def test_mutual_recursion():
    check_against_python(mutual, 0.8, 5)
    check_against_python(mutual, 0.8, 0)
    check_against_python(uses_ping, 5.5)
    check_against_python(uses_ping, -0.5)


def test_loop_inside_recursive_function():
    check_against_python(with_loop, 0.3, 4)


def test_calls_in_a_loop_and_unused_results():
    check_against_python(loop_of_calls, 1.02, 7)


def test_call_in_a_branch_whose_result_is_unused():
    check_against_python(branch_skips_result, 1.3, 4)
    check_against_python(branch_skips_result, 1.3, 1)


def test_local_array_in_recursive_function():
    check_against_python(local_array, 0.9, 3)


def test_int_and_float_results():
    check_against_python(uses_int_and_float, 0.4, 3)


def test_int_only_recursion_nested_calls():
    f = check_against_python(ackermann_like, 2, 3)
    assert f(2, 3) == 9


def test_pullback_of_recursive_function():
    f = pyad.jit_grad(power)
    y, back = f.pullback(2.0, 10)
    assert y == 1024.0
    assert back(1.0) == pytest.approx(10 * 2.0 ** 9)
    assert back(0.5) == pytest.approx(5 * 2.0 ** 9)  # a pullback can be called again


def test_interpreter_agrees_on_the_primal():
    f = pyad.jit_grad(uses_branching)
    func, _ = pipeline.primal_ir(uses_branching, ("f64", "i64"))
    from pyad.ir import interp
    assert interp.run(func, [0.3, 3])[0] == pytest.approx(f(0.3, 3), rel=1e-14)


# =========================================================================== IR
def test_ir_shows_the_callee_once():
    func, _ = pipeline.primal_ir(uses_branching, ("f64", "i64"))
    text = str(func)
    callees = callees_of(func)
    assert len(callees) == 1 and isinstance(callees[0], Callee)
    assert text.count(f"func @{callees[0].name}(") == 1
    assert "call %" in text and f"@{callees[0].name}" in text


def test_one_callee_per_argument_types():
    func, _ = pipeline.primal_ir(uses_int_and_float, ("f64", "i64"))
    assert [c.arg_types for c in callees_of(func)] == [("f64", "i64")]


# =========================================================================== depth limit and errors
def test_depth_limit_raises_recursion_error_in_every_entry_point():
    f = pyad.jit_grad(deep)
    limit = min(sys.getrecursionlimit(), 10_000)
    assert f(1.0, limit - 5) == pytest.approx(deep(1.0, 500) + (limit - 505) * 1e-3)
    with pytest.raises(RecursionError, match=r"maximum recursion depth exceeded .* `deep`"):
        f(1.0, limit + 1)
    with pytest.raises(RecursionError):
        f.grad(1.0, limit + 1)
    with pytest.raises(RecursionError):
        f.pullback(1.0, limit + 1)
    assert f.grad(1.0, 10) == pytest.approx(1.0 + 10e-3)  # still usable afterwards


def test_unbounded_recursion_in_a_thread_raises():
    f = pyad.jit_grad(fact)
    out = []

    def run():
        try:
            f(10 ** 9)
        except RecursionError as e:
            out.append(e)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert len(out) == 1


def test_error_inside_recursion_names_the_line():
    f = pyad.jit_grad(divides)
    assert f(5.0, 2) == pytest.approx(1 / 3.0)
    line = divides.__code__.co_firstlineno + 2
    with pytest.raises(ZeroDivisionError, match=f"line {line} of test_recursion.py"):
        f(2.0, 2)
    with pytest.raises(ZeroDivisionError, match=f"line {line}"):
        f.grad(2.0, 2)


def test_array_argument_and_array_result():
    """Formerly refused; tests/api/test_recursion_arrays.py has the full story."""
    check_against_python(calls_takes_array, np.array([0.5, 2.0, 3.0]))
    check_against_python(calls_returns_array, 1.5)


def unsupported_inside(x, n):
    if n == 0:
        return x
    return sum({x for _ in range(2)}) + unsupported_inside(x, n - 1)


def calls_unsupported_inside(x):
    return unsupported_inside(x, 2)


def test_unsupported_syntax_in_recursive_function_is_located_there():
    f = pyad.jit_grad(calls_unsupported_inside)
    with pytest.raises(pyad.PyadSyntaxError, match="set comprehension") as e:
        f(1.0)
    assert e.value.line == unsupported_inside.__code__.co_firstlineno + 3
