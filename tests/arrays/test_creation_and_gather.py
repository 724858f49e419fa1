"""Array creation (`np.array`, `np.eye`, `np.identity`, `np.arange`, `np.linspace`,
`np.tril`, `np.triu`, `np.diag`), shape functions (`np.squeeze`, `np.expand_dims`) and
integer-array (fancy) indexing for reading: values against NumPy, gradients by the
differential harness (finite differences, the interpreter, the pullback). Repeated indices
check that a gather's gradient adds up (a scatter-add)."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from .harness import check_function
from ..modules import assert_refused

rng = np.random.default_rng(5)


def from_numbers(x, y):
    a = np.array([x, 2.0 * y, x * y])
    m = np.array([[x, 1.0], [y, x - y]])
    rows = np.array([a, a * a])
    return np.sum(a * a) + np.sum(m @ m) + np.sum(rows[1] - rows[0] * y)


def identities(x, n):
    e = np.eye(n) * x + np.eye(n, n + 1, k=1)[:, 1:] * 2.0 + np.identity(n)
    return np.sum(e @ e) + np.sum(np.eye(n, k=-1) * x)


def ranges(x, n):
    return np.sum(np.arange(n) * x) + np.sum(np.arange(1, 9, 3) * x) \
        + np.sum(np.arange(0.5, x, 0.25)) + np.sum(np.linspace(-x, x, 7) ** 2) \
        + np.sum(np.linspace(0.0, x, 4, endpoint=False)) + np.sum(np.arange(6, 0, -2) * x)


def triangles(A):
    return np.tril(A) * 2.0 - np.triu(A, 1) + np.tril(A, -1) * A, np.diag(A), np.diag(A[0])


def shapes(v, A):
    col = np.expand_dims(v, 1)
    return col * A, np.squeeze(A[:1], 0), np.squeeze(A[:, 1:2], axis=1) * v


def gathers(x, A, idx, rows, cols):
    return x[idx] * 2.0, A[rows, cols], A[:, idx], A[idx], A[rows] + A[rows, 0][:, None]


def repeated(x, idx):
    return np.sum(x[idx] ** 2)


def softmax_loss(logits, labels):
    n = logits.shape[0]
    mx = np.max(logits, axis=1, keepdims=True)
    lse = np.squeeze(mx, 1) + np.log(np.sum(np.exp(logits - mx), axis=1))
    return np.sum(lse - logits[np.arange(n), labels]) / n


@pytest.mark.parametrize("fn, args", [
    (from_numbers, (1.3, -0.7)),
    (identities, (0.6, 3)),
    (identities, (-1.1, 1)),
    (ranges, (2.3, 5)),
    (ranges, (0.8, 0)),
    (triangles, (rng.normal(size=(3, 4)),)),
    (triangles, (rng.normal(size=(3, 3)),)),
    (shapes, (rng.normal(size=3), rng.normal(size=(3, 2)))),
    (gathers, (rng.normal(size=5), rng.normal(size=(5, 5)), np.array([4, 0, -1, 2]),
               np.array([1, 3, 3]), np.array([0, -2, 4]))),
    (repeated, (rng.normal(size=4), np.array([0, 0, 3, 0, -1]))),
    (softmax_loss, (rng.normal(size=(6, 4)), np.array([0, 3, 1, 1, 2, 0]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_values_and_gradients(fn, args):
    check_function(fn, args)


def test_repeated_indices_add_their_gradients():
    g = pyad.jit_grad(repeated).grad(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 0, 3, 0, -1]))
    np.testing.assert_array_equal(g, [6.0, 0.0, 0.0, 16.0])


def test_out_of_bounds_index_arrays_raise_index_error_naming_the_line():
    f = pyad.jit_grad(repeated)
    with pytest.raises(IndexError, match=r"line \d+"):
        f(np.ones(3), np.array([0, 3]))
    with pytest.raises(IndexError, match=r"line \d+"):
        f.grad(np.ones(3), np.array([-4]))


@pytest.mark.parametrize("src, message", [
    ("x[np.ones((2, 2)) > 0.0]", "the boolean mask has more dimensions than the axes"),
    ("x[np.array([1.5])]", "index arrays must hold integers"),
    ("np.squeeze(x)", "np.squeeze takes an array and a constant axis"),
    ("np.tril(x)", "take an array of 2 or more"),
])
def test_refusals_are_located(src, message, tmp_path):
    assert_refused(tmp_path, "x", f"np.sum({src})", (np.ones(3),), message)


def array_or_number(x):
    a = x * 2.0
    if x[0] > 0:
        a = 1.0
    return np.sum(a)


def test_a_variable_that_changes_kind_is_a_located_error():
    with pytest.raises(pyad.PyadTypeError, match="arrays are not numbers") as info:
        pyad.jit_grad(array_or_number)(np.ones(3))
    assert info.value.filename == __file__ and info.value.line is not None


def squeeze_first(A):
    return np.squeeze(A, 0)


def test_squeeze_of_a_longer_axis_raises_value_error():
    f = pyad.jit_grad(squeeze_first)
    np.testing.assert_array_equal(f(np.ones((1, 3))), np.ones(3))
    with pytest.raises(ValueError, match="size not equal to one"):
        f(np.ones((2, 3)))


def joined(a, b, v):
    return np.concatenate([a, b], axis=1), np.concatenate((a, b * 2.0)), \
        np.stack([v, v * v]), np.stack([v, -v], axis=1), np.hstack([v, v[:2]]), \
        np.vstack([v, v]), np.concatenate([np.zeros((2, 1)), a[:, 1:]], axis=1)


def contractions(q, xc, A, v):
    return np.einsum("krc,nkc->nkr", q, xc), np.einsum("ij,jk->ik", A, A), \
        np.einsum("ij,j->i", A, v), np.einsum("i,i->", v, v), np.einsum("ij->ji", A), \
        np.einsum("ij,jk", A, A.T * 2.0), np.einsum("ii", A), np.einsum("ii->i", A), \
        np.einsum("ji", A), np.einsum("i,j", v, v), np.einsum("iij->j", np.stack([A, A]).T)


def ellipses(T, B, A, v):
    return np.einsum("...ij,...jk->...ik", T, B), np.einsum("...ij,jk", T, A), \
        np.einsum("ij...,j->i...", T, v), np.einsum("...i,...i", A, A), \
        np.einsum("...ii->...i", T), np.einsum("...", v), np.einsum("i...->...", A), \
        np.einsum("i...,i...->...", A, A)


def tensordots(T, A, v):
    return float(np.tensordot(A, A)), np.tensordot(A, v, axes=1), \
        np.tensordot(T, A, axes=([1, 2], [0, 1])), \
        np.tensordot(A, T, axes=(0, -1)), np.tensordot(v, v, 0), np.tensordot(T, v, ([2], [0]))


def _lse(a, axis):
    mx = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(mx, axis) + np.log(np.sum(np.exp(a - mx), axis=axis))


def helper_axis(a, v):
    return np.sum(_lse(a, 1)) + _lse(v, 0) + np.sum(_lse(a, 0))


@pytest.mark.parametrize("fn, args", [
    (joined, (rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), rng.normal(size=3))),
    (contractions, (rng.normal(size=(2, 3, 3)), rng.normal(size=(4, 2, 3)),
                    rng.normal(size=(3, 3)), rng.normal(size=3))),
    (helper_axis, (rng.normal(size=(3, 4)), rng.normal(size=5))),
    (ellipses, (rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 3, 4)), rng.normal(size=(3, 3)),
                rng.normal(size=3))),
    (tensordots, (rng.normal(size=(2, 3, 3)), rng.normal(size=(3, 3)), rng.normal(size=3))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_joining_and_contracting(fn, args):
    check_function(fn, args)


@pytest.mark.parametrize("expr, message", [
    ("np.tensordot(a, a, axes=3)", "axes=3 does not fit a 2-D and a 2-D array"),
    ("np.tensordot(a, a, axes=([0, 0], [0, 1]))", "two lists of distinct axes"),
    ("np.tensordot(a, a, axes=k)", "constant int or two constant lists"),
    ("np.tensordot(a, np.ones((3, 3, 3)), axes=0)", "np.tensordot: the result would have 5 axes"),
    ("np.tensordot(np.ones((3, 3, 3)), np.ones((2, 3, 3)), axes=([1], [1]))",
     "np.tensordot: the result would have 4 axes"),
])
def test_tensordot_refusals(tmp_path, expr, message):
    assert_refused(tmp_path, "a, k", expr, (np.ones((3, 3)), 1), message)


@pytest.mark.parametrize("expr, message", [
    ('np.einsum("...i...", a)', "do not fit a 2-D operand"),
    ('np.einsum("ijk...", a)', "do not fit a 2-D operand"),
    ('np.einsum("..i", a)', "do not fit a 2-D operand"),
    ('np.einsum("...i->......", a)', "bad output subscripts"),
    ('np.einsum("...i->i", a)', "need one in the output too"),
])
def test_einsum_ellipsis_refusals(tmp_path, expr, message):
    assert_refused(tmp_path, "a, k", expr, (np.ones((3, 3)), 1), message)


def test_parts_that_do_not_fit_raise_value_error():
    with pytest.raises(ValueError, match="must match exactly"):
        pyad.jit_grad(joined)(np.ones((2, 3)), np.ones((3, 3)), np.ones(3))
