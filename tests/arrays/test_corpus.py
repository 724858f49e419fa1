"""The array corpus (tests/corpus_arrays.py): the corpus itself is sound (well formed, never
writes into its arguments in CPython, samples away from kinks, functions compute what their
names say), and every sample of every corpus function passes the differential harness
(tests/arrays/harness.py)."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

from .. import corpus_arrays as C
from ..corpus_arrays import CASES, NO_FINITE_DIFFERENCES, SHAPE_GENERIC
from .harness import (
    assert_unchanged, case_id, check_function, flat_floats, is_diff, is_float_array, moved,
    perturbation, py, snapshot)


SAMPLES = [(fn, args) for fn, samples in CASES for args in samples]


def test_corpus_is_well_formed():
    names = [fn.__name__ for fn, _ in CASES]
    assert len(names) == len(set(names)) >= 40
    assert NO_FINITE_DIFFERENCES <= set(names) and set(SHAPE_GENERIC) <= set(names)
    for fn, samples in CASES:
        assert fn.__doc__ and fn.__doc__.strip(), fn.__name__
        assert samples, fn.__name__
        nparams = len(inspect.signature(fn).parameters)
        for args in samples:
            assert len(args) == nparams, (fn.__name__, args)
            assert any(isinstance(a, np.ndarray) for a in args), fn.__name__
            for a in args:
                assert type(a) in (float, int, bool, np.ndarray), (fn.__name__, a)
                if isinstance(a, np.ndarray):
                    assert a.dtype in (np.float64, np.int64, np.bool_) and 1 <= a.ndim <= 3
    # both styles, all dtypes and dimensions, and array results are represented
    arrays = [a for _, args in SAMPLES for a in args if isinstance(a, np.ndarray)]
    assert {a.dtype for a in arrays} == {np.dtype(np.float64), np.dtype(np.int64),
                                          np.dtype(np.bool_)}
    assert {a.ndim for a in arrays} == {1, 2, 3}
    results = [py(fn(*args)) for fn, args in SAMPLES]
    assert sum(isinstance(r, np.ndarray) for r in results) >= 15
    assert sum(isinstance(r, tuple) for r in results) >= 5
    assert sum(any(np.any(a < 0) for a in args if is_float_array(a)) for _, args in SAMPLES) >= 40


def test_corpus_does_not_write_into_arguments_in_cpython():
    for fn, args in SAMPLES:
        snap = snapshot(args)
        fn(*args)
        assert_unchanged(snap, f"{fn.__name__} argument")


def test_corpus_samples_are_away_from_kinks():
    """Finite differences are meaningful at every sample (CPython only, no pyad): central
    differences along random directions with steps 1e-5, 1e-6 and 1e-7 agree. A branch,
    max/min/abs/where or sort decision flipping within a step would make them disagree."""
    rng = np.random.default_rng(12345)
    for fn, args in SAMPLES:
        if fn.__name__ in NO_FINITE_DIFFERENCES or not any(is_diff(a) for a in args):
            continue
        y0 = flat_floats(py(fn(*args)))
        assert np.isfinite(y0).all(), fn.__name__
        for _ in range(3):
            v = perturbation(args, rng)
            d = [(flat_floats(py(fn(*moved(args, v, e)))) - flat_floats(py(fn(*moved(args, v, -e)))))
                 / (2 * e) for e in (1e-5, 1e-6, 1e-7)]
            scale = np.maximum(1.0, np.maximum.reduce([np.abs(x) for x in d]))
            assert (np.abs(d[0] - d[1]) <= 1e-4 * scale).all() and \
                (np.abs(d[2] - d[1]) <= 1e-4 * scale).all(), \
                f"{fn.__name__}: near a kink ({d[0]}, {d[1]}, {d[2]})"


def test_corpus_functions_compute_what_their_names_say():
    """Sanity of the corpus itself (CPython + NumPy only)."""
    g = np.random.default_rng(7)
    x, y = g.normal(size=6), g.normal(size=6)
    assert C.dot_loop(x, y) == pytest.approx(np.dot(x, y), rel=1e-14)
    assert C.kahan_sum(x) == pytest.approx(np.sum(x), rel=1e-14)
    assert np.allclose(C.cumsum_array(x), np.cumsum(x), rtol=1e-14)
    lower, diag, upper, rhs = C.CASES[[f for f, _ in C.CASES].index(C.thomas_solve)][1][0]
    n = len(diag)
    T = np.diag(diag) + np.diag(lower[1:], -1) + np.diag(upper[:-1], 1)
    assert np.allclose(C.thomas_solve(lower, diag, upper, rhs), np.linalg.solve(T, rhs),
                       rtol=1e-12, atol=1e-14)
    assert C.thomas_inplace_energy(lower, diag, upper, rhs) == \
        pytest.approx(np.sum(np.linalg.solve(T, rhs) ** 2), rel=1e-12)
    A = C._spd(3, 4)
    assert np.allclose(C.cholesky_factor(A), np.linalg.cholesky(A), rtol=1e-12)
    assert C.cholesky_logdet(A) == pytest.approx(np.linalg.slogdet(A)[1], rel=1e-12)
    D = C._diag_dominant(4, 4)
    assert C.lu_det(D) == pytest.approx(np.linalg.det(D), rel=1e-12)
    L = np.tril(g.normal(size=(4, 4))) + 3 * np.eye(4)
    assert np.allclose(C.forward_substitution(L, x[:4]), np.linalg.solve(L, x[:4]), rtol=1e-12)
    M = g.normal(size=(5, 3))
    Q = C.gram_schmidt(M)
    assert np.allclose(Q.T @ Q, np.eye(3), atol=1e-12)
    assert np.allclose(np.triu(Q.T @ M), Q.T @ M, atol=1e-12)
    S = C._spd(5, 3)
    assert C.power_iteration(S, np.ones(3), 200) == pytest.approx(np.linalg.eigvalsh(S)[-1],
                                                                  rel=1e-10)
    assert np.allclose(C.jacobi_solve(D, x[:4], 80), np.linalg.solve(D, x[:4]), rtol=1e-10)
    assert np.allclose(C.matmul_loop(M[:2], M.T), M[:2] @ M.T, rtol=1e-14)
    assert np.allclose(C.softmax(x), C.softmax_loop(x), rtol=1e-14)
    assert C.logsumexp(x) == pytest.approx(np.log(np.sum(np.exp(x))), rel=1e-14)
    assert C.horner(x, 0.3) == pytest.approx(np.polyval(x, 0.3), rel=1e-13)
    p, dp = C.horner_with_derivative(x, 0.3)
    assert dp == pytest.approx(np.polyval(np.polyder(x), 0.3), rel=1e-13)
    cheb = np.polynomial.chebyshev.chebval(0.37, x)
    assert C.clenshaw_chebyshev(x, 0.37) == pytest.approx(cheb, rel=1e-13)
    assert np.array_equal(C.insertion_sort(x), np.sort(x))
    assert np.allclose(C.conv1d_valid(x, y[:3]), np.correlate(x, y[:3], "valid"), rtol=1e-14)
    assert np.allclose(C.moving_average(x, 3), np.convolve(x, np.ones(3) / 3, "valid"))
    P = g.normal(size=(4, 3))
    from itertools import combinations
    assert C.pairwise_distance_sum(P) == pytest.approx(
        sum(np.linalg.norm(P[i] - P[j]) for i, j in combinations(range(4), 2)), rel=1e-13)
    assert np.allclose(C.pairwise_sq_dists(P),
                       np.sum((P[:, None, :] - P[None, :, :]) ** 2, axis=2), atol=1e-12)
    assert C.shape_queries(np.zeros((3, 4)), np.zeros((2, 3, 5))) == (3, 4, 12, 2, 3, 30, 5, 12)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_corpus(case):
    """Values, gradients (interpreter + finite differences) or pullbacks (dot-product test),
    and the caller's arrays untouched, for every sample of every corpus function."""
    fn, samples = case
    for k, args in enumerate(samples):
        check_function(fn, args, name=fn.__name__, rng_seed=k)
