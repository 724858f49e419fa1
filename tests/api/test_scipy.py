"""`scipy.optimize.minimize(f.value_and_grad, x0, jac=True)` with a plain `@pyad.jit_grad`
objective: the gradient of argument 0 comes back bare, an array shaped like x0 (JAX's
convention), so every gradient-based scipy method takes it as it is."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize as so

import pyad


@pyad.jit_grad
def rosen(x, a):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (a - x[i]) ** 2
    return s


def hessp(x, p, a):
    """Hessian-vector product by central differences of the compiled gradient."""
    h = 1e-6
    return (rosen.grad(x + h * p, a) - rosen.grad(x - h * p, a)) / (2 * h)


X0 = np.array([1.3, 0.7, 0.8, 1.9, 1.2])  # scipy's tutorial start: reaches the minimum


def test_value_and_grad_is_what_scipy_expects():
    v, g = rosen.value_and_grad(X0, 1.0)
    assert isinstance(v, float) and isinstance(g, np.ndarray) and g.shape == X0.shape
    assert v == pytest.approx(so.rosen(X0), rel=1e-14)
    np.testing.assert_allclose(g, so.rosen_der(X0), rtol=1e-13)   # scipy's own derivative
    np.testing.assert_allclose(hessp(X0, np.ones(5), 1.0), so.rosen_hess_prod(X0, np.ones(5)),
                               rtol=1e-6)


@pytest.mark.parametrize("method", ["BFGS", "L-BFGS-B", "CG", "Newton-CG", "trust-constr"])
def test_minimize_with_every_gradient_method(method):
    extra = {"hessp": hessp} if method == "Newton-CG" else {}
    res = so.minimize(rosen.value_and_grad, X0, args=(1.0,), jac=True, method=method, **extra)
    assert res.success, res.message
    np.testing.assert_allclose(res.x, np.ones(5), atol=1e-3)
    assert np.linalg.norm(rosen.grad(res.x, 1.0)) < 1e-2


def test_minimize_with_a_keyword_parameter_and_the_transform():
    @pyad.jit_grad
    def quad(x, center=2.0):
        return np.sum((x - center) ** 2)

    res = so.minimize(pyad.value_and_grad(quad), np.zeros(3), jac=True, method="BFGS")
    np.testing.assert_allclose(res.x, np.full(3, 2.0), atol=1e-6)
    res = so.minimize(quad.fn, np.zeros(3), jac=quad.grad, args=(-1.0,), method="L-BFGS-B")
    np.testing.assert_allclose(res.x, np.full(3, -1.0), atol=1e-6)
