"""Whole-array primitives (`@`, `np.dot`, `np.outer`, `np.sum`/`np.mean` of arrays) in the
programs around them: arguments written after the product (the AD pass snapshots them),
products inside loops and branches (their arrays taped or carried), results written into.
Each program is checked by the differential harness (values against NumPy; gradients
against finite differences, the interpreter and the pullback's dot-product test)."""
from __future__ import annotations

import numpy as np
import pytest

import pyad
from pyad import ad, pipeline

from ..modules import assert_refused
from .harness import check_function

rng = np.random.default_rng(11)
A3 = rng.normal(size=(3, 3))
x3 = rng.normal(size=3)


def written_after_the_product(A, x):
    B = A.copy()
    y = B @ x
    B[0, 0] = B[0, 0] * 3.0 + x[1]   # the adjoint of `B @ x` needs B as it was
    return np.sum(y * y) + np.sum(B @ x)


def written_by_a_later_trip(A, x, n):
    B = A.copy()
    s = 0.0
    for i in range(n):
        y = B @ x
        s += np.sum(y * y)
        B[i % 3, 0] = B[i % 3, 0] * 0.5 + x[0]
    return s


def power_iteration(A, v, n):
    for _ in range(n):
        w = A @ v
        v = w / np.sqrt(np.sum(w * w))
    return np.sum(v @ A * v)


def product_in_a_branch(A, x, flag):
    if flag > 0:
        y = A @ x
    else:
        y = x @ A
    return np.sum(np.outer(y, x) * A)


def result_written_into(A, B):
    C = A @ B
    C[1] = C[1] * 2.0
    C[:, 0] = 0.5
    return np.sum(C * C, axis=0)


def sums_keep_their_axes(X):
    mu = np.mean(X, axis=0, keepdims=True)
    d = X - mu
    cov = d.T @ d / (X.shape[0] - 1)
    return np.sum(cov * cov) + np.sum(np.sum(d * d, axis=-1))


def weights_stored_transposed(X, V1, V2):
    return np.sum(np.dot(np.tanh(np.dot(X, V1.T)), np.transpose(V2)) ** 2)


def products_of_transposes(X, W1, W2):
    H = np.tanh((W1.T @ X.T).T)
    return np.sum((H @ W2).T @ X[:, :2])


@pytest.mark.parametrize("fn, args", [
    (weights_stored_transposed, (rng.normal(size=(5, 3)), rng.normal(size=(4, 3)),
                                 rng.normal(size=(2, 4)))),
    (products_of_transposes, (rng.normal(size=(5, 3)), rng.normal(size=(3, 4)),
                              rng.normal(size=(4, 2)))),
    (written_after_the_product, (A3, x3)),
    (written_by_a_later_trip, (A3, x3, 5)),
    (power_iteration, (A3 + 3 * np.eye(3), x3, 6)),
    (product_in_a_branch, (A3, x3, 1)),
    (product_in_a_branch, (A3, x3, -1)),
    (result_written_into, (rng.normal(size=(3, 2)), rng.normal(size=(2, 4)))),
    (sums_keep_their_axes, (rng.normal(size=(6, 3)),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_primitives_in_programs(fn, args):
    check_function(fn, args)


def built_in_the_function(x):
    A = np.zeros((2, 2))
    A[0, 0] = x
    A[1, 1] = x * x
    A[0, 1] = 1.0
    return np.sum(A @ A) + np.sum(np.outer(A[0], A[1]))


@pytest.mark.parametrize("fn, args", [
    (built_in_the_function, (1.3,)),
    (written_by_a_later_trip, (A3, x3, 5)),
    (sums_keep_their_axes, (rng.normal(size=(6, 3)),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_pullback_is_linear_and_repeatable(fn, args):
    """A product's adjoint reads its result's shadow entire, so every call of `back` must
    start the shadows from zero (a regression: the second call once added the first's)."""
    y, back = pyad.jit_grad(fn, argnums="all").pullback(*args)
    first = back(1.0)
    again = back(2.5)
    third = back(1.0)
    for a, b, c in zip(first, again, third):
        if a is not None:
            np.testing.assert_allclose(np.asarray(b), 2.5 * np.asarray(a), rtol=1e-12)
            np.testing.assert_array_equal(np.asarray(c), np.asarray(a))


def test_a_written_argument_is_copied_only_when_written_later():
    """The forward sweep copies an argument of a product only where memory it reads is
    written afterwards."""
    def forward(fn, sig):
        func, _ = pipeline.primal_ir(fn, sig)
        return str(ad.differentiate(func, (0, 1)).fwd)
    assert forward(written_after_the_product, ("f64[2d]", "f64[1d]")).count("= copy ") == 1
    assert "= copy " not in forward(product_in_a_branch, ("f64[2d]", "f64[1d]", "i64"))


def test_shapes_that_do_not_align_raise_value_error_naming_the_line():
    def bad(A, x):
        return np.sum(A @ x)
    with pytest.raises(ValueError, match=r"not aligned.*line"):
        pyad.jit_grad(bad)(A3, np.ones(4))
    with pytest.raises(ValueError, match=r"not aligned.*line"):
        pyad.jit_grad(bad).grad(A3, np.ones(4))


@pytest.mark.parametrize("src, message", [
    ("np.sum(x, axis=(0, 0))", "duplicate value in axis"),
    ("np.sum(x, axis=3)", "out of bounds"),
    ("np.sum(x, axis=k)", "axis must be a constant"),
    ("np.sum(x, keepdims=k)", "keepdims must be True or False"),
    ("np.max(x, axis=0, keepdims=True)[None, None]", "1 to 3 dimensions"),
])
def test_bad_reduction_arguments_are_located_errors(src, message, tmp_path):
    assert_refused(tmp_path, "x, k", f"np.sum({src})", (np.ones((2, 3)), 1), message)
