"""Basic indexing as NumPy defines it: slices with steps on every axis (negative steps and
bounds, empty results), `None`/`np.newaxis`, integers after slices. Values against NumPy on
every combination of bounds and steps; gradients (views read, views written through) by
the differential harness."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import pyad

from ..modules import returning
from .harness import check_function


def stepped(x, lo, hi, st):
    return x[lo:hi:st]


def open_start(x, hi, st):
    return x[:hi:st]


def open_stop(x, lo, st):
    return x[lo::st]


def only_step(x, st):
    return x[::st]


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_slices_match_python_on_every_bound_and_step(n):
    x = np.arange(n, dtype=float) * 1.5 - 2.0
    f, fa, fb, fc = (pyad.jit_grad(g) for g in (stepped, open_start, open_stop, only_step))
    bounds, steps = range(-7, 8), (-3, -2, -1, 1, 2, 3)
    for lo, hi, st in itertools.product(bounds, bounds, steps):
        np.testing.assert_array_equal(f(x, lo, hi, st), x[lo:hi:st])
    for b, st in itertools.product(bounds, steps):
        np.testing.assert_array_equal(fa(x, b, st), x[:b:st])
        np.testing.assert_array_equal(fb(x, b, st), x[b::st])
    for st in steps:
        np.testing.assert_array_equal(fc(x, st), x[::st])
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        fc(x, 0)


def strided_2d(a):
    return a[::2, 1:] * a[1::2, :-1], a[::-1, ::-2], a[1:, 2], a[-1, ::2]


def new_axes(a, v):
    d = a[:, None, :] - a[None, :, :]
    return np.sum(d * d, axis=2) + v[:, np.newaxis] * v[None], a[None]


def three_d(t):
    return t[:, ::2, -1], t[1, :, ::-1], t[::-1, 1, None], t[:, 1:, 0]


def write_through_views(a, v):
    b = a.copy()
    b[::2, 1:] = v[None, 1:] * 2.0
    b[1::2, ::-1] += b[::2, :] * v
    b[:, None, 0][1:] = 0.5
    return b


rng = np.random.default_rng(3)


@pytest.mark.parametrize("fn, args", [
    (strided_2d, (rng.normal(size=(4, 4)),)),
    (strided_2d, (rng.normal(size=(6, 3)),)),
    (new_axes, (rng.normal(size=(4, 3)), rng.normal(size=4))),
    (three_d, (rng.normal(size=(3, 4, 2)),)),
    (write_through_views, (rng.normal(size=(4, 3)), rng.normal(size=3))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_views_values_and_gradients(fn, args):
    check_function(fn, args)


def test_indexing_errors_are_located(tmp_path):
    f = returning(tmp_path, "t", "t[0, 0, None, None, None, None]")
    with pytest.raises(pyad.PyadTypeError, match="1 to 3 dimensions") as info:
        pyad.jit_grad(f)(np.ones((2, 2, 2)))
    assert info.value.line == 5
