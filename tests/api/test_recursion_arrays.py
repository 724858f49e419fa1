"""Recursion with array arguments and array results: arrays cross a native call by
reference (a view or a transpose as it is), results are new arrays, and the backward half of
a callee adds into the caller's shadows of its array arguments.

Each program's value is checked against CPython, its gradient against central finite
differences and the dot-product test, the IR interpreter and the pullback
(`check_against_python`), against forward-mode dual numbers run by CPython (the fuzz
tester's oracle, which shares nothing with pyad), and, where one is easy to write, against a
closed form.
"""
from __future__ import annotations

import inspect
import math
import sys

import numpy as np
import pytest

import pyad
from pyad import pipeline
from pyad.ir.nodes import callees_of

from ..fuzz.check import dual_gradient
from ..gradients import check_against_python

RNG = np.random.default_rng(16)


# =========================================================================== programs
def power(a, k):
    """Array in, array out."""
    if k == 0:
        return np.ones(a.shape[0])
    return a * power(a, k - 1)


def tree_sum(x, lo, hi):
    """Array in (read by index), number out: divide and conquer."""
    if hi - lo == 1:
        return x[lo] * x[lo]
    mid = (lo + hi) // 2
    return tree_sum(x, lo, mid) + tree_sum(x, mid, hi)


def brief_example(x):
    return np.sum(power(x, 3)) + tree_sum(x, 0, x.shape[0])


def sum_of_power(x, k):
    return np.sum(power(x, k))


def view_sum(x):
    """Array in as a view of shrinking slices; number out."""
    if x.shape[0] == 1:
        return math.sin(x[0])
    return x[0] * view_sum(x[1:])


def strided_and_reversed(x):
    return view_sum(x[::2]) + view_sum(x[::-1])


def mat_power(a, k):
    """2-D array in and out; called on a transpose."""
    if k == 0:
        return np.eye(a.shape[0])
    return a @ mat_power(a, k - 1)


def uses_mat_power(a):
    return np.sum(mat_power(a.T, 3) * a) + np.trace(mat_power(a, 0))


def split_norm(x, y, k):
    """Two arrays and a number in; a tuple of an array and a number out."""
    if k == 0:
        return x * y, np.dot(x, y)
    v, s = split_norm(np.tanh(x), y * 0.5, k - 1)
    return v + x, s * 0.9 + np.sum(v * v)


def uses_split_norm(x, y, s):
    v, t = split_norm(x * s, y, 3)
    return np.sum(v * x) + t * s


def scaled(a, k):
    """Array in, a new array out."""
    if k == 0:
        return a * 1.0
    return scaled(a, k - 1) * 0.5


def write_after_call(x):
    """The caller writes into the result and into the argument after the call."""
    a = x * 2.0
    r = scaled(a, 2)
    r[0] = 7.0
    s = np.sum(power(a, 2))
    a[1] = a[1] * 3.0          # after the call read a: the call sees the old values
    return np.sum(r * x) + s + np.sum(a * a) + r[0] * a[1]


def cube3(t, k):
    """3-D array in and out."""
    if k == 0:
        return np.cos(t)
    return np.sin(cube3(t, k - 1)) * t


def uses_cube3(t):
    return np.sum(cube3(t.T, 2))


def even_sum(x, n):
    """Mutual recursion with arrays: even_sum -> odd_sum -> even_sum."""
    if n == 0:
        return x * 0.0
    return odd_sum(x * 1.1, n - 1) + x


def odd_sum(x, n):
    if n == 0:
        return np.exp(x)
    return even_sum(np.cos(x), n - 1) * x


def uses_mutual(x, n):
    return np.sum(even_sum(x, n) ** 2)


def weighted(x, idx, k):
    """An int array next to a float array."""
    if k == 0:
        return x[idx[0]]
    return x[idx[k % idx.shape[0]]] * weighted(x, idx, k - 1) + 1.0


def uses_weighted(x, k):
    idx = np.array([2, 0, 1])
    return weighted(x, idx, k)


def unused_array(x, w, k):
    """An array argument whose value never reaches the result (inactive shadow)."""
    if k == 0:
        return x[0] * 1.0 + w[0] * 0.0
    return unused_array(x, w, k - 1) * 1.5


def uses_unused_array(x):
    return unused_array(x, np.ones(2), 3)


def in_a_loop(x, n):
    """Calls in a loop, one result unused: every forward half has its backward half."""
    s = 0.0
    for i in range(n):
        p = power(x, i)
        if i % 2 == 0:
            s += np.sum(p * x)
    return s


def deep_array(x, n):
    if n == 0:
        return x * 1.0
    return deep_array(x, n - 1) + 1e-3 * x


def calls_deep(x, n):
    return np.sum(deep_array(x, n))


# =========================================================================== values and gradients
def test_brief_example():
    x = np.array([0.5, 1.5, -2.0, 3.0])
    f = check_against_python(brief_example, x)
    g = f.grad(x)[0]
    np.testing.assert_allclose(g, 3 * x ** 2 + 2 * x, rtol=1e-14)


@pytest.mark.parametrize("k", [0, 1, 5])
def test_array_in_array_out(k):
    x = RNG.normal(size=5)
    f = check_against_python(sum_of_power, x, k)
    np.testing.assert_allclose(f.grad(x, k)[0], k * x ** (k - 1) if k else 0 * x,
                               rtol=1e-13)


def test_array_in_number_out_divide_and_conquer():
    x = RNG.normal(size=7)
    f = check_against_python(lambda_free_tree_sum, x)
    np.testing.assert_allclose(f.grad(x)[0], 2 * x, rtol=1e-14)


def lambda_free_tree_sum(x):
    return tree_sum(x, 0, x.shape[0])


def test_views_strides_and_negative_strides():
    check_against_python(strided_and_reversed, RNG.normal(size=9))
    x = np.linspace(0.1, 0.9, 12)[::3]   # a non-contiguous argument of the compiled function
    check_against_python(strided_and_reversed, x)


def test_matrix_power_of_a_transpose():
    a = RNG.normal(size=(3, 3)) * 0.5
    f = check_against_python(uses_mat_power, a)
    g = f.grad(a)[0]   # d/dA sum((A^T)^3 * A) by hand
    at = a.T
    m3 = at @ at @ at
    d = np.zeros_like(a)   # d sum(M3 * A) = sum over the three factors
    for j in range(3):
        left = np.linalg.matrix_power(at, j)
        right = np.linalg.matrix_power(at, 2 - j)
        d += (left.T @ a @ right.T).T
    np.testing.assert_allclose(g, d + m3, rtol=1e-12)


def test_arrays_in_tuples_of_results():
    x, y = RNG.normal(size=4), RNG.normal(size=4)
    check_against_python(uses_split_norm, x, y, 0.7)


def test_writes_after_the_call_into_its_argument_and_its_result():
    check_against_python(write_after_call, RNG.normal(size=3))


def test_three_dimensional_transposed():
    check_against_python(uses_cube3, RNG.normal(size=(2, 3, 2)))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_mutual_recursion_with_arrays(n):
    check_against_python(uses_mutual, RNG.normal(size=3) * 0.5, n)


def test_int_array_argument():
    check_against_python(uses_weighted, np.array([0.5, -1.2, 0.8]), 4)


def test_inactive_array_argument():
    x = RNG.normal(size=2)
    f = check_against_python(uses_unused_array, x)
    np.testing.assert_allclose(f.grad(x)[0], [1.5 ** 3, 0.0])


def test_calls_in_a_loop():
    check_against_python(in_a_loop, RNG.normal(size=3), 5)


def test_the_ir_calls_the_callee_with_arrays():
    func, _ = pipeline.primal_ir(brief_example, ("f64[1d]",))
    assert sorted(c.arg_types for c in callees_of(func)) == [("f64[1d]", "i64"),
                                                            ("f64[1d]", "i64", "i64")]
    g = pyad.jit_grad(brief_example).grad_ir(np.ones(2))
    assert "callfwd" in g and "callbwd" in g


# =========================================================================== limits and refusals
def test_depth_limit_with_arrays():
    f = pyad.jit_grad(calls_deep)
    limit = min(sys.getrecursionlimit(), 10_000)
    x = np.ones(2)
    assert f(x, 50) == pytest.approx(2 * 1.05)
    with pytest.raises(RecursionError, match=r"maximum recursion depth exceeded .* `deep_array`"):
        f(x, limit + 1)
    with pytest.raises(RecursionError):
        f.grad(x, limit + 1)
    with pytest.raises(RecursionError):
        f.pullback(x, limit + 1)
    np.testing.assert_allclose(f.grad(x, 10)[0], [1.01, 1.01])


def writes_argument(a, k):
    if k == 0:
        return 0.0
    a[0] = 1.0
    return writes_argument(a, k - 1)


def calls_writes_argument(x):
    return writes_argument(x.copy(), 2)


def test_write_into_an_array_argument_is_refused():
    f = pyad.jit_grad(calls_writes_argument)
    with pytest.raises(pyad.PyadError, match="cannot assign into argument array `a`: a "
                       "recursive function never modifies") as e:
        f(np.ones(3))
    assert e.value.line == writes_argument.__code__.co_firstlineno + 3
    assert "a = a.copy()" in str(e.value)


def identity_at_depth(a, k):
    if k == 0:
        return a
    return identity_at_depth(a, k - 1)


def tail_view(a, k):
    if k == 0:
        return a[1:].T
    return tail_view(a, k - 1) * 2.0


def calls_identity(x):
    return np.sum(identity_at_depth(x, 3))


def calls_tail_view(x):
    return np.sum(tail_view(x, 3))


def test_returning_an_argument_or_a_view_of_it_is_refused():
    for caller, fn in ((calls_identity, identity_at_depth), (calls_tail_view, tail_view)):
        f = pyad.jit_grad(caller)
        line = 2
        with pytest.raises(pyad.PyadTypeError, match=f"recursive function `{fn.__name__}` may "
                           "return its argument `a` or a view of it") as e:
            f(np.ones(3))
        assert e.value.line == fn.__code__.co_firstlineno + line
        assert "a.copy()" in str(e.value)


def takes_tuple(p, k):
    if k == 0:
        return p[0]
    return takes_tuple(p, k - 1)


def calls_takes_tuple(x):
    return takes_tuple((x, x), 2)


def test_tuple_argument_is_refused():
    f = pyad.jit_grad(calls_takes_tuple)
    with pytest.raises(pyad.PyadTypeError, match="recursive call to `takes_tuple` with a tuple "
                       "argument") as e:
        f(1.0)
    assert e.value.line == takes_tuple.__code__.co_firstlineno + 3
    assert "one by one" in str(e.value)


# =========================================================================== an independent oracle
DUAL_PROGRAMS = [
    ((power, tree_sum), brief_example, (np.array([0.5, 1.5, -2.0, 3.0]),)),
    ((power,), sum_of_power, (RNG.normal(size=4), 4)),
    ((view_sum,), strided_and_reversed, (RNG.normal(size=7),)),
    ((split_norm,), uses_split_norm, (RNG.normal(size=3), RNG.normal(size=3), 0.4)),
    ((even_sum, odd_sum), uses_mutual, (RNG.normal(size=3) * 0.5, 3)),
    ((cube3,), uses_cube3, (RNG.normal(size=(2, 2, 3)),)),
    ((scaled, power), write_after_call, (RNG.normal(size=3),)),
    ((power,), in_a_loop, (RNG.normal(size=2), 4)),
]


@pytest.mark.parametrize("helpers, entry, args", DUAL_PROGRAMS,
                         ids=[p[1].__name__ for p in DUAL_PROGRAMS])
def test_gradient_agrees_with_forward_mode_dual_numbers(helpers, entry, args):
    """The gradient against forward-mode dual numbers run by CPython (tests/fuzz/dual.py),
    which shares nothing with pyad."""
    source = "import math\nimport numpy as np\n\n" + "\n\n".join(
        inspect.getsource(fn) for fn in (*helpers, entry)) + f"\n\nf = {entry.__name__}\n"
    value, want = dual_gradient(source, args)
    f = pyad.jit_grad(entry, argnums="all")
    v, grads = f.value_and_grad(*args)
    assert v == pytest.approx(value, rel=1e-12)
    got = np.concatenate([np.ravel(g) for g, a in zip(grads, args)
                          if isinstance(a, (float, np.ndarray))])
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-13)
