"""The matrix product through compiled functions: `@`, np.dot and np.matmul of 1-D and 2-D
arrays run the runtime's blocked kernel (runtime/pyad_matmul.c) in the primal and in the
products of the adjoint. Values against NumPy on many shapes (empty, 1, odd, not multiples
of the kernel's tile or blocks) and argument layouts, views taken inside the function
(transposes, strided slices); gradients through the differential harness (interpreter,
finite differences, dot-product test, grad / value_and_grad / pullback bit-identical); the
same bits for a product in f, value_and_grad and pullback and in every layout."""
from __future__ import annotations

import numpy as np
import pytest

from .harness import LAYOUTS, check_function, compiled, relayout

SHAPES = [(0, 3, 2), (2, 0, 3), (3, 2, 0), (1, 1, 1), (1, 5, 1), (1, 7, 9), (9, 7, 1),
          (2, 3, 4), (7, 9, 17), (13, 1, 11), (25, 31, 33), (5, 300, 11), (100, 9, 130)]


def product(A, B):
    return A @ B


def dot(A, B):
    return np.dot(A, B)


def matmul(A, B):
    return np.matmul(A, B)


def transposes(A, B):
    return A.T @ B.T


def strided_views(A, B):
    return A[::2, 1:] @ B[:-1, ::3]


def _close(got, want, a, b):
    """|got - want| within the error bound of any order of summation."""
    a2, b2 = a if a.ndim == 2 else a[None, :], b if b.ndim == 2 else b[:, None]
    bound = 4e-16 * (a2.shape[1] + 1) * (np.abs(a2) @ np.abs(b2)).reshape(np.shape(want))
    assert np.shape(got) == np.shape(want)
    assert np.all(np.abs(np.asarray(got) - want) <= bound)


@pytest.mark.parametrize("fn", [product, dot, matmul])
@pytest.mark.parametrize("m, k, n", SHAPES, ids=str)
def test_products_of_matrices_and_vectors_match_numpy(fn, m, k, n):
    rng = np.random.default_rng(m + 7 * k + 31 * n)
    a, b = rng.normal(size=(m, k)), rng.normal(size=(k, n))
    u, v = rng.normal(size=k), rng.normal(size=k)
    f = compiled(fn)
    for x, y in ((a, b), (a, v), (u, b), (u, v)):
        _close(f(x, y), fn(x, y), x, y)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_argument_layouts_give_the_same_bits(layout):
    rng = np.random.default_rng(2)
    a, b, x = rng.normal(size=(19, 23)), rng.normal(size=(23, 10)), rng.normal(size=23)
    f = compiled(product)
    for u, v in ((a, b), (a, x), (x, b), (x, x)):
        want = f(u, v)
        lu, lv = relayout(u, layout)[0], relayout(v, layout)[0]
        for args in ((lu, v), (u, lv), (lu, lv)):
            np.testing.assert_array_equal(f(*args), want)


@pytest.mark.parametrize("fn", [transposes, strided_views])
def test_views_taken_in_the_function(fn):
    rng = np.random.default_rng(3)
    if fn is transposes:
        a, b = rng.normal(size=(21, 14)), rng.normal(size=(22, 21))
        x, y = a.T, b.T
    else:
        a, b = rng.normal(size=(21, 14)), rng.normal(size=(14, 30))
        x, y = a[::2, 1:], b[:-1, ::3]
    _close(compiled(fn)(a, b), fn(a, b), x, y)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 40,
                               63, 64, 65, 127, 128, 129])
def test_products_around_the_tiles_have_the_bits_of_vector_products(n):
    """Sizes around the kernel's tiles and blocks, k = 0, 1 and near n: each row (column) of
    A @ B is bit for bit the vector-matrix (matrix-vector) product, which runs the kernel's
    matrix-vector code, also with transposed operands; and within rounding of NumPy's."""
    rng = np.random.default_rng(n)
    f, ft = compiled(product), compiled(transposes)
    for k, n2 in ((0, n), (1, n), (n, n + 1), (n + 3, max(1, n - 4))):
        a, b = rng.normal(size=(n, k)), rng.normal(size=(k, n2))
        c = f(a, b)
        _close(c, a @ b, a, b)
        for i in {0, n // 2, n - 1}:
            np.testing.assert_array_equal(c[i], f(a[i], b))
        for j in {0, n2 // 3, n2 - 1}:
            np.testing.assert_array_equal(c[:, j], f(a, b[:, j]))
        np.testing.assert_array_equal(ft(np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)), c)
        np.testing.assert_array_equal(f(np.asfortranarray(a), b[:, ::-1][:, ::-1]), c)


# ------------------------------------------------------------------------------ gradients

def layer(X, W, b):
    return np.sum(np.tanh(X @ W + b))


def quadratic_form(A, x):
    return x @ A @ x


def chain(A, B, x):
    return np.sum((A.T @ B) @ x) + np.dot(x, x) + np.sum(np.matmul(x, B.T))


def two_layers(X, W1, W2):
    H = np.tanh(X @ W1)
    return np.sum((H @ W2.T) ** 2) / X.shape[0]


def sliced_product(A, B):
    return np.sum(np.sin(A[1::2, ::-1] @ B[:, 2:]))


def array_result(A, B):
    return np.tanh(A @ B.T)


rng = np.random.default_rng(17)


@pytest.mark.parametrize("fn, args", [
    (layer, (rng.normal(size=(7, 5)), rng.normal(size=(5, 9)), rng.normal(size=9))),
    (layer, (rng.normal(size=(33, 20)) / 5, rng.normal(size=(20, 17)), rng.normal(size=17))),
    (quadratic_form, (rng.normal(size=(6, 6)), rng.normal(size=6))),
    (chain, (rng.normal(size=(7, 4)), rng.normal(size=(7, 5)), rng.normal(size=5))),
    (two_layers, (rng.normal(size=(13, 6)), rng.normal(size=(6, 11)), rng.normal(size=(3, 11)))),
    (sliced_product, (rng.normal(size=(9, 8)), rng.normal(size=(8, 12)))),
    (array_result, (rng.normal(size=(5, 3)), rng.normal(size=(4, 3)))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_gradients_of_products(fn, args):
    check_function(fn, args)


@pytest.mark.parametrize("layout", ["transposed", "strided", "negative"])
def test_gradients_with_laid_out_arguments(layout):
    X, W, b = rng.normal(size=(10, 7)), rng.normal(size=(7, 9)), rng.normal(size=9)
    f = compiled(layer)
    want = f.value_and_grad(X, W, b)
    args = (relayout(X, layout)[0], relayout(W, layout)[0], b)
    check_function(layer, args)
    got = f.value_and_grad(*args)
    assert got[0] == want[0]
    for g, w in zip(got[1], want[1]):
        np.testing.assert_array_equal(g, w)


def test_the_value_has_the_same_bits_in_f_value_and_grad_and_pullback():
    X, W, b = rng.normal(size=(40, 30)), rng.normal(size=(30, 20)), rng.normal(size=20)
    f = compiled(layer)
    v = f(X, W, b)
    assert f.value_and_grad(X, W, b)[0] == v
    assert f.pullback(X, W, b)[0] == v
    g = compiled(array_result)
    y = g(X, W.T)
    np.testing.assert_array_equal(g.pullback(X, W.T)[0], y)
