"""The NumPy surface of the reductions (pyad/frontend/reductions.py, positions.py): a number in
place of the array, `initial=`, `where=`, `np.argmax`/`np.argmin` with `keepdims`, positional
axes, `np.nanmax`/`np.nanmin`. Each is checked by the harness against NumPy's value, central
finite differences, the interpreter and the pullback, on several shapes (size 1 included) and
on non-contiguous inputs; the refusals are located."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..modules import assert_refused
from .harness import check_function, relayout

rng = np.random.default_rng(21)


def of_numbers(x, n, t):
    return np.sum(x) + np.mean(x) + np.prod(x) + np.max(x) + np.min(x) + np.amax(x) \
        + np.sum(x, keepdims=True) + np.mean(x, axis=()) + np.sum(n) * x + np.prod(t) \
        + np.mean(n) + np.max(n, initial=4) + np.sum(x, initial=1.5, where=t) \
        + np.mean(x, where=t) + np.prod(x, initial=2.0) + np.min(x, initial=0.25)


def of_number_types(n, t):
    return np.sum(n), np.max(t), np.min(n), np.prod(t), np.mean(t), np.sum(t)


def initials(a):
    return np.sum(a, initial=2.0) + np.prod(a, initial=0.5) + np.max(a, initial=0.5) \
        + np.min(a, initial=-0.2) + np.sum(np.max(a, axis=0, initial=1.0)) \
        + np.sum(a.min(axis=-1, initial=0.0, keepdims=True))


def masked(a):
    return np.sum(a, where=a > 0), np.mean(a, where=a >= np.median(a)), \
        np.prod(a, where=np.abs(a) < 1.0), np.sum(a, axis=0, where=a < 1.0, initial=1.0), \
        np.max(a, axis=-1, where=a < 0.5, initial=-1.0, keepdims=True), \
        np.min(a, axis=0, where=np.ones(a.shape[-1], dtype=bool), initial=9.0), \
        a.sum(where=a > 0, axis=1), np.mean(a * 2.0, axis=1, where=True)


def masked_int(k, a):
    return np.sum(k, where=k > 0), np.max(k, where=k < 3, initial=-100), \
        np.sum(a * k, where=k != 0, initial=1)


def empty_with_initial(a):
    return np.max(a[:0], initial=3.0) + np.sum(a[:0], initial=1.0) \
        + np.min(a[:0], where=a[:0] > 0, initial=-2.0)


def positions_keepdims(a):
    return np.argmax(a, axis=1, keepdims=True), np.argmin(a, axis=0, keepdims=True), \
        np.argmax(a, keepdims=True), a.argmin(-1, keepdims=True), np.argmax(a, 0)


def gather_by_argmax(a):
    i = np.argmax(a, axis=-1, keepdims=True)
    return np.sum(np.take_along_axis(a, i, axis=-1) ** 2)


def extremes_of_bools(a):
    return np.max(a > 0), np.min(a > 0, axis=0), np.max(a > 0, axis=1, keepdims=True), \
        (a > 0).max(), np.max(a > 0, where=a < 1.0, initial=False), np.amin(a > 0, initial=True)


def positional_axes(a):
    return np.std(a, 0) + np.var(a, 0, ddof=1) + a.std(0) + np.sum(a.var(-1))


def nan_extremes(a):
    b = np.where(a > 1.2, np.nan, a)
    return np.nanmax(b) + np.nanmin(b) + np.sum(np.nanmax(b, axis=0)) \
        + np.sum(np.nanmin(b, axis=-1, keepdims=True))


def all_nan_rows(a):
    b = np.where(a > 0.0, np.nan, a)
    return np.nanmax(b, axis=1)


def masked_number(x, t):
    return np.sum(x, where=t), np.prod(x, where=t), np.max(x, where=t, initial=-1.0), \
        np.mean(x, where=t)


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
@pytest.mark.parametrize("x, n, t", [(2.5, 3, True), (-0.5, 1, True), (0.5, 0, False)])
def test_reductions_of_a_number_are_the_number(x, n, t):
    if t:
        check_function(of_numbers, (x, n, t))
    check_function(of_number_types, (n, t))
    with np.errstate(invalid="ignore"):
        want = masked_number(x, t)
    got = pyad.jit_grad(masked_number)(x, t)
    np.testing.assert_array_equal(np.array(got), np.array(want))


@pytest.mark.parametrize("shape", [(3, 4), (1, 1), (1, 5), (2, 3, 2)])
def test_initial_and_where_like_numpy(shape):
    a = rng.normal(size=shape)
    check_function(initials, (a,))
    if len(shape) == 2:
        check_function(masked, (a,))
        check_function(masked, (relayout(a, "strided")[0],))
        check_function(masked_int, (rng.integers(-3, 5, size=shape), a))
    check_function(empty_with_initial, (a,))


def test_a_mean_over_nothing_is_nan_like_numpy():
    f = pyad.jit_grad(masked)
    a = rng.normal(size=(2, 3)) - 10.0
    with np.errstate(invalid="ignore"):
        want = masked(a)
    for got, w in zip(f(a), want):
        np.testing.assert_array_equal(got, w)


@pytest.mark.parametrize("shape", [(3, 4), (1, 1), (4, 1)])
def test_argmax_and_argmin_keep_dims(shape):
    a = rng.normal(size=shape)
    check_function(positions_keepdims, (a,))
    check_function(positions_keepdims, (relayout(a, "transposed")[0],))
    check_function(gather_by_argmax, (a,))


@pytest.mark.parametrize("shape", [(3, 2), (1, 1)])
def test_max_and_min_of_bools_are_bools(shape):
    check_function(extremes_of_bools, (rng.normal(size=shape),))


def test_var_and_std_take_a_positional_axis():
    check_function(positional_axes, (rng.normal(size=(3, 4)),))


@pytest.mark.parametrize("shape", [(3, 4), (1, 2)])
def test_nanmax_and_nanmin_skip_nans(shape):
    a = rng.normal(size=shape)
    a.flat[0] = 0.3   # one element that is not nan in every row and column of (1, 2)
    check_function(nan_extremes, (a,))
    a = np.array([[1.0, 2.0], [-1.0, 0.5]])
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):
        want = all_nan_rows(a)
    np.testing.assert_array_equal(pyad.jit_grad(all_nan_rows)(a), want)
    y, back = pyad.jit_grad(all_nan_rows).pullback(a)
    assert np.isfinite(back(np.ones(2))).all()


@pytest.mark.parametrize("src, message", [
    ("np.max(x, where=x > 0)", "np.max with where= needs initial="),
    ("np.sum(k, initial=0.5)", "a float initial= for a reduction of ints"),
    ("np.mean(x, initial=1.0)", "unsupported keyword argument `initial`"),
    ("np.sum(2.0, axis=0)", "axis 0 is out of bounds for a number"),
    ("np.sum(x, where=np.ones((2, 2, 3), dtype=bool))", "cannot broadcast a 3-D value"),
])
def test_what_numpy_refuses_is_refused_at_the_call(src, message, tmp_path):
    assert_refused(tmp_path, "x, k", src, (np.ones((2, 3)), np.ones(3, dtype=np.int64)),
                   message)
