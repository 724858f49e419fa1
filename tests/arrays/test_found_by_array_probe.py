"""What a probe of array-style NumPy code against JAX found (2026-11-28): values against NumPy,
gradients against central finite differences, the interpreter and the pullback (harness)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyad
from pyad.errors import PyadTypeError

from .harness import check_function

rng = np.random.default_rng(7)
INF = np.inf


def logaddexps(a, b):
    return np.logaddexp(a, b)


def test_logaddexp_of_equal_infinities_is_numpys():
    # was nan: m + log(exp(a - m) + exp(b - m)) with m = -inf gave -inf - -inf
    a = np.array([-INF, -INF, 0.0, INF, INF, 1.5, -INF, 2.0])
    b = np.array([-INF, 1.0, -INF, INF, 3.0, 1.5, INF, -1.0])
    f = pyad.jit_grad(logaddexps)
    np.testing.assert_array_equal(f(a, b), np.logaddexp(a, b))
    assert f(-INF, -INF) == -INF and f(2.5, 2.5) == np.logaddexp(2.5, 2.5)


def hmm_forward(log_b, log_pi, log_a):
    """A left-to-right HMM: impossible transitions are -inf in log_a."""
    alpha = log_pi + log_b[0]
    for t in range(1, log_b.shape[0]):
        m = alpha[:, None] + log_a
        alpha = np.logaddexp(m[0], np.logaddexp(m[1], m[2])) + log_b[t]
    return np.logaddexp.reduce(alpha)


def test_log_space_recursion_with_impossible_states():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log_pi = np.log(np.array([1.0, 0.0, 0.0]))
        log_a = np.log(np.array([[0.7, 0.3, 0.0], [0.0, 0.6, 0.4], [0.0, 0.0, 1.0]]))
    log_b = np.log(rng.uniform(0.1, 1.0, size=(4, 3)))
    f = pyad.jit_grad(hmm_forward)
    value, grad = f.value_and_grad(log_b, log_pi, log_a)
    assert np.isfinite(value) and np.all(np.isfinite(grad))
    check_function(lambda log_b: hmm_forward(log_b, log_pi, log_a), (log_b,))


def logaddexp_ties(x, y):
    return np.sum(np.logaddexp(x, y) * np.array([1.0, 2.0, 3.0]))


def test_logaddexp_gradient_is_half_each_way_at_ties():
    x = np.array([0.5, -1.0, 2.0])
    g = pyad.jit_grad(logaddexp_ties, argnums=(0, 1)).grad(x, x)
    np.testing.assert_array_equal(g[0], [0.5, 1.0, 1.5])
    np.testing.assert_array_equal(g[1], [0.5, 1.0, 1.5])
    check_function(logaddexp_ties, (x, x + np.array([0.25, -0.5, 1.0])))


def pairwise_energy(x, y):
    d = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :])
    return np.sum(d * d * d) + np.sum(d)


def test_hypot_at_zero_contributes_zero():
    # the diagonal of a distance matrix is hypot(0, 0): its nan partials made every gradient nan
    x, y = rng.normal(size=4), rng.normal(size=4)
    check_function(pairwise_energy, (x, y))
    assert pyad.jit_grad(lambda a, b: np.hypot(a, b), argnums=(0, 1)).grad(0.0, 0.0) == (0.0, 0.0)


def stacked_linalg(a):
    return np.linalg.pinv(a), np.linalg.matrix_rank(a), np.linalg.cond(a), \
        np.linalg.matrix_power(a, 3), np.linalg.cond(a, 1)


def test_stacks_of_matrices_give_one_result_per_matrix():
    # pinv, matrix_rank and cond of a 3-D stack were computed as if it were one matrix
    a = rng.normal(size=(3, 4, 4))
    got, want = pyad.jit_grad(stacked_linalg)(a), stacked_linalg(a)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    check_function(lambda a: np.sum(np.linalg.pinv(a) ** 2) + np.sum(np.linalg.cond(a)),
                   (a[:, :3, :],))


def degenerate(z, s):
    return np.linalg.pinv(z), np.linalg.matrix_rank(z), np.linalg.cond(s)


def test_empty_and_singular_matrices_are_numpys():
    z, s = np.zeros((0, 0)), np.zeros((2, 2))
    pinv, rank, cond = pyad.jit_grad(degenerate)(z, s)
    assert pinv.shape == (0, 0) and rank == 0 and cond == INF


@pytest.mark.parametrize("fn", [np.linalg.pinv, np.linalg.matrix_rank, np.linalg.cond],
                         ids=lambda fn: fn.__name__)
def test_a_stack_of_one_matrix(fn):
    a = rng.normal(size=(1, 3, 3))
    np.testing.assert_allclose(pyad.jit_grad(lambda a: fn(a))(a), fn(a), rtol=1e-10)


def rank_generic(x):
    w = np.arange(x.shape[0]).reshape((-1,) + (1,) * (x.ndim - 1))
    return np.sum(np.sum(w * x ** 2, axis=tuple(range(1, x.ndim)))) + \
        np.sum(np.sum(x, axis=()) * 0.5)


def test_rank_generic_idioms():
    # x.ndim arithmetic and tuple(range(...)) of known ints were refused; axis=() crashed
    for shape in ((3,), (3, 4), (2, 3, 2)):
        x = rng.normal(size=shape)
        check_function(rank_generic, (x,))


def reductions_over_no_axes(x, k):
    return (np.sum(x, axis=()), np.mean(x, axis=()), np.max(x, axis=()),
            np.prod(x, axis=(), keepdims=True), np.sum(k, axis=()), np.min(k, axis=()),
            np.mean(k, axis=(), keepdims=True))


def test_reductions_over_no_axes_are_numpys():
    x, k = np.array([[1.0, -0.0], [3.0, 4.5]]), np.array([1, 2, 3])
    for got, want in zip(pyad.jit_grad(reductions_over_no_axes)(x, k),
                         reductions_over_no_axes(x, k)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))   # 0 + -0.0


def forwarded_ord(x, p=None):
    return np.linalg.norm(x, p)


def norm_default_ord(x):
    return np.linalg.norm(x, ord=None) + forwarded_ord(x) + forwarded_ord(x, 1) + \
        np.sum(np.linalg.norm(x.reshape(2, -1), None, 1))


def test_norm_with_ord_none_spelled_out():
    check_function(norm_default_ord, (rng.normal(size=6),))


def empty_lanes(a, b):
    return np.argmax(a, axis=-1), np.logaddexp.reduce(a, axis=0), np.logaddexp.reduce(a, None), \
        np.logaddexp.reduce(b, axis=-1)


def test_reductions_of_lanes_with_no_elements_are_numpys():
    a, b = np.zeros((0, 3)), np.zeros((3, 0))
    for got, want in zip(pyad.jit_grad(empty_lanes)(a, b), empty_lanes(a, b)):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="argmax of an empty sequence"):
        pyad.jit_grad(lambda b: np.argmax(b, axis=-1))(b)


def squares(x):
    return np.sum(x ** 2)


def test_a_masked_array_argument_is_refused_naming_it():
    # its data alone was used: the mask was dropped silently (14.0 where NumPy gives 10.0)
    f = pyad.jit_grad(squares)
    x = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    for call in (f, f.grad, f.value_and_grad):
        with pytest.raises(TypeError, match="argument 'x' is a masked array"):
            call(x)
    f(np.ones(3))   # compiled: the native wrapper hands the masked array on to be refused
    with pytest.raises(TypeError, match="masked array"):
        f(x)


def empties(x):
    return (np.array([]), np.array([], dtype=int), np.array([], dtype=bool), np.array([[]]),
            np.array([[], []], dtype=int),
            np.sum(x[np.array([], dtype=int)]) + np.sum(x))


def test_empty_array_displays():
    for got, want in zip(pyad.jit_grad(empties)(np.ones(3)), empties(np.ones(3))):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def number_then_array(x):
    r = 0.0
    for i in range(x.shape[0]):
        r += x[i] * (i + 1)
    return np.sum(r ** 2)


def linspace_of_arrays(a, b):
    return np.sum(np.linspace(a, b, 3) ** 2)


def test_refusals_say_what_to_write():
    with pytest.raises(PyadTypeError, match="`r` is a number before the loop and becomes an "
                       r"array \(f64\[1d\]\)") as info:
        pyad.jit_grad(number_then_array)(np.ones((3, 4)))
    assert "np.zeros" in info.value.hint
    with pytest.raises(PyadTypeError, match="np.linspace takes numbers") as info:
        pyad.jit_grad(linspace_of_arrays)(np.zeros(2), np.ones(2))
    assert info.value.line == linspace_of_arrays.__code__.co_firstlineno + 1


def logaddexp2s(a, b):
    return np.logaddexp2(a, b)


def test_logaddexp2_is_numpys():
    a = np.array([-INF, -INF, 0.0, INF, INF, 1.5, -INF, 2.0, 3.0, -700.0])
    b = np.array([-INF, 1.0, -INF, INF, 3.0, 1.5, INF, -1.0, 3.5, -701.0])
    np.testing.assert_allclose(pyad.jit_grad(logaddexp2s)(a, b), np.logaddexp2(a, b),
                               rtol=1e-15)
    check_function(lambda a, b: np.sum(np.logaddexp2(a, b) * np.arange(1.0, 4.0)),
                   (np.array([0.5, -1.0, 2.0]), np.array([0.7, -1.0, -3.0])))


def dots_and_outers(x, m, s):
    return np.dot(s, x), np.dot(x, 2.0), np.dot(3, x), np.dot(s, 2.0), np.outer(m, x), \
        np.outer(m, m.T)


def test_dot_of_a_number_and_outer_of_matrices():
    x, m = np.arange(3.0), np.arange(4.0).reshape(2, 2)
    for got, want in zip(pyad.jit_grad(dots_and_outers)(x, m, 1.5), dots_and_outers(x, m, 1.5)):
        np.testing.assert_array_equal(got, want)
    check_function(lambda x, m, s: np.sum(np.outer(m, x) ** 2) + np.sum(np.dot(s, x)),
                   (x, m, 1.5))


def norm_distances(x):
    d = np.linalg.norm(x[:, None, :] - x[None, :, :], axis=-1)
    return np.sum(np.exp(-d)) + np.std(x[:, 0] * 0.0 + 1.0) + np.linalg.norm(x[0] - x[0])


def test_norm_and_std_at_zero_have_derivative_zero():
    # the zero diagonal of a distance matrix made every gradient nan (sqrt's derivative at 0)
    x = rng.normal(size=(4, 2))
    check_function(norm_distances, (x,))
    nan_in = pyad.jit_grad(lambda v: (np.linalg.norm(v), np.std(v)))(np.array([np.nan, 1.0]))
    assert all(np.isnan(v) for v in nan_in)   # the value is sqrt's: nan stays nan


def floor_divide_op(x, y):
    return x // y


def remainder_op(x, y):
    return x % y


def np_mod(x, y):
    return np.mod(x, y) + np.remainder(x, y) + np.floor_divide(x, y)


@pytest.mark.parametrize("fn", [floor_divide_op, remainder_op, np_mod],
                         ids=lambda fn: fn.__name__)
def test_float_divmod_of_arrays_by_zero_is_numpys(fn):
    """A probe of new functions (2026-11-29): `//` and `%` of float arrays by 0 raised
    ZeroDivisionError; NumPy gives x / 0 (inf or nan) for `//` and nan for `%`, as
    docs/arrays.md says pyad does. Elsewhere Python's rounding toward -inf, as before."""
    x = np.array([1.0, -2.0, 0.0, 7.5, -7.5, 3.0])
    y = np.array([0.0, 0.0, 0.0, -2.0, 2.0, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = fn(x, y)
    np.testing.assert_array_equal(pyad.jit_grad(fn)(x, y), want)


def power(x, y):
    return x ** y


def test_zero_to_minus_infinity_is_cpythons():
    """0.0 ** -inf is inf in CPython (only a finite negative power of 0.0 raises)."""
    f = pyad.jit_grad(power)
    assert f(0.0, -INF) == 0.0 ** -INF == INF
    with pytest.raises(ZeroDivisionError, match="0.0 cannot be raised to a negative power"):
        f(0.0, -1.5)


def inf_norm(x):
    return np.linalg.norm(x, ord=np.inf)


def test_the_infinity_norm_of_an_empty_vector_is_zero():
    """NumPy computes it as abs(x).max(initial=0): 0.0 for an empty vector (pyad raised
    ValueError); the gradient elsewhere is unchanged (the largest magnitude's sign)."""
    f = pyad.jit_grad(inf_norm)
    assert f(np.zeros(0)) == np.linalg.norm(np.zeros(0), ord=np.inf) == 0.0
    x = np.array([0.5, -2.0, 1.5])
    assert f(x) == 2.0 and np.array_equal(f.grad(x), [0.0, -1.0, 0.0])
    check_function(inf_norm, (x,))


def interp_knots(x, fp):
    return np.interp(x, np.array([0.0, 1.0, 2.0, 3.0]), fp)


@pytest.mark.parametrize("fp", [[0.0, INF, 2.0, 3.0], [0.0, -INF, 2.0, 3.0], [INF, INF, 2.0, 3.0],
                                [0.0, 1.0, np.nan, 3.0], [INF, 1.0, 2.0, -INF]])
def test_interp_with_infinite_or_nan_values_is_numpys(fp):
    """NumPy computes a segment whose formula gives nan (inf - inf) from its right end, or
    takes the knot's value at a knot; pyad gave nan (np.interp(1.1, [0, 1, 2], [0, inf, 2])
    is inf)."""
    fp = np.array(fp)
    x = np.array([0.5, 1.0, 1.1, 2.5, 0.0, 3.0, 2.0, -1.0, 4.0])
    np.testing.assert_array_equal(pyad.jit_grad(interp_knots)(x, fp), interp_knots(x, fp))


def stacked_triangles(A, w):
    return np.sum(np.tril(A, -1) * w + np.triu(A) * np.triu(A, 1))


def test_tril_and_triu_of_a_stack_of_matrices():
    """NumPy takes the last two axes of a stack; pyad refused anything but a matrix (found
    by a second probe, 2026-11-29)."""
    A = rng.normal(size=(2, 3, 4))
    np.testing.assert_array_equal(pyad.jit_grad(lambda A: np.tril(A, 1))(A), np.tril(A, 1))
    np.testing.assert_array_equal(pyad.jit_grad(lambda A: np.triu(A, -1))(A), np.triu(A, -1))
    check_function(stacked_triangles, (A, 1.5))


def test_tril_of_a_vector_is_refused_where_written():
    with pytest.raises(PyadTypeError, match="np.tril and np.triu take an array of 2 or more"):
        pyad.jit_grad(lambda v: np.sum(np.tril(v)))(np.ones(3))


def stacked_numbers(p, y):
    """The Lorenz right-hand side as JAX users write it: np.stack of numbers (0-D arrays
    for NumPy), np.hstack and np.vstack of them too."""
    a = np.stack([p[0] * (y[1] - y[0]), y[0] * (p[1] - y[2]) - y[1], y[0] * y[1] - p[2] * y[2]])
    b = np.hstack((y[0], 2.0 * y[1])) + np.stack([y[2], y[0]], axis=-1)
    return a * 2.0, b, np.vstack([y[0], y[2]]) * y[1]


def test_stacks_of_numbers_are_vectors():
    """np.stack([numbers]) was refused with "expected an array here" (a later survey
    found it in an RK4 spelling)."""
    check_function(stacked_numbers, (np.array([10.0, 28.0, 2.5]), np.array([1.0, 2.0, -3.0])))
