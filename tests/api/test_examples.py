"""The documented examples run and give the right answers (examples/minimize.py: scipy.optimize
with pyad's value and gradient)."""
from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest
import scipy.optimize as scipy_optimize  # in the test extra

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def minimize_example():
    spec = importlib.util.spec_from_file_location("minimize_example", EXAMPLES / "minimize.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def numpy_loss_and_grad(w, X, y, lam):
    """The same objective written with NumPy, and its gradient derived by hand."""
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    value = np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * lam * w @ w
    return value, X.T @ (p - y) / len(y) + lam * w


def test_value_and_gradient_match_the_hand_derived_ones(minimize_example):
    X, y = minimize_example.make_data(n=60, d=5, seed=3)
    w = np.random.default_rng(1).normal(size=5) * 3.0  # large |z|: both branches of log1pexp
    v, g = minimize_example.loss.value_and_grad(w, X, y, 0.1)
    want_v, want_g = numpy_loss_and_grad(w, X, y, 0.1)
    assert v == pytest.approx(want_v, rel=1e-12)
    np.testing.assert_allclose(g, want_g, rtol=1e-10, atol=1e-13)


def test_minimize_with_jac_true_finds_the_optimum(minimize_example, capsys):
    X, y = minimize_example.make_data()
    res = minimize_example.fit(X, y)
    assert res.success
    ref = scipy_optimize.minimize(numpy_loss_and_grad, np.zeros(X.shape[1]), args=(X, y, 1e-2),
                                  jac=True, method="L-BFGS-B")
    np.testing.assert_allclose(res.x, ref.x, rtol=1e-4, atol=1e-5)
    assert np.linalg.norm(numpy_loss_and_grad(res.x, X, y, 1e-2)[1]) < 1e-4
    minimize_example.main()
    assert "converged: True" in capsys.readouterr().out
