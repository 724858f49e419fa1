"""Accumulating loops whose body reads views it makes of outer arrays (`pos[i + 1:]`, the
row `M[i]`, `x[i:i + 3]`, a view of a view): the loop is still reversed trip by trip inside
its forward sweep (pyad/ad/fused.py), the shadow views the body makes viewing the
temporary that collects the contributions with cotangent 1 (scaled by the cotangent after
the loop). Before, such a loop was taped: an n-body energy over the later bodies of each
body taped 1.09 MB. Each function is checked against CPython, central finite differences
with the dot-product test, the interpreter and the pullback with a cotangent other than 1;
the tape holds one trip's values at a time, not every trip's."""
from __future__ import annotations

import numpy as np
import pytest

from ..gradients import check_against_python


def later_bodies(pos, m):
    e = 0.0
    for i in range(pos.shape[0] - 1):
        d = pos[i + 1:] - pos[i]
        r = np.sqrt(np.sum(d * d, axis=1) + 0.01)
        e -= m[i] * np.sum(m[i + 1:] / r)
    return e


def rows(pos, m):
    s = 0.0
    for i in range(pos.shape[0]):
        row = pos[i]
        s += np.tanh(np.dot(row, row)) * m[i]
    return s


def windows(pos, m):
    s = 0.0
    for i in range(len(m) - 2):
        w = m[i:i + 3]
        s += np.exp(-np.sum(w * w)) + np.max(pos[i, 1:])
    return s


def view_of_view(pos, m):
    s = 0.0
    for i in range(pos.shape[0] - 1):
        tail = pos[i:]
        s += np.sum(np.sin(tail[1:, 0]) * m[i])
    return s


@pytest.mark.parametrize("fn", [later_bodies, rows, windows, view_of_view],
                         ids=lambda f: f.__name__)
def test_views_in_an_accumulating_loop(fn):
    rng = np.random.default_rng(11)
    pos, m = rng.standard_normal((6, 3)), rng.uniform(0.5, 1.5, 6)
    f = check_against_python(fn, pos, m)
    _, grads = f.value_and_grad(pos, m)
    _, back = f.pullback(pos, m)
    for g, h in zip(back(0.7), grads):
        np.testing.assert_allclose(g, 0.7 * h, rtol=1e-12, atol=1e-14)
    assert "reversed inside this loop" in f.grad_ir(pos, m)
    # at most one trip's values (two floats an element of the longest view) at a time
    more = (rng.standard_normal((24, 3)), rng.uniform(0.5, 1.5, 24))
    assert f.tape_bytes(*more) <= max(f.tape_bytes(pos, m), 2 * 8 * 24)
