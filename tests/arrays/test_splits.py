"""np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit (pyad/frontend/splits.py): the
parts against NumPy's bit for bit (a list of that length, views of the array), gradients
through them by the harness (central finite differences, the interpreter, the pullback),
and the errors."""
from __future__ import annotations

import numpy as np
import pytest

import pyad
from pyad.errors import PyadTypeError

from .harness import check_function, line_of


def equal_parts(x):
    return np.split(x, 3)


def at_indices(x):
    return np.split(x, [2, 5]), np.split(x, (-2, 1, 100)), np.split(x, [3, 1])


def columns(m):
    return np.split(m, 2, axis=1), np.array_split(m, 3, axis=-1), np.array_split(m, 5, 0)


def by_name(m, t):
    return np.hsplit(m, 2), np.vsplit(m, [1]), np.dsplit(t, 2), np.hsplit(m[0], 3)


@pytest.mark.parametrize("fn, args", [
    (equal_parts, (np.arange(6.0),)),
    (equal_parts, (np.arange(0.0),)),
    (at_indices, (np.arange(6.0),)),
    (at_indices, (np.arange(2.0),)),
    (columns, (np.arange(12.0).reshape(3, 4),)),
    (columns, (np.arange(24.0).reshape(6, 4)[::2, ::-1],)),   # not contiguous
    (by_name, (np.arange(12.0).reshape(2, 6), np.arange(24.0).reshape(2, 3, 4))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_parts_are_numpy_bit_for_bit(fn, args):
    got, want = pyad.jit_grad(fn)(*args), fn(*args)
    flat = (lambda v: [p for x in v for p in flat(x)] if isinstance(v, (list, tuple))
            else [v])
    assert type(got) is type(want)
    assert len(flat(got)) == len(flat(want))
    for g, w in zip(flat(got), flat(want)):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def weighted_parts(x, w):
    s = 0.0
    for k, p in enumerate(np.array_split(x * w, 3)):
        s += np.sum(np.sin(p)) * (k + 1.0) * len(p)
    a, b = np.split(x, [2])
    return s + np.sum(a * a) * np.prod(b[:2])


def written_through_a_part(x):
    y = x * 2.0
    a, b = np.split(y, 2)
    a[0] = 100.0
    b *= 3.0
    return np.sum(y * x)


def matrix_halves(m):
    top, bottom = np.vsplit(m, 2)
    left, right = np.hsplit(m, 2)
    return np.sum(top @ bottom.T) + np.sum(np.tanh(left) * right)


def test_gradients_through_parts():
    rng = np.random.default_rng(3)
    check_function(weighted_parts, (rng.normal(size=7), rng.normal(size=7)))
    check_function(written_through_a_part, (rng.normal(size=6),))
    check_function(matrix_halves, (rng.normal(size=(4, 4)),))


def unequal(x):
    return np.split(x, 4)


def sections_at_run_time(x, n):
    return np.split(x, n)


def three_axes(x):
    return np.dsplit(x, 2)


def test_errors():
    with pytest.raises(ValueError, match=r"equal division \(line \d+ of test_splits.py\)"):
        pyad.jit_grad(unequal)(np.arange(6.0))
    with pytest.raises(PyadTypeError, match="known when compiling") as info:
        pyad.jit_grad(sections_at_run_time)(np.arange(6.0), 2)
    assert info.value.line == line_of(sections_at_run_time, "np.split")
    with pytest.raises(PyadTypeError, match="at least 3 dimensions"):
        pyad.jit_grad(three_axes)(np.ones((2, 4)))
