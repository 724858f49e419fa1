"""NumPy functions composed from whole-array operations (pyad/frontend/numpyfuncs.py) and
`np.prod`: values against NumPy, gradients by the differential harness; `np.logaddexp`'s
derivative at a tie; located refusals."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..modules import assert_refused
from .harness import check_function

rng = np.random.default_rng(9)


def statistics(a, v):
    return np.var(a), np.std(a, axis=0), np.var(a, axis=1, keepdims=True, ddof=1), \
        np.std(v), a.var(axis=(0, 1)), np.mean(a, axis=-1)


def products(a, v):
    return np.prod(v), np.prod(a, axis=1), a.prod(axis=0, keepdims=True), \
        np.prod(np.array([2, 3, 4]))


def scans(a, v):
    return np.cumsum(v), np.cumsum(a, axis=0), np.cumprod(v), np.cumprod(a, axis=1), \
        a.cumsum(axis=1)


def differences(a, v):
    return np.diff(v), np.diff(a), np.diff(a, axis=0), np.diff(v, 2), np.diff(v, n=0)


def elementwise(a, v):
    return np.clip(v, -0.5, 0.5), np.clip(a, v[:4], 1.0), np.logaddexp(v, v[::-1]), \
        np.logaddexp(a, 0.3), np.roll(v, 2), np.roll(v, -7), np.roll(a, 1, axis=0)


def matrix(a, v):
    return np.trace(a[:, :3]) + np.inner(v, v) + np.trace(a @ a.T)


def shapes(a, v):
    return a.reshape(2, 6), np.reshape(a, (-1, 4)), a.reshape(12) * 2.0, np.ravel(a.T), \
        a.flatten()[::2] * v[0], a[:, 1:].reshape(3, 3) @ v[:3]


def positions(a, v):
    return np.argmax(a), np.argmin(v), np.argmax(a, axis=1), np.argmin(a, axis=0), \
        v.argmax() + a.argmin(axis=-1), np.argmax(np.array([1.0, 3.0, 3.0, 2.0]))


def norms(a, v):
    return np.linalg.norm(a, axis=1), np.linalg.norm(v), np.linalg.norm(a), \
        np.linalg.norm(v, 1), np.linalg.norm(v, ord=np.inf), \
        np.linalg.norm(a, axis=0, keepdims=True), np.linalg.norm(a, ord=2, axis=-1)


A = rng.normal(size=(3, 4))
V = rng.normal(size=5)


def sorting(a, v):
    s = np.sort(v)
    probes = np.array([-5.0, 0.0123, 0.5, 9.0])
    return s, np.argsort(v), np.sort(v * v)[::-1], np.searchsorted(s, probes), \
        np.searchsorted(s, probes, side="right"), np.searchsorted(np.arange(10), 3.5), \
        np.sum(s[:3] * np.arange(3)) + a[0, 0]


def norms_by_ord(a, v):
    """NumPy's vector and matrix norms (a matrix's 1 and inf norms are the largest column
    and row sums of magnitudes, not those of the elements)."""
    t = np.stack([a, a * a - 1.0])
    return (np.linalg.norm(a, np.inf), np.linalg.norm(a, 1), np.linalg.norm(a, -1),
            np.linalg.norm(a, -np.inf), np.linalg.norm(a, "fro"), np.linalg.norm(t),
            np.linalg.norm(v, 3), np.linalg.norm(v, 0.5), np.linalg.norm(v, -np.inf),
            np.linalg.norm(v, 0), np.linalg.norm(a, 1, axis=1),
            np.linalg.norm(t, np.inf, axis=(2, 1)),
            np.linalg.norm(t, 1, axis=(0, 2), keepdims=True),
            np.linalg.norm(a, ord=np.inf, axis=0, keepdims=True), np.linalg.norm(t, axis=(1, 2)))


def logic_and_small_functions(a, v):
    t = np.stack([a, -a])
    w = np.where(np.logical_and(a > -0.5, np.logical_not(a > 0.5)), a, 0.0)
    flags = np.logical_or(a > 1.0, a < -1.0) * 1.0 + np.logical_xor(a > 0, v[:4] > 0) * 2.0
    q = np.array([1.0, np.inf, -np.inf, np.nan])
    return (w, flags, np.isnan(q), np.isinf(q), np.isfinite(q), np.isfinite(a).all(),
            np.any(a > 1.0), np.all(a > -5.0, axis=0), np.any(t > 1.5, axis=(0, 2),
                                                            keepdims=True),
            np.count_nonzero(a > 0), np.count_nonzero(t > 0, axis=1), (a > 0).any(),
            np.square(a) + np.square(v[:4]), np.mod(a, 0.7) + np.remainder(-a, 0.3),
            np.flip(a) * a, np.flip(t, axis=1) + np.flip(t, (0, 2)), np.fliplr(a) * 2.0,
            np.flipud(a) - a, np.all(np.zeros(0) > 1.0), np.any(np.zeros(0) > 1.0))


def list_indices(a, v):
    """Python lists as index arrays (fancy indexing, np.take)."""
    b = a.copy()
    b[[0, 2], [1, 1]] = 5.0
    return np.take(v, [0, 2, 4]), np.take(a, [1, 0], axis=1), a[[0, 2]][:, [1, 3]], \
        a[[0, 1], [2, 3]], v[[-1, 0]] * 2.0, b


def compositions(a, v):
    t = np.stack([a, a * a])
    X, Y = np.meshgrid(v, v[:3])
    P, Q, R = np.meshgrid(v[:2], v[:3], v[:4], indexing="ij")
    return (np.average(a), np.average(a, axis=1),
            np.average(a, axis=0, weights=np.arange(1.0, 4.0)),
            np.average(t, weights=t * t + 1.0, axis=(0, 2)), np.ptp(a),
            np.ptp(t, axis=1, keepdims=True), np.vdot(a, a.T), np.cross(a[:, :3], a[:, 1:]),
            np.cross(v[:3], a[:, 1:]), X * Y, P + 2.0 * Q - R, np.tile(v, 3), np.tile(a, 2),
            np.repeat(v, 2), np.repeat(a, 3, axis=0), np.repeat(t, 2, axis=-1))


def small_elementwise(a, v):
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.25, 1.005, 0.49999999999999994,
                       -0.49999999999999994, 4503599627370497.0, -4503599627370497.0,
                       2.0 ** 53 - 1.0, 1e300, -0.0])   # floor(x + 0.5) got the middle four wrong
    return (np.reciprocal(a + 3.0), np.negative(a), np.positive(a), np.exp2(a),
            np.deg2rad(a) + np.radians(v[:4]), np.rad2deg(a) + np.degrees(v[:4]),
            np.trunc(a * 3.0), np.fix(-a * 3.0), np.rint(halves), np.round(halves),
            np.round(a, 2), np.around(a * 100.0, -1), a.round(1), np.sinc(a),
            np.sinc(np.zeros(2)))


def permutations(a, v):
    t = np.stack([a, a * a - 1.0])                       # (2, 3, 4)
    return (np.transpose(t, (1, 0, 2)) * 2.0, t.transpose(2, 0, 1) ** 2,
            np.swapaxes(t, 0, 2), np.moveaxis(t, 0, -1), np.transpose(a), a.transpose(),
            t.transpose((0, 2, 1)), np.transpose(t, axes=(2, 1, 0)) + t.T, a.swapaxes(0, 1))


def dots_of_stacks(a, v):
    s = np.stack([a, a * a, 2.0 * a])                      # (3, 3, 4)
    t = np.stack([a.T, np.ones((4, 3)) - a.T])             # (2, 4, 3)
    return np.dot(s, v[:4]), np.dot(s, a.T), np.dot(a, t), np.dot(v[:3], s), \
        np.dot(v[:4], t) * 2.0


def sorting_axes(a, v):
    c = a.copy()
    c.sort(axis=0)
    d = a.copy()
    d.fill(0.5)
    c += d * a
    w = np.sort(a, axis=0) * np.arange(12.0).reshape(3, 4)
    return w, np.sort(a), np.argsort(a, axis=0), np.argsort(a.T, 1, kind="stable"), c, \
        np.sort(np.stack([a, a * a]), axis=1)[1, 0] + np.sort(v, axis=-1)[:4]


@pytest.mark.parametrize("fn", [statistics, products, scans, differences, elementwise,
                                matrix, shapes, positions, norms, sorting, sorting_axes,
                                dots_of_stacks, norms_by_ord, logic_and_small_functions,
                                permutations, list_indices, compositions,
                                small_elementwise],
                         ids=lambda f: f.__name__)
def test_values_and_gradients(fn):
    check_function(fn, (A, V))


def logaddexp_sum(x, y):
    return np.sum(np.logaddexp(x, y))


def test_argsort_is_stable_and_empty_arrays_sort():
    f = pyad.jit_grad(sorting)
    ties = np.array([2.0, 1.0, 2.0, 1.0, 0.5])
    np.testing.assert_array_equal(f(A, ties)[1], np.argsort(ties, kind="stable"))
    np.testing.assert_array_equal(pyad.jit_grad(sort_only)(np.zeros(0)), np.zeros(0))


def sort_only(v):
    return np.sort(v)


def test_reshape_to_another_size_raises_value_error():
    with pytest.raises(ValueError, match="cannot reshape"):
        pyad.jit_grad(shapes)(np.ones((5, 5)), V)


def test_logaddexp_derivative_at_a_tie_is_one_half():
    x = np.array([0.5, -2.0, 700.0])
    gx, gy = pyad.jit_grad(logaddexp_sum, argnums="all").grad(x, x.copy())
    np.testing.assert_allclose(gx, 0.5, rtol=1e-15)
    np.testing.assert_allclose(gy, 0.5, rtol=1e-15)


@pytest.mark.parametrize("src, message", [
    ("np.roll(x, 1.5)", "expected an integer"),
    ("np.var(x, ddof=x)", "ddof must be a number"),
    ("np.clip(x, 0.0)", "clip\\(\\) missing 1 required positional argument: .a_max."),
    ("np.inner(x[None], x[None])", "at most 3 dimensions"),
    ("np.linalg.norm(x, ord=3)", "ord=3 is not a matrix norm"),
    ("x.reshape(2, 3, 1, 1)", "1 to 3 dimensions"),
    ("np.argsort(x, kind='quicksort')", "sorts stably"),
    ("np.tile(x, (2, 2))", "an int count"),
    ("np.average(x, weights=x[0])", "weights must have the array's shape"),
])
def test_refusals_are_located(src, message, tmp_path):
    assert_refused(tmp_path, "x, k", f"np.sum({src})", (np.ones((2, 3)), 1), message)


def variances_with_a_ddof_known_at_run_time(x, k):
    return np.var(x, ddof=len(x) - 2) + np.std(x, ddof=k) + \
        np.std(x.reshape(2, 3), axis=1, ddof=0.5)[1] + np.var(x, ddof=True)


def test_ddof_known_at_run_time():
    """ddof=len(x) - 1 (found refused by the array probe: "ddof must be a constant
    integer"), a parameter, a float and a bool, as NumPy takes them."""
    check_function(variances_with_a_ddof_known_at_run_time,
                   (np.array([1.0, 2.5, -0.5, 3.0, 4.0, 0.25]), 2))


def variance_past_the_count(x):
    return np.var(x, ddof=4) + np.std(x, ddof=4) + np.sum(np.var(x.reshape(1, 3), axis=1, ddof=5))


def test_ddof_past_the_count_divides_by_zero_as_numpy():
    """NumPy divides by max(N - ddof, 0): inf (nan for a lane of equal values); pyad
    divided by the negative N - ddof (found by a probe)."""
    f = pyad.jit_grad(variance_past_the_count)
    with np.errstate(all="ignore"):
        assert f(np.array([1.0, 2.0, 4.0])) == np.inf
        assert np.isnan(pyad.jit_grad(lambda x: np.var(x, ddof=2))(np.array([7.0])))


def nan_reductions(x, v):
    return np.nansum(x * x) + np.sum(np.nanmean(x, axis=0)) + \
        np.sum(np.nansum(x, axis=1, keepdims=True) * v) + np.nanmean(v)


def test_nansum_and_nanmean_without_nans():
    rng = np.random.default_rng(11)
    check_function(nan_reductions, (rng.normal(size=(3, 4)), rng.normal(size=(3, 1))))


def test_nansum_and_nanmean_skip_nans_and_give_them_zero_gradient():
    """Against NumPy's value and central finite differences in every element that is not
    nan (the gradient there is finite; at a nan element it is 0)."""
    rng = np.random.default_rng(12)
    x, v = rng.normal(size=(3, 4)), rng.normal(size=(3, 1))
    x[0, 1] = x[2, 3] = np.nan
    f = pyad.jit_grad(nan_reductions)
    assert f(x, v) == pytest.approx(nan_reductions(x, v), rel=1e-13)
    g = f.grad(x, v)
    assert np.all(np.isfinite(g)) and g[0, 1] == 0.0 and g[2, 3] == 0.0
    eps = 1e-6
    for ix in zip(*np.nonzero(~np.isnan(x))):
        hi, lo = x.copy(), x.copy()
        hi[ix] += eps
        lo[ix] -= eps
        fd = (nan_reductions(hi, v) - nan_reductions(lo, v)) / (2 * eps)
        assert g[ix] == pytest.approx(fd, rel=1e-6, abs=1e-8), ix
    assert f(np.arange(6).reshape(2, 3), v[:2]) == nan_reductions(np.arange(6).reshape(2, 3),
                                                                  v[:2])


PI_50 = "3.14159265358979323846264338327950288419716939937510"


def sinc_derivative(x: float) -> float:
    """d/dx sin(pi x) / (pi x) = pi sum_{k>=1} (-1)^k 2k p^(2k-1) / (2k+1)!, p = pi x (the
    series of (p cos p - sin p) / p^2, whose k = 0 terms cancel exactly), in 60-digit
    decimal arithmetic: no cancellation near 0, and terms of p up to 25 are summed exactly
    enough."""
    import decimal
    with decimal.localcontext() as c:
        c.prec = 60
        pi = decimal.Decimal(PI_50)
        p = pi * decimal.Decimal(x)
        total, k, power, fact = decimal.Decimal(0), 1, p, decimal.Decimal(6)  # p^(2k-1), (2k+1)!
        while k < 120:
            total += (-1) ** k * 2 * k * power / fact
            power *= p * p
            fact *= (2 * k + 2) * (2 * k + 3)
            k += 1
        return float(pi * total)


def sinc_sum(x):
    return np.sum(np.sinc(x))


def test_sinc_derivative_near_zero_and_at_subnormals():
    """The quotient rule's derivative of sin(p) / p cancels near 0 (30% off at x = 1e-8)
    and is nan at a subnormal x (1 / p^2 overflows): pyad's is within 1e-13 of the exact
    one everywhere, and NumPy's values bit for bit."""
    x = np.array([5e-324, -1e-310, 2.2e-308, 1e-300, 1e-20, 1e-8, -1e-5, 3e-3, 0.0318, 0.0319,
                  0.05, 0.3, 1.0, -1.5, 7.3, 0.0, -0.0])
    f = pyad.jit_grad(sinc_sum)
    want = np.array([sinc_derivative(v) for v in x])
    # subnormal results carry a few units of 5e-324 of rounding: atol
    assert np.allclose(f.grad(x), want, rtol=1e-13, atol=1e-322), list(zip(x, f.grad(x), want))
    y = np.concatenate([x, np.linspace(-3.0, 3.0, 101), [np.inf, np.nan]])
    with np.errstate(invalid="ignore"):
        assert np.array_equal(pyad.jit_grad(sinc_of)(y).view(
            np.int64), np.sinc(y).view(np.int64))


def sinc_of(x):
    return np.sinc(x)
