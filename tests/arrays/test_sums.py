"""Float sums of arrays (`np.sum`, `np.mean` of an array, with and without axes: the `sum`
row, and the `vdot` of adjoints) run eight interleaved partial sums in a fixed order
(pyad/ir/loops.py, sum_each): the result is exactly the documented order, computed here in
Python; the same bits in f, value_and_grad, pullback and the interpreter; close to
math.fsum. Sums of expressions (fused into the frontend's loops, which the AD pass
differentiates) stay running sums: checked here too, so a change of either order shows up."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad.api.check

from .harness import check_function, compiled

LANES = 8


def blocked(a: np.ndarray) -> float:
    """The documented order: along the last axis, element j of each whole block of 8 goes to
    accumulator j % 8, the rest of the row to accumulator 0; accumulators added pairwise."""
    acc = [0.0] * LANES
    rows = a.reshape(-1, a.shape[-1]) if a.size else np.zeros((0, 0))
    for row in rows:
        whole = len(row) // LANES * LANES
        for j in range(whole):
            acc[j % LANES] += float(row[j])
        for j in range(whole, len(row)):
            acc[0] += float(row[j])
    while len(acc) > 1:
        acc = [acc[k] + acc[k + 1] for k in range(0, len(acc), 2)]
    return acc[0]


def libm(fn, x: np.ndarray) -> np.ndarray:
    """fn of each element through Python's math (libm, as compiled code calls it)."""
    return np.array([fn(v) for v in x.ravel()]).reshape(x.shape)


def total(x):
    return np.sum(x)


def total_of_squares(x):
    return np.sum(x * x)


def average(x):
    return np.mean(np.sin(x))


def row_sums(x):
    return np.sum(np.exp(x), axis=1)


def mean_of_array(x):
    return np.mean(x)


def array_axis_sums(x):
    return np.sum(x, axis=-1), np.sum(x, axis=0, keepdims=True)


def outer_axes(x):
    return np.sum(x, axis=(0, 2))


SHAPES = [(1,), (7,), (8,), (9,), (17,), (1000,), (3, 5), (4, 17), (2, 3, 9)]


def running(a: np.ndarray) -> float:
    acc = 0.0
    for v in a.ravel():
        acc += float(v)
    return acc


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sums_follow_the_documented_order(shape):
    x = np.random.default_rng(len(shape) * 100 + shape[-1]).normal(size=shape) * 10.0
    assert compiled(total)(x) == blocked(x)
    assert compiled(mean_of_array)(x) == blocked(x) / x.size
    assert compiled(total_of_squares)(x) == running(x * x)
    assert compiled(average)(x) == running(libm(math.sin, x)) / x.size
    if len(shape) == 2:
        rows, cols = compiled(array_axis_sums)(x)
        np.testing.assert_array_equal(rows, [blocked(r) for r in x])
        np.testing.assert_array_equal(cols, [[blocked(c) for c in x.T]])
        np.testing.assert_array_equal(compiled(row_sums)(x),
                                      [running(r) for r in libm(math.exp, x)])
    if len(shape) == 3:
        np.testing.assert_array_equal(compiled(outer_axes)(x),
                                      [blocked(x[:, j, :]) for j in range(shape[1])])


def test_sums_are_close_to_the_exact_sum():
    x = np.random.default_rng(4).normal(size=100_001) * np.exp(np.linspace(0, 20, 100_001))
    exact = math.fsum(x)
    got = compiled(total)(x)
    assert abs(got - exact) <= 1e-16 * (len(x) / LANES + 3) * np.sum(np.abs(x))


@pytest.mark.parametrize("fn", [total, mean_of_array, total_of_squares])
def test_the_same_bits_in_f_value_and_grad_pullback_and_the_interpreter(fn):
    x = np.random.default_rng(5).normal(size=(13, 21))
    f = compiled(fn)
    v = f(x)
    assert f.value_and_grad(x)[0] == v
    assert f.pullback(x)[0] == v
    assert pyad.api.check.interp_value_and_grad(f, x)[0] == v


def weighted(x, w, s):
    y = w * np.tanh(x)
    return np.sum(y) * s + np.mean(x * x) + np.sum(y * y)


def axis_sums(X):
    Y = np.cos(X)
    return np.sum(np.sum(X * X, axis=1) * np.sum(Y, axis=0)[:1]) + np.sum(np.sum(Y, axis=1))


@pytest.mark.parametrize("fn, args", [
    (weighted, (np.linspace(-2, 2, 29), np.linspace(0.5, 1.5, 29), 1.7)),
    (axis_sums, (np.random.default_rng(6).normal(size=(5, 19)),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_gradients_of_sums(fn, args):
    check_function(fn, args)
