"""What a probe of real-world numerical functions (2026-11-29) found in the NumPy surface:
np.linalg.svd (and the norms, pinv, lstsq, matrix_rank and cond built on it) failed to
converge on rank-deficient matrices; np.median / percentile / quantile ignored a nan (NumPy:
nan); math.atan2 and np.arctan2 had nan derivatives at (0, 0) and at tiny arguments (the
squares underflowed); np.linalg.norm(x, ord=p) had nan derivatives at a zero vector for
p other than 2. Values against NumPy, gradients through the harness (finite differences,
the interpreter, the pullback)."""
from __future__ import annotations

import math

import numpy as np

import pyad

from .harness import check_function


def spectral(A):
    return np.linalg.norm(A, 2)


def nuclear(A):
    return np.linalg.norm(A, "nuc")


def singular_sum(A):
    return np.sum(np.linalg.svd(A, compute_uv=False))


def pinv_sum(A):
    return np.sum(np.linalg.pinv(A))


def test_svd_of_rank_deficient_matrices():
    """The Jacobi sweeps ran out on columns of rounding noise: LinAlgError on np.ones((7, 7))
    (every n from 7 to 80), an intercept plus one-hot design, 0/1 adjacency matrices."""
    rng = np.random.default_rng(0)
    mats = [np.ones((n, n)) for n in (7, 12, 40)]
    mats += [np.array([[1, 1, 0], [1, 0, 1], [1, 1, 0], [1, 0, 1.0]])]
    mats += [(rng.random((10, 10)) < 0.3).astype(float) for _ in range(20)]
    mats += [np.outer(x, x) for x in rng.integers(-3, 4, (40, 6)).astype(float)]
    for fn in (spectral, nuclear, singular_sum, pinv_sum):
        f = pyad.jit_grad(fn)
        for A in mats:
            np.testing.assert_allclose(f(A), fn(A), rtol=1e-10, atol=1e-10)
    check_function(spectral, (np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [2.0, 1.0, 0.0]]),))


def median(a):
    return np.median(a)


def percentile_30(a):
    return np.percentile(a, 30)


def quantile_rows(a):
    return np.quantile(a, 0.25, axis=1)


def test_quantiles_of_lanes_with_a_nan_are_nan():
    x = np.array([1.0, np.nan, 2.0, 0.2, 0.7, 0.3])
    for fn in (median, percentile_30):
        assert math.isnan(pyad.jit_grad(fn)(x)) and math.isnan(fn(x))
    m = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.5]])
    np.testing.assert_array_equal(pyad.jit_grad(quantile_rows)(m), quantile_rows(m))
    check_function(median, (np.array([3.0, 1.0, 2.5, -1.0]),))
    check_function(quantile_rows, (np.array([[1.0, 0.5, 3.0], [4.0, 5.0, 6.5]]),))


def angle(y, x):
    return math.atan2(y, x)


def angles(y, x):
    return np.sum(np.arctan2(y, x))


def test_arctan2_derivatives_at_zero_and_tiny_arguments():
    g = pyad.jit_grad(angle, argnums=(0, 1))
    assert g.grad(0.0, 0.0) == (0.0, 0.0)      # was (nan, nan); hypot's convention
    dy, dx = g.grad(1e-200, 3e-200)             # the squares underflowed: 0 / 0
    h = math.hypot(1e-200, 3e-200)
    assert math.isclose(dy, 3e-200 / h / h, rel_tol=1e-15)
    assert math.isclose(dx, -1e-200 / h / h, rel_tol=1e-15)
    check_function(angles, (np.array([0.5, -2.0, 0.3]), np.array([-1.5, 0.75, 2.0])))


def norm_3(x):
    return np.linalg.norm(x, ord=3)


def test_p_norms_at_a_zero_vector_have_derivative_zero():
    f = pyad.jit_grad(norm_3)
    np.testing.assert_array_equal(f.grad(np.zeros(3)), np.zeros(3))     # was nan
    check_function(norm_3, (np.array([1.0, -2.0, 0.5]),))


def distances(x):
    d = x[:, None, :] - x[None, :, :]
    return np.sum(np.sqrt(np.sum(d * d, axis=-1)))


def truncated_variance(v, t):
    return np.sum(np.sqrt(np.maximum(v, 0.0) * t))


def test_a_zero_factor_makes_its_contribution_zero():
    """0 * inf: the distance matrix's zero diagonal, and sqrt(max(v, 0) * t) at v < 0, had
    nan gradients (JAX too); the product is constant in the other factor there."""
    x = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, -1.0]])
    g = pyad.jit_grad(distances).grad(x)
    assert np.all(np.isfinite(g))
    want = pyad.jit_grad(off_diagonal).grad(x)   # the same sum without the diagonal
    np.testing.assert_allclose(g, want, rtol=1e-13)
    f = pyad.jit_grad(truncated_variance, argnums=(0, 1))
    v = np.array([-0.5, 0.2, 0.3])
    dv, dt = f.grad(v, 2.0)
    np.testing.assert_allclose(dt, np.sum(np.sqrt(np.maximum(v, 0.0))) / (2 * np.sqrt(2.0)),
                               rtol=1e-14)
    assert dv[0] == 0.0


def off_diagonal(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            if i != j:
                s += np.sqrt(np.sum((x[i] - x[j]) ** 2))
    return s
