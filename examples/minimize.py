"""Fit a model with scipy.optimize.minimize, using pyad's value and gradient (jac=True).

A logistic regression with an L2 penalty, written as plain Python loops over NumPy arrays;
the helper `log1pexp` is an ordinary Python function (pyad compiles it with its caller).
One native call returns the loss and its exact gradient, which is what `jac=True` wants.

    python examples/minimize.py
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize

import pyad


def log1pexp(z):
    """log(1 + exp(z)) without overflow."""
    if z > 0.0:
        return z + math.log1p(math.exp(-z))
    return math.log1p(math.exp(z))


@pyad.jit_grad
def loss(w, X, y, lam):
    n, d = X.shape
    total = 0.0
    for i in range(n):
        z = 0.0
        for j in range(d):
            z += X[i, j] * w[j]
        total += log1pexp(z) - y[i] * z
    penalty = 0.0
    for j in range(d):
        penalty += w[j] * w[j]
    return total / n + 0.5 * lam * penalty


def make_data(n=500, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w_true = rng.normal(size=d)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-X @ w_true))).astype(float)
    return X, y


def fit(X, y, lam=1e-2):
    """scipy's L-BFGS-B with pyad's value and gradient in one call."""
    w0 = np.zeros(X.shape[1])
    return minimize(loss.value_and_grad, w0, args=(X, y, lam), jac=True, method="L-BFGS-B")


def main() -> None:
    X, y = make_data()
    res = fit(X, y)
    print(f"converged: {res.success} after {res.nit} iterations, {res.nfev} evaluations")
    print(f"loss {res.fun:.6f}, |gradient| {np.linalg.norm(res.jac):.2e}")
    print("weights:", np.array2string(res.x, precision=3))


if __name__ == "__main__":
    main()
