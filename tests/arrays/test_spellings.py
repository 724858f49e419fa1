"""Spellings NumPy users write that pyad takes as NumPy does: the function spellings of the
operators (`np.add`, `np.divide`, `np.greater`, ...), `np.fmax`/`np.fmin`, `np.heaviside`,
`np.float_power`, `np.isclose`/`np.allclose`, `ufunc.outer`, `np.float64(x)`, `np.int64`,
`np.bool_` conversions, `a.item()`, np.clip's keyword bounds, tuple axes of np.squeeze and
np.expand_dims, reductions of lists and tuples (`np.prod(a.shape)`, `np.max([x, y])`) and
with `dtype=`; values against NumPy, gradients by the harness; refusals located."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..modules import assert_refused
from .harness import check_function, relayout

rng = np.random.default_rng(61)


def operators(x, y):
    return np.add(x, y), np.subtract(x, 1), np.multiply(x, 2.0), np.divide(x, y), \
        np.true_divide(x, 3), np.floor_divide(x, 0.3), np.add(1.5, 2), np.divide(2.0, 0.5)


def comparisons(x, y):
    return np.greater(x, 0), np.less_equal(x, y), np.equal(x, x), np.not_equal(x, y), \
        np.less(x, 0.1), np.greater_equal(y, x), np.isclose(x, y), np.isclose(x, x + 1e-9), \
        np.allclose(x, x), np.allclose(x, y, atol=10.0), np.isclose(x, y, 0.5, 0.5), \
        np.isclose(x * np.nan, x * np.nan, equal_nan=True), np.isclose(1.0, 1.0 + 1e-9)


def nan_aware(x, y):
    z = np.where(x > 0.5, np.nan, x)
    return np.fmax(z, y), np.fmin(y, z), np.fmax(z, 0.0), np.heaviside(x, 0.5) * x, \
        np.float_power(np.abs(x) + 0.1, 1.5), np.float_power(np.arange(3), 2)


def outers(x, y, a):
    return np.multiply.outer(x, y), np.add.outer(x, y[:2]), np.subtract.outer(x[:2], y), \
        np.maximum.outer(x, y), np.multiply.outer(a, x), np.greater.outer(x, y)


def conversions(a, x, n):
    return np.float64(x) * np.sum(a) + float(np.float64(a[0, 0])), np.float64(a) * 2.0, \
        np.int64(a * 3.0), np.bool_(a > 0.1), np.int64(x) + np.int64(n), np.bool_(n)


def items(a):
    return a[:1, :1].item() * a[1].sum() + a[1:2, 2:].item()


def clip_keywords(a):
    return np.clip(a, a_min=0.0, a_max=None), a.clip(min=-0.2, max=None), \
        np.clip(a, min=0.1), a.clip(max=0.3), np.clip(a, a_min=-0.5, a_max=0.5)


def axes_tuples(v, a):
    return np.expand_dims(v, (0, 2)) * np.ones((2, 1, 2)), np.expand_dims(v, (-1, 0)), \
        np.squeeze(a[None, :, None, 0], axis=(0, 2)), np.squeeze(a[:1, None], (0, 1))


def of_sequences(a):
    return np.sum(a) / np.prod(a.shape) + np.sum([a[0, 0], a[1, 1]]) \
        + np.mean([a[0, 1], 2.0, a[1, 2]]) + np.max([a[0, 0], a[1, 0]]) \
        + np.min((a[0, 0], 0.5)) + np.sum((a[0], a[1]))


def with_dtype(a, k):
    return np.sum(a, dtype=np.float64) + np.mean(a, dtype=float) + np.sum(k, dtype=float) \
        + np.prod(k > 0, dtype=int) + np.sum(a * 4.0, dtype=int, axis=0).sum()


@pytest.mark.parametrize("n", [1, 4])
def test_operator_spellings_comparisons_and_outer(n):
    x, y = rng.normal(size=n), rng.normal(size=n)
    check_function(operators, (x, y))
    check_function(operators, (relayout(x, "negative")[0], rng.integers(1, 4, size=n)))
    check_function(comparisons, (x, y))
    check_function(nan_aware, (x, y))
    check_function(outers, (x, y, rng.normal(size=(2, 2))))


def test_conversions():
    a = rng.normal(size=(2, 3))
    check_function(conversions, (a, 2.7, 3))
    check_function(conversions, (relayout(a, "negative")[0], -1.5, 0))


def test_item_of_a_one_element_array():
    check_function(items, (rng.normal(size=(2, 3)),))
    with pytest.raises(ValueError, match="can only convert an array of size 1"):
        pyad.jit_grad(items)(rng.normal(size=(3, 4)))


@pytest.mark.parametrize("shape", [(5,), (2, 3)])
def test_clip_keywords(shape):
    check_function(clip_keywords, (rng.normal(size=shape),))


def test_squeeze_and_expand_dims_take_tuples_of_axes():
    check_function(axes_tuples, (rng.normal(size=2), rng.normal(size=(3, 2))))


def test_reductions_of_lists_tuples_and_with_dtype():
    a = rng.normal(size=(2, 3))
    check_function(of_sequences, (a,))
    check_function(with_dtype, (a, rng.integers(-2, 3, size=(2, 3))))


@pytest.mark.parametrize("src, message", [
    ("x.tolist()", r"a.tolist\(\) of a 2-D array \(a list of lists\) is not supported"),
    ("np.expand_dims(x, (0, 0))", "repeated axis"),
    ("np.squeeze(x, (0, 5))", "out of bounds"),
    ("np.sum(x, dtype=np.complex128)", "unsupported dtype complex128"),
    ("np.float64(x, x)", "np.float64 takes 1 argument"),
    ("np.max(x, dtype=int)", "unsupported keyword argument `dtype`"),
    ("np.multiply.outer(x, x)", "would have 4 dimensions"),
    ("np.subtract.at(x, 0, 1.0)", "np.subtract.at is not supported"),
    ("np.add(x, x, out=x)", "takes no keyword arguments"),
])
def test_refusals_are_located(src, message, tmp_path):
    assert_refused(tmp_path, "x", f"np.sum({src})", (np.ones((1, 3)),), message)
