"""Array-style functions written the way NumPy users write them (statistics, physics, ML
losses, linear algebra), each checked by the harness: value against NumPy, gradient against
central finite differences and the interpreter (or the pullback's dot-product test), on a
couple of shapes including size 1 where the function allows it."""
from __future__ import annotations

import numpy as np
import pytest

from .harness import check_function, relayout

rng = np.random.default_rng(51)


def softmax(z):
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def log_softmax(z):
    m = np.max(z, axis=1, keepdims=True)
    return z - m - np.log(np.sum(np.exp(z - m), axis=1, keepdims=True))


def cross_entropy(z, y):
    return -np.mean(log_softmax(z)[np.arange(z.shape[0]), y])


def entropy(z):
    p = softmax(z)
    return -np.sum(p * np.log(p))


def sigmoid_bce(x, w, t):
    p = 1.0 / (1.0 + np.exp(-(x @ w)))
    return -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p))


def huber(x):
    a = np.abs(x)
    return np.sum(np.where(a < 1.0, 0.5 * x ** 2, a - 0.5))


def activations(x):
    return np.sum(np.maximum(x, 0.0) * x) + np.sum(np.where(x > 0, x, 0.01 * x) ** 2) \
        + np.sum(np.logaddexp(0.0, x)) + np.sum(np.abs(x) + np.sign(x) * x) \
        + np.sum(np.clip(x, -0.5, 0.5) ** 2)


def standardize(x):
    return np.sum(((x - x.mean(0)) / x.std(0)) ** 2 * np.arange(1.0, x.shape[1] + 1.0))


def covariance(x):
    xc = x - x.mean(axis=0)
    return np.sum(xc.T @ xc / (x.shape[0] - 1)) + np.sum(np.cov(x, rowvar=False) ** 2)


def robust_stats(x):
    return np.sum(np.median(x, axis=0)) + np.sum(np.percentile(x, 25.0, axis=-1)) \
        + np.quantile(x, 0.8) + np.nanmax(x) + np.sum(np.ptp(x, axis=0))


def norms(x):
    return np.linalg.norm(x) + np.linalg.norm(x, axis=1).sum() + np.linalg.norm(x, ord=1) \
        + np.linalg.norm(x, "fro") + np.linalg.norm(x[0], ord=np.inf) \
        + np.sum(x / np.linalg.norm(x, axis=1, keepdims=True))


def pair_energy(x):
    d = x[:, None, :] - x[None, :, :]
    r2 = np.sum(d ** 2, axis=-1) + np.eye(x.shape[0])
    return np.sum(np.triu(1.0 / np.sqrt(r2), 1))


def gmm_loglik(x, mu):
    d = x[:, np.newaxis, :] - mu[np.newaxis, :, :]
    return np.sum(np.logaddexp.reduce(-0.5 * np.sum(d * d, axis=-1), axis=1))


def products(w, v):
    return np.sum(np.outer(v, v) ** 2) + np.sum(np.kron(v, v)) + np.trace(w @ w) \
        + float(v @ w @ v) + np.sum(w.T @ v + v @ w.T) + np.einsum("ij,jk->", w, w) \
        + np.einsum("ii", w) + np.sum(np.einsum("ij,ij->i", w, w))


def shapes(x):
    return np.sum(x.reshape(-1, 3) ** 2 * np.arange(3.0)) + np.sum(x.T[0] * x[:, 0]) \
        + np.sum(np.mean(x[None] * x[None], axis=(0, 1))) + np.sum(np.sum(x, axis=-1)) \
        + np.sum(np.concatenate([x, 2 * x], axis=-1)[:, ::-1] * np.roll(np.hstack([x, x]), 1))


def gaussian_loglik(x, w):
    a = w @ w.T + np.eye(w.shape[0])
    chol = np.linalg.cholesky(a)
    z = np.linalg.solve(chol, x.T)
    return -0.5 * np.sum(z ** 2) - x.shape[0] * np.sum(np.log(np.diag(chol)))


def linear_algebra(w, v):
    a = w @ w.T + 3.0 * np.eye(w.shape[0])
    sign, logdet = np.linalg.slogdet(a)
    vals, vecs = np.linalg.eigh(a)
    return np.sum(np.linalg.solve(a, v)) + np.sum(np.linalg.inv(a) @ v) + np.linalg.det(a) \
        + sign * logdet + np.sum(vals ** 2) + np.sum(vecs[:, -1] ** 2 * v)


def ridge(x, y):
    a = x.T @ x + np.eye(x.shape[1])
    w = np.linalg.solve(a, x.T @ y)
    return np.mean((x @ w - y) ** 2)


def mahalanobis(x, w):
    a = w @ w.T + np.eye(w.shape[0])
    d = x - x.mean(axis=0)
    return np.sum(d @ np.linalg.inv(a) * d)


def scans(v):
    return np.sum(np.cumsum(v[::-1]) * np.arange(v.shape[0])) \
        + np.sum(np.cumulative_prod(v, include_initial=True)) + np.sum(np.abs(np.diff(v)))


def masked_mean(x):
    return np.mean(x, where=x > np.min(x)) + np.sum(x[x > np.median(x)]) \
        + np.sum(x[np.where(x < 0.0)] ** 2)


def diagonal_model(x, v):
    return np.sum(np.diag(v, k=1)[:-1, 1:] @ x.T) + np.trace(x @ x.T, 1) \
        + np.sum(np.atleast_2d(v) @ np.diag(np.diag(x @ x.T))[:, :v.shape[0]].T)


def signal(t):
    k = np.arange(1.0, 4.0)
    s = np.sin(np.outer(t, k)) @ (1.0 / k)
    return np.sum(np.interp(t * 0.5, t, s) ** 2) + np.sum(np.sort(s)[:2])


X, W, V = rng.normal(size=(4, 3)), rng.normal(size=(3, 3)), rng.normal(size=3)
CASES = [
    (softmax, (X,)), (softmax, (X[:1, :1],)), (log_softmax, (X,)),
    (cross_entropy, (X, np.array([0, 2, 1, 2]))), (cross_entropy, (X[:1], np.array([1]))),
    (entropy, (X,)), (sigmoid_bce, (X, V, np.array([0.0, 1.0, 1.0, 0.0]))), (huber, (X * 2,)),
    (activations, (X,)), (standardize, (X,)), (covariance, (X,)), (robust_stats, (X,)),
    (norms, (X,)), (pair_energy, (X,)), (gmm_loglik, (X, W)), (gmm_loglik, (X[:1], W[:1])),
    (products, (W, V)), (shapes, (X,)), (gaussian_loglik, (X, W)), (linear_algebra, (W, V)),
    (ridge, (X, V[:3] @ W.T @ X.T)), (mahalanobis, (X, W)), (scans, (V,)),
    (scans, (V[:1],)), (masked_mean, (X,)), (diagonal_model, (X, V)),
    (signal, (np.sort(rng.uniform(0, 3, size=6)),)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{f.__name__}-{k}" for k, (f, _) in
                                                 enumerate(CASES)])
def test_numpy_idiom(fn, args):
    check_function(fn, args)


@pytest.mark.parametrize("fn", [softmax, norms, standardize, products])
def test_numpy_idioms_on_non_contiguous_inputs(fn):
    args = {softmax: (X,), norms: (X,), standardize: (X,), products: (W, V)}[fn]
    check_function(fn, tuple(relayout(a, "transposed")[0] for a in args))
