"""NumPy spellings a probe of issue 15's list found refused, now compiled: `np.vstack` of 1-D
and 2-D parts (a 1-D part is a row), `np.logaddexp.reduce` over a tuple of axes or all of
them, the method `a.squeeze(axis)`, `np.inner` of 2-D operands, scans, sorts, gathers and
repeats of N-D arrays without an axis (the flattened array), `np.<ufunc>.accumulate`. Each
checked by the harness:
value against NumPy, gradient against central differences and the interpreter, and on
non-contiguous inputs; the refusals that stay say what to write instead."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from .harness import check_function, relayout


def vstack_rows_and_matrix(x):
    return np.sum(np.sin(np.vstack([x[1], x, x[0]])) * np.arange(5.0)[:, None])


def vstack_row_last(x, v):
    return np.sum(np.vstack([x, v]) ** 2 * np.arange(x.shape[0] + 1.0)[:, None])


def logaddexp_over_both_axes(x):
    return np.logaddexp.reduce(x, axis=(0, 1))


def logaddexp_over_everything(x):
    return np.sum(np.logaddexp.reduce(x, axis=None, keepdims=True) * x)


def logaddexp_negative_tuple(x):
    return np.sum(np.logaddexp.reduce(x * x, axis=(-1,)) ** 2)


def squeeze_methods(x):
    return np.sum(x[0:1].squeeze(0) ** 2) + np.sum(np.cos(x[:, 1:2].squeeze(axis=1)))


def inner_of_matrices(x):
    return np.sum(np.inner(x, x) ** 2)


def inner_matrix_vector(x, v):
    return np.sum(np.inner(x, v) ** 3) + np.sum(np.sin(np.inner(v, x)))


def flattening_scans(x):
    """Without an axis, NumPy's scans, sorts, gathers and repeats see the flattened array."""
    return np.sum(np.cumsum(x) ** 2) + np.sum(np.cumprod(x * 0.5)) + \
        np.sum(np.repeat(x, 2) * np.arange(2.0 * x.size))


def flattening_sorts_and_gathers(x):
    k = np.array([[0, x.size - 1], [5, 2]])
    return np.sum(np.sort(x, axis=None) * np.arange(x.size + 0.0)) + \
        np.sum(x.ravel()[np.argsort(x, axis=None)][:3] ** 3) + np.sum(np.take(x, k) ** 2) + \
        np.sum(np.take_along_axis(x, k[0], axis=None) ** 3)


def flattening_methods(x):
    k = np.array([[0, x.size - 1], [5, 2]])
    return np.sum(x.T.cumsum() ** 2) + np.sum(x.repeat(3) ** 2) + np.sum(x.take(k) ** 2) + \
        np.sum(np.sin(x[:, ::-1].cumprod()))


def ufunc_accumulations(x):
    """np.<ufunc>.accumulate: running sums, products, maxima and minima (axis 0 by
    default, as NumPy), e.g. a drawdown."""
    w = np.cumsum(x[0])
    return np.sum(np.maximum.accumulate(x) * x) + np.sum(np.minimum.accumulate(x, axis=1) ** 2) \
        + np.sum(np.add.accumulate(x[:, 1]) ** 3) + np.sum(np.multiply.accumulate(x, 1)) + \
        np.max(np.maximum.accumulate(w) - w)


X = np.sin(np.arange(12.0) * 0.7 + 0.3).reshape(3, 4)
V = np.cos(np.arange(4.0) * 1.3)
CASES = [(vstack_rows_and_matrix, (X,)), (vstack_row_last, (X, V)),
         (logaddexp_over_both_axes, (X,)), (logaddexp_over_everything, (X,)),
         (logaddexp_negative_tuple, (X,)), (squeeze_methods, (X,)),
         (inner_of_matrices, (X,)), (inner_matrix_vector, (X, V)),
         (flattening_scans, (X,)), (flattening_sorts_and_gathers, (X,)),
         (flattening_methods, (X,)), (ufunc_accumulations, (X,))]
IDS = [fn.__name__ for fn, _ in CASES]


@pytest.mark.parametrize("fn,args", CASES, ids=IDS)
def test_values_and_gradients(fn, args):
    check_function(fn, args)


@pytest.mark.parametrize("fn,args", CASES, ids=IDS)
def test_on_strided_inputs(fn, args):
    check_function(fn, tuple(relayout(a, "strided")[0] for a in args))


def int_running_extremes(k):
    return np.minimum.accumulate(k), np.maximum.accumulate(k[::-1]), np.add.accumulate(k)


def test_int_accumulations_start_from_their_identities():
    k = np.array([3, 1, 4, 1, 5, -9])
    for got, want in zip(pyad.jit_grad(int_running_extremes)(k), int_running_extremes(k)):
        np.testing.assert_array_equal(got, want)


def test_one_row_matrix():
    check_function(inner_of_matrices, (X[:1],))
    check_function(logaddexp_over_both_axes, (X[:1],))


def squeeze_method_without_axis(x):
    return np.sum(x[0:1].squeeze())


def logaddexp_repeated_axis(x):
    return np.logaddexp.reduce(x, axis=(1, -1))


def add_at_with_a_mask(x):
    y = np.zeros(x.shape)
    np.add.at(y, x > 0, 1.0)
    return np.sum(y * x)


@pytest.mark.parametrize("fn,needle,hint", [
    (squeeze_method_without_axis, "a.squeeze() takes a constant axis", "needs its axis"),
    (logaddexp_repeated_axis, "out of bounds or repeated", ""),
    (add_at_with_a_mask, "np.add.at with a boolean mask", "a[m] += v"),
], ids=lambda v: v.__name__ if callable(v) else None)
def test_refusals_say_what_to_write(fn, needle, hint):
    with pytest.raises((pyad.PyadTypeError, pyad.PyadSyntaxError)) as info:
        pyad.jit_grad(fn)(X)
    text = str(info.value)
    assert needle in text and hint in text and "test_surface_gaps.py" in text
