"""What a probe of 185 new functions written as people write them (2026-11-29) found in the
Python surface: a function made in a comprehension read the comprehension's variable from
the enclosing body when called after it (`k = 10.0; fs = [lambda t: t * k for k in (1.0,
2.0)]`: pyad used k = 10.0, CPython the comprehension's last k, 2.0: a silently wrong value)
or refused it as not defined. It now reads the value the comprehension left (CPython's
closure cell). Each value against CPython, each gradient against central differences and
the interpreter (check_against_python).

A second probe found `xs.pop() if a > 0 else 0.0` popping the list whether or not the branch
ran (a list of known length: a silently wrong value) or failing IR verification (a list of
run-time length): a list's `.pop()`, `.append()` or `.extend()` in a part of an expression
that may not run is now refused, located, with the `if` statement as the hint."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def shadowed_by_an_outer_name(x):
    k = 10.0
    fs = [lambda t: t * k for k in (1.0, 2.0)]
    return fs[0](x) + k


def late_binding(x):
    fs = [lambda t: t * k for k in (0.0, 1.0, 2.0)]
    s = 0.0
    for f in fs:
        s += f(x)
    return s


def called_inside(x):
    """Called while the comprehension runs: the current k, as in CPython."""
    return sum([(lambda t: t * k)(x) for k in (1.0, 2.0, 3.0)])


def two_loops(x):
    fs = [lambda t: t * j + i for i in (3.0, 4.0) for j in (1.0, 2.0)]
    return fs[0](x) + fs[3](x)


def default_binds_now(x):
    k = 10.0
    fs = [lambda t, k=k: t * k for k in (1.0, 2.0)]
    return fs[0](x) + k


def over_an_array(x):
    fs = [lambda t: t * v for v in (x[0], x[1])]
    return fs[0](x[2])


@pytest.mark.parametrize("fn", [shadowed_by_an_outer_name, late_binding, called_inside, two_loops,
                                default_binds_now], ids=lambda fn: fn.__name__)
def test_functions_made_in_a_comprehension_read_its_last_values(fn):
    check_against_python(fn, 0.7)


def test_a_closure_over_array_elements():
    check_against_python(over_an_array, np.array([0.5, -1.5, 2.0]))


def pop_in_a_branch(a, b):
    xs = [a, b, a * b]
    last = xs.pop() if a > 0 else 0.0
    return len(xs) + last + sum(xs)


def pop_after_and(a, b):
    xs = [a, b, a * b]
    ok = a > 0 and xs.pop() > 1.0
    return len(xs) + sum(xs) + ok


def append_after_and(x):
    xs = [v for v in x]
    t = x[0] > 0 and xs.append(10.0 * x[1])
    return len(xs) + sum(xs) + t


def pop_in_an_if_statement(a, b):
    xs = [a, b, a * b]
    if a > 0:
        xs.pop()
    return len(xs) + sum(xs)


@pytest.mark.parametrize("fn, args, call", [
    (pop_in_a_branch, (-1.0, 2.0), "pop"), (pop_after_and, (-1.0, 2.0), "pop"),
    (append_after_and, (np.array([1.0, 2.0]),), "append")],
    ids=lambda v: getattr(v, "__name__", None))
def test_a_list_changed_in_a_part_of_an_expression_that_may_not_run_is_refused(fn, args, call):
    with pytest.raises(pyad.PyadTypeError, match=rf"`\.{call}\(\)` of a list in a part of an "
                       "expression that may not run") as info:
        pyad.jit_grad(fn)(*args)
    assert info.value.line == fn.__code__.co_firstlineno + 2


def test_the_if_statement_spelling_runs():
    check_against_python(pop_in_an_if_statement, -1.0, 2.0)
    check_against_python(pop_in_an_if_statement, 1.5, 2.0)


def comprehension_in_a_branch(a, b):
    xs = [a, b, a * b]
    s = min([w * 0.75 for w in [t + a for t in xs]]) if len(xs) > 0 else 0.0
    return s + (sum([v * v for v in xs]) if a > 0 else 1.0)


def test_a_comprehension_in_a_branch_fills_its_own_list():
    """The lists a comprehension makes inside a part that may not run are made there: they
    are not refused (the random-idiom tests caught the first version of the refusal)."""
    check_against_python(comprehension_in_a_branch, -1.0, 2.0)
    check_against_python(comprehension_in_a_branch, 1.5, 2.0)


def weighted_reverse_sort(x):
    s = sorted(x, reverse=True)
    total = 0.0
    for k in range(len(s)):
        total += (k + 1.0) * s[k]
    return total


@pytest.mark.parametrize("x", [[1.0, 2.0, 1.0, 2.0], [3.0, 3.0, 3.0], [0.5, -1.0, 0.5, 2.0, -1.0]])
def test_sorted_in_reverse_passes_tied_gradients_in_cpythons_order(x):
    """CPython's reverse sort keeps equal items in their order: the k-th item of the
    result is the k-th of the permutation CPython's stable sort with reverse=True makes."""
    x = np.array(x)
    order = sorted(range(len(x)), key=lambda i: x[i], reverse=True)
    want = np.zeros(len(x))
    want[order] = np.arange(1.0, len(x) + 1.0)
    f = pyad.jit_grad(weighted_reverse_sort)
    assert f(x) == weighted_reverse_sort(list(x))
    assert np.array_equal(f.grad(x), want)


def float_power(x, y):
    return x ** y


@pytest.mark.parametrize("args", [(10.0, 309.0), (-10.0, 309.0), (1e200, 2.0), (0.5, -2000.0),
                                  (10.0, 308.0), (math.inf, 2.0), (10.0, -400.0)])
def test_a_float_power_that_overflows_is_inf_as_in_c(args):
    """CPython raises OverflowError where finite operands overflow; pyad gives C's and
    NumPy's inf (README, "Semantics decisions"), and CPython's value elsewhere."""
    try:
        want = float_power(*args)
    except OverflowError:
        want = math.copysign(math.inf, args[0]) if args[1] % 2 == 1 else math.inf
    assert pyad.jit_grad(float_power)(*args) == want


def pop_while_large(x):
    xs = [x, 2.0 * x, 3.0 * x]
    while xs and xs[-1] > 1.0:
        xs.pop()
    s = 0.0
    for v in xs:
        s += v
    return s + (1.0 if xs or x > 5.0 else 0.0)


def stack_of_run_time_length(x, n):
    st = []
    for i in range(n):
        st.append(x * i)
    t = 0.0
    while st and not (st[-1] < 0.5 and len(st) > 10):
        t += st.pop()
    return t if not st else t + 100.0


def truth_of_numbers(a, b):
    return a if a and b or not a else b


@pytest.mark.parametrize("fn, args", [
    (pop_while_large, (0.2,)), (pop_while_large, (0.4,)), (pop_while_large, (2.0,)),
    (pop_while_large, (6.0,)), (stack_of_run_time_length, (0.1, 20)),
    (stack_of_run_time_length, (0.1, 3)), (stack_of_run_time_length, (0.01, 40)),
    (truth_of_numbers, (0.0, 2.0)), (truth_of_numbers, (1.0, 2.0))])
def test_a_list_tests_as_in_cpython_inside_and_or_not_of_a_condition(fn, args):
    """`while xs and xs[-1] > 1.0` was refused: the value of `xs and ...` may be the list,
    but a test needs only its truth (a probe found it)."""
    check_against_python(fn, *args)


def int_math(n, k):
    return (math.factorial(n), math.comb(n, k), math.isqrt(n * 1000003 + k),
            math.gcd(n * 6, -k * 4))


def isqrt_of(n):
    return math.isqrt(n)


def taylor_exp(x, n):
    s = 0.0
    for k in range(n):
        s += x ** k / math.factorial(k)
    return s


@pytest.mark.parametrize("args", [(5, 2), (0, 0), (20, 7), (3, 5), (12, 0), (-1, 2), (21, 3),
                                  (10, -1), (1, 1)])
def test_maths_functions_of_ints_are_cpythons(args):
    """math.factorial, comb, isqrt and gcd were refused; CPython's values and ValueErrors,
    and OverflowError where the 64-bit result would not fit (21!)."""
    f = pyad.jit_grad(int_math)
    try:
        want = int_math(*args)
    except ValueError as e:
        with pytest.raises(ValueError, match=re.escape(str(e))):
            f(*args)
        return
    if max(want) >= 2 ** 63:
        with pytest.raises(OverflowError):
            f(*args)
        return
    assert f(*args) == want


@pytest.mark.parametrize("n", [0, 1, 2, 3, 15, 16, 17, 2 ** 52 + 1, 2 ** 62, 2 ** 63 - 1,
                               10 ** 18, 999999999999999999, 4503599761588224])
def test_isqrt_is_exact_to_the_largest_int(n):
    assert pyad.jit_grad(isqrt_of)(n) == math.isqrt(n)


def test_a_series_with_factorials_and_its_gradient():
    check_against_python(taylor_exp, 1.5, 15)


def branch_on_dtype(a):
    if a.dtype == np.float64:
        return np.sum(a)
    return 0.0


def test_dtype_outside_a_dtype_argument_says_where_it_works():
    with pytest.raises(pyad.PyadError, match="supported only as a dtype argument") as info:
        pyad.jit_grad(branch_on_dtype)(np.ones(3))
    assert info.value.line == branch_on_dtype.__code__.co_firstlineno + 1
    assert "np.zeros(n, dtype=a.dtype)" in str(info.value)
