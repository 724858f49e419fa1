"""`np.broadcast_to`, `np.take`, `np.take_along_axis`, `np.kron` (pyad/frontend/gathers.py),
`np.logaddexp.reduce`, `np.sign`, boolean masks (of all axes or some, read and written),
slices next to index arrays and batched `@` of 3-D arrays: values
against NumPy, gradients by the differential harness (finite differences, the interpreter,
the dot-product test), on several shapes, size 1, non-contiguous arguments and broadcasting;
located refusals."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..modules import assert_refused, returning
from .harness import check_function, relayout

rng = np.random.default_rng(21)


def gathers(a, v, t):
    idx = np.array([2, 0, -1, 2])
    cols = np.array([[1], [0], [2]])
    return np.broadcast_to(v[:3], (2, 3)) * 2.0, np.broadcast_to(a[:, :1], (3, 4)) + a, \
        np.take(v, idx), np.take(a, idx, axis=1), np.take(a, np.array([[0, 1], [2, 2]]), axis=0), \
        np.take(a, 1, axis=1), np.take(v, -2), \
        np.take_along_axis(a, cols, axis=1), np.take_along_axis(a, np.array([[2, 0, 1, 1]]), 0), \
        np.take_along_axis(t, np.zeros((2, 3, 1), dtype=np.int64), axis=-1)


def products(a, v, t):
    return np.kron(v[:2], v), np.kron(a[:2, :2], a), np.kron(v[:2], a[:2]), \
        np.kron(np.eye(2), a[:2, :3])


def reductions(a, v, t):
    return np.logaddexp.reduce(v), np.logaddexp.reduce(a), np.logaddexp.reduce(a, axis=1), \
        np.logaddexp.reduce(t, axis=-1, keepdims=True), np.sign(v) * v, np.sign(a - 0.5)


def mask_writes(a, v, t):
    y = a.copy()
    y[y > 0.3] = 0.5
    z = v.copy()
    z[z < 0] = v[v < 0] * 3.0           # one value per True, in row-major order
    w = a.copy()
    w[w < 0] += a[w < 0] ** 2
    u = t.copy()
    u[u > 0] -= 1.0
    s = v.copy()
    s[s > 100.0] = v[:0]                 # no True element, an empty value
    q = v.copy()
    q[q > 0] = np.array([7.0])           # one element: NumPy broadcasts it
    return y * a, z, w, u, s, q


def partial_masks(a, v, t):
    """Masks of some axes (NumPy: the index arrays m.nonzero()) and bounded slices next to
    index arrays, read and written."""
    u = a.copy()
    u[a[:, 2] < 0.3] = 0.25
    w = a.copy()
    w[:, a[1] > 0] *= 2.0
    q = np.zeros(a.shape)
    q[a[:, 0] > -0.5, ::2] = a[a[:, 0] > -0.5, 1::2] * 3.0
    return a[a[:, 0] > -0.5], a[:, a[0] < 0.5] ** 2, a[a[:, 1] > -2.0, 1:3], u, w, q, \
        t[t[:, 0, 0] > -5.0], t[:, t[0, :, 0] > -5.0, ::-2], t[t[:, :, 1] > 0.0] * 2.0, \
        a[[0, 2], 1:], a[::-1, [3, 0]], t[1:, [0, 2], ::-1], v[v > 0][::-1]


def stacks(a, v, t):
    tt = t[:, ::-1, :]                               # (2, 3, 4), a view
    m = a[:, :3]                                     # (3, 3)
    return tt @ np.ones((4, 2)) @ np.ones((2, 2)), \
        t[:, :, :3] @ m, m @ t, t[:1] @ np.stack([a.T, a.T]), t @ v[:4], v[:3] @ t


CASES = [gathers, products, reductions, mask_writes, partial_masks, stacks]


def _args(layout=None, n=4):
    a = rng.normal(size=(3, n))
    v = rng.normal(size=5)
    t = rng.normal(size=(2, 3, 4))
    if layout is None:
        return a, v, t
    return tuple(relayout(x, layout)[0] for x in (a, v, t))


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("layout", [None, "negative"])
def test_values_and_gradients(fn, layout):
    check_function(fn, _args(layout))


def logsumexp_rows(a):
    return np.sum(np.logaddexp.reduce(a, axis=1))


def test_logaddexp_reduce_gradient_is_the_softmax_and_handles_infinities():
    a = np.array([[1.0, 1.0, -np.inf], [-np.inf, -np.inf, -np.inf], [np.inf, 0.0, 2.0]])
    f = pyad.jit_grad(logsumexp_rows)
    want = np.logaddexp.reduce(a, axis=1)
    np.testing.assert_array_equal(pyad.jit_grad(rows_lse)(a), want)
    g = f.grad(a[:1])
    np.testing.assert_allclose(g, [[0.5, 0.5, 0.0]], rtol=1e-15)
    assert f(a[:1]) == want[0]


def rows_lse(a):
    return np.logaddexp.reduce(a, axis=1)


def mask_assign(x, m, v):
    y = x.copy()
    y[m] = v
    return np.sum(y * x)


def test_mask_write_value_of_the_wrong_length_raises():
    f = pyad.jit_grad(mask_assign)
    x = np.arange(4.0)
    m = np.array([True, False, True, True])
    assert f(x, m, np.array([1.0, 2.0, 3.0])) == mask_assign(x, m, np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="boolean mask assignment"):
        f(x, m, np.array([1.0, 2.0]))
    with pytest.raises(IndexError, match="boolean index did not match"):
        f(x, np.array([True, False]), np.array([1.0]))


def row_mask(x, m):
    return np.sum(x[m] ** 2)


def test_a_mask_of_the_wrong_length_raises_index_error():
    f = pyad.jit_grad(row_mask)
    x = np.ones((3, 2))
    assert f(x, np.array([True, False, True])) == 4.0
    with pytest.raises(IndexError, match="boolean index did not match"):
        f(x, np.array([True, False]))


def test_stack_sizes_that_do_not_broadcast_raise():
    with pytest.raises(ValueError, match="stack sizes"):
        pyad.jit_grad(stack_product)(np.ones((2, 2, 2)), np.ones((3, 2, 2)))
    check_function(stack_product, (rng.normal(size=(1, 2, 3)), rng.normal(size=(4, 3, 2))))


def stack_product(x, y):
    return x @ y


def int_stacks(k, m, v):
    """Integer stacks: element loops per matrix, int64 results as in NumPy."""
    return k @ m, m[:2, :2] @ k[:, :2, :], k @ v, np.matmul(k[:1], m) * 1.5


def test_integer_stacks():
    ints = np.random.default_rng(4)
    check_function(int_stacks, (ints.integers(-5, 5, size=(2, 3, 4)),
                                ints.integers(-5, 5, size=(4, 2)), np.array([1.5, -2.0, 0.5, 1.0])))


@pytest.mark.parametrize("src, message", [
    ("np.take(x, k, axis=0, mode='wrap')", "mode is not supported"),
    ("np.take_along_axis(x, k)", "needs an axis"),
    ("np.take_along_axis(x, np.array([0, 1]), axis=0)", "as many dimensions as the array"),
    ("np.add.reduce(x)", "np.add.reduce is not supported"),
    ("np.subtract.accumulate(x)", "np.subtract.accumulate is not supported"),
    ("np.logaddexp.accumulate(x)", "np.logaddexp.accumulate is not supported"),
    ("np.dot(np.ones((2, 2, 2)), np.ones((2, 2, 2)))", "np.dot of two 3-D arrays"),
    ("np.unique(x)", r"unsupported numpy function `np.unique`"),
    ("np.broadcast_to(x, (2, 3, 4, 5))", "1 to 3 dimensions"),
])
def test_refusals_are_located(src, message, tmp_path):
    assert_refused(tmp_path, "x, k", f"np.sum({src})", (np.ones((2, 3)), np.array([[0]])),
                   message)


def test_refusal_hint_for_a_missing_elementwise_function(tmp_path):
    f = returning(tmp_path, "x", "np.sum(np.histogram(x))")
    with pytest.raises(pyad.PyadError) as info:
        pyad.jit_grad(f)(np.ones(2))
    assert "np.searchsorted(edges, x) gives each element's bin" in str(info.value)
    add = returning(tmp_path, "x", "np.add.reduce(x)")
    with pytest.raises(pyad.PyadError) as info:
        pyad.jit_grad(add)(np.ones(2))
    assert "np.sum(a, axis=0)" in str(info.value)
