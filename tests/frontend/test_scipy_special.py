"""scipy.special functions in compiled code (pyad/frontend/special.py): the most common
refusal a probe of 350 ordinary functions met (logistic regression with expit, mixtures with
logsumexp, Poisson likelihoods with gammaln). Each value against scipy's, each gradient
against central differences and the interpreter."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps
from scipy.special import expit, gammaln, log_expit, logit, logsumexp, ndtr, softmax

import pyad

from ..gradients import check_against_python

RNG = np.random.default_rng(2)


def logistic_nll(w, X, y):
    p = expit(X @ w)
    return -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))


def logistic_nll_stable(w, X, y):
    z = X @ w
    return -np.sum(y * log_expit(z) + (1 - y) * log_expit(-z))


def mixture_terms(a):
    m = a.reshape(2, 3)
    return logsumexp(a) + np.sum(logsumexp(m, axis=1)) \
        + np.sum(logsumexp(m, axis=0, keepdims=True) * 2.0)


def poisson_nll(rate, k):
    return np.sum(rate - k * np.log(rate) + gammaln(k + 1.0))


def cross_entropy(L, y):
    return -np.sum(sps.log_softmax(L, axis=1)[np.arange(len(y)), y]) \
        + np.sum(softmax(L, axis=1) ** 2) + np.sum(softmax(L[0]))


def information(x, y):
    return np.sum(sps.xlogy(x, y)) + np.sum(sps.xlog1py(x, y)) + np.sum(sps.entr(y)) \
        + np.sum(sps.rel_entr(y, x + 1.0))


def elementwise_rows(x):
    return np.sum(sps.erf(x) + ndtr(x) + sps.erfc(x) + sps.expm1(x) + sps.log1p(x * x)) \
        + ndtr(x[0]) + gammaln(3.5 + x[1]) + sps.expit(x[2])


def probit_nll(theta, x):
    z = (x - theta[0]) / np.exp(theta[1])
    return -np.sum(np.log(ndtr(z)))


def logits(p):
    return np.sum(sps.logit(p) ** 2) + np.sum(sps.softplus(p - 0.5))


X = RNG.normal(size=(8, 3))
Y = (RNG.uniform(size=8) > 0.5).astype(float)
CASES = [
    (logistic_nll, (RNG.normal(size=3), X, Y)),
    (logistic_nll_stable, (RNG.normal(size=3), X, Y)),
    (mixture_terms, (RNG.normal(size=6),)),
    (poisson_nll, (RNG.uniform(1.0, 3.0, 5), np.arange(5.0))),
    (cross_entropy, (RNG.normal(size=(4, 3)), np.array([0, 2, 1, 1]))),
    (information, (np.array([0.0, 0.5, 2.0]), np.array([0.3, 0.2, 1.5]))),
    (elementwise_rows, (RNG.normal(size=4),)),
    (probit_nll, (np.array([0.1, -0.2]), RNG.normal(size=5))),
    (logits, (RNG.uniform(0.1, 0.9, 4),)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_scipy_special_functions_agree_with_scipy(fn, args):
    check_against_python(fn, *args, rtol=1e-12)


def softmaxes(L):
    return softmax(L, axis=1), sps.log_softmax(L, axis=0)


def test_softmax_of_large_and_infinite_logits():
    """scipy's formulas (the max subtracted first; log_softmax of a lane of -inf is -inf)."""
    L = RNG.normal(size=(5, 4)) * 300.0
    L[:, 2] = -np.inf
    got = pyad.jit_grad(softmaxes)(L)
    np.testing.assert_allclose(got[0], softmax(L, axis=1), rtol=1e-14)
    np.testing.assert_allclose(got[1], sps.log_softmax(L, axis=0), rtol=1e-14)


def xlogy_at_zero(x, y):
    return np.sum(sps.xlogy(x, y))


def test_xlogy_is_zero_at_zero_and_its_gradient_is_log_y():
    """scipy: xlogy(0, y) = 0 even at y = 0; the gradient (JAX's): log(y) and x / y."""
    f = pyad.jit_grad(xlogy_at_zero, argnums="all")
    x, y = np.array([0.0, 0.0, 2.0]), np.array([0.0, 0.5, 4.0])
    assert f(x, y) == xlogy_at_zero(x, y)
    gx, gy = f.grad(x, y)
    assert np.array_equal(gx, [0.0, np.log(0.5), np.log(4.0)])
    assert np.array_equal(gy, [0.0, 0.0, 0.5])


def weighted_logsumexp(a, w):
    return logsumexp(a, b=w) + np.sum(logsumexp(a.reshape(2, 3), 1, w.reshape(2, 3)))


def test_logsumexp_with_weights_and_b_positional():
    """scipy's third positional parameter is `b` (not keepdims)."""
    check_against_python(weighted_logsumexp, RNG.normal(size=6), RNG.uniform(0.5, 2.0, 6),
                         rtol=1e-12)


def signed_logsumexp(a):
    return logsumexp(a, return_sign=True)[0]


def scalar_logit(p):
    return logit(p)


def test_what_pyad_does_not_have_is_refused_at_the_users_call():
    with pytest.raises(pyad.PyadError, match="return_sign") as info:
        pyad.jit_grad(signed_logsumexp)(np.ones(3))
    assert "test_scipy_special.py:" in str(info.value)


def edges(x, y):
    return sps.xlogy(x, y), sps.xlog1py(x, y), sps.entr(y), sps.rel_entr(x, y), \
        sps.logit(y), np.logaddexp(x, -40.0 + y), sps.softplus(-40.0 + y), \
        sps.log_expit(40.0 + y), logsumexp(np.stack((0.0 * y, -40.0 + y)), axis=0)


def test_values_at_the_edges_are_scipys():
    """xlogy(0, y) is 0 for y < 0 and inf; nan stays nan in entr and rel_entr; logit(1) and
    rel_entr(x, 0) are inf, not a ZeroDivisionError; logaddexp of a tiny result keeps its
    digits (NumPy's log1p form)."""
    x = np.array([0.0, 0.0, 0.0, 0.0, 0.5, 1.0, np.nan, 0.3])
    y = np.array([-1.0, np.inf, -np.inf, np.nan, 0.0, 1.0, 0.5, 0.2])
    f = pyad.jit_grad(edges)
    with np.errstate(all="ignore"):
        for got, want in zip(f(x, y), edges(x, y)):
            np.testing.assert_allclose(got, want, rtol=1e-14, atol=0.0)   # nan where nan
    assert pyad.jit_grad(scalar_logit)(1.0) == np.inf == logit(1.0)


def lse(a):
    return logsumexp(a)


@pytest.mark.parametrize("a", [[0.0, -40.0], [2.0, 2.0, -1.0], [3.0, 3.0, 3.0], [-1e3, -1e3 - 0.5],
                               [-np.inf, -np.inf], [np.inf, 1.0], [5.0]])
def test_logsumexp_keeps_tiny_results_and_its_gradient_is_the_softmax(a):
    """m + log1p(sum(exp(a - m)) - 1 without the maximum's 1.0): scipy's digits (1e-18
    for [0, -40], where log(1 + 1e-18) is 0), and the softmax as gradient at ties."""
    a = np.array(a)
    f = pyad.jit_grad(lse)
    np.testing.assert_allclose(f(a), logsumexp(a), rtol=1e-15)
    if np.all(np.isfinite(a)):
        np.testing.assert_allclose(f.grad(a), softmax(a), rtol=1e-15)
