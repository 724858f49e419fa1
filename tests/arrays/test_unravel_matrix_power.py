"""`np.unravel_index` (an int or an int array of flat indices; out-of-bounds ValueError
naming the line) and `np.linalg.matrix_power` (NumPy's order of products, inverse powers for
n < 0, n known only at run time): values against NumPy, gradients against central
differences and the interpreter (harness), and the errors."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from .harness import check_function


def at_the_largest(x):
    i, j = np.unravel_index(np.argmax(x), x.shape)
    return x[i, j] ** 2 + np.sum(x[i]) * x[0, j]


def rows_and_columns(x, flat):
    r, c = np.unravel_index(flat, x.shape)
    return np.sum(x[r, c] ** 2 * (r + 1.0)) + np.sum(c * 1.0)


def three_axes(flat):
    a, b, c = np.unravel_index(flat, (2, 3, 4))
    return a * 100 + b * 10 + c


def powers(x, n):
    a = x[:3, :3] * 0.6 + np.eye(3)
    return np.sum(np.linalg.matrix_power(a, n) * np.arange(9.0).reshape(3, 3))


X = np.sin(np.arange(12.0) * 0.7 + 0.3).reshape(3, 4)


def test_unravel_index():
    check_function(at_the_largest, (X,))
    check_function(rows_and_columns, (X, np.array([0, 5, 11, 7])))
    f = pyad.jit_grad(three_axes)
    for k in range(24):
        assert f(k) == three_axes(k)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6, -1, -3])
def test_matrix_power(n):
    check_function(powers, (X, n))
    a = X[:3, :3] * 0.6 + np.eye(3)
    got = pyad.jit_grad(lambda_free_power)(a, n)
    np.testing.assert_allclose(got, np.linalg.matrix_power(a, n), rtol=1e-12, atol=1e-12)


def lambda_free_power(a, n):
    return np.linalg.matrix_power(a, n)


def test_errors_name_the_line():
    with pytest.raises(ValueError, match="out of bounds") as info:
        pyad.jit_grad(three_axes)(24)
    assert "line 26 of test_unravel_matrix_power.py" in str(info.value)
    with pytest.raises(ValueError, match="must be square") as info:
        pyad.jit_grad(lambda_free_power)(X, 2)
    line = lambda_free_power.__code__.co_firstlineno + 1  # the user's call, not the prelude's
    assert f"line {line} of test_unravel_matrix_power.py" in str(info.value)
    with pytest.raises(ValueError, match="out of bounds"):
        pyad.jit_grad(three_axes)(-1)
