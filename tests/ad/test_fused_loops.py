"""Accumulating loops (pyad/ad/fused.py): a loop whose only active carried value just
accumulates (`s += term`) runs its reverse inside its forward sweep, with nothing taped.

Every gradient is checked against central finite differences, the dot-product test
(pyad.check_grad) and the IR interpreter; loops that look alike but do not qualify are checked
the same way (they take the taped path).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def pairs(pos, m):
    """W4's shape: nested loops, the inner one accumulating into the outer one's value."""
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            e -= m[i] * m[j] / math.sqrt(dx * dx + dy * dy + 0.01)
    return e


def outer_scalar(x, a):
    """A float read from outside the loop: its adjoint is carried by the fused loop."""
    s = 0.0
    for i in range(len(x)):
        s = math.sin(a * x[i]) + s
    return s * a


def branches_inside(x, a):
    """Values computed inside an If of the body are read by the reverse."""
    s = 1.0
    for i in range(len(x)):
        if x[i] > 0.0:
            t = x[i] * a
        else:
            t = math.exp(x[i])
        s += t * t
    return math.log(s)  # a cotangent other than 1 reaches the loop


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def recursive_calls_inside(x):
    s = 0.0
    for i in range(len(x)):
        s += power(x[i], 3) - x[i]
    return s


def nested_in_a_taped_loop(x, a):
    """The inner loop accumulates but sits in a loop that carries a product: not fused at
    that depth (it would need temporaries in every outer trip), reversed with the tape."""
    s = 0.0
    for k in range(3):
        inner = 0.0
        for i in range(len(x)):
            inner += x[i] * x[i] * a
        s = 0.5 * s + inner
    return s


def reads_the_accumulator(x):
    """`s` is read by the term: not an accumulation, taped."""
    s = 1.0
    for i in range(len(x)):
        s += s * x[i] * 0.1
    return s


def two_accumulators(x):
    """Two active carried values: taped (exp's result is needed by the reverse)."""
    s = 0.0
    q = 0.0
    for i in range(len(x)):
        t = math.exp(x[i])
        s += t
        q += t * x[i]
    return s * q


X = np.array([0.3, -1.2, 0.8, 2.1, -0.4, 1.5])


@pytest.mark.parametrize("fn, args", [
    (pairs, (np.random.default_rng(0).standard_normal((7, 2)), np.linspace(0.5, 1.5, 7))),
    (outer_scalar, (X, 0.7)),
    (branches_inside, (X, 1.3)),
    (recursive_calls_inside, (X,)),
    (nested_in_a_taped_loop, (X, 0.9)),
    (reads_the_accumulator, (X,)),
    (two_accumulators, (X,)),
])
def test_gradients(fn, args):
    check_against_python(fn, *args)


@pytest.mark.parametrize("fn, args", [
    (pairs, (np.ones((50, 2)) * np.arange(50.0)[:, None], np.ones(50))),
    (outer_scalar, (np.ones(500), 0.7)),
    (branches_inside, (np.linspace(-1, 1, 500), 1.3)),
])
def test_accumulating_loops_tape_nothing(fn, args):
    assert pyad.jit_grad(fn).tape_bytes(*args) == 0


@pytest.mark.parametrize("fn", [reads_the_accumulator, two_accumulators])
def test_other_loops_still_tape(fn):
    f = pyad.jit_grad(fn)
    assert f.tape_bytes(np.ones(500)) > f.tape_bytes(np.ones(5))


def test_pullback_scales_with_the_cotangent():
    f = pyad.jit_grad(outer_scalar)
    _, back = f.pullback(X, 0.7)
    g1, g3 = back(1.0), back(-3.0)
    np.testing.assert_allclose(g3[0], -3.0 * g1[0], rtol=1e-14)
    assert g3[1] == pytest.approx(-3.0 * g1[1], rel=1e-14)


class _WrongArrayGradient:
    """A stand-in compiled function whose pullback is off in one array element."""

    argnums = None

    def __call__(self, x, a):
        return float(np.sum(x * x)) * a

    def pullback(self, x, a):
        def back(ct):
            g = 2.0 * x * a * ct
            g[1] += 0.5
            return g, float(np.sum(x * x)) * ct
        return self(x, a), back


def test_check_grad_perturbs_array_elements():
    """pyad.check_grad compares array gradients with finite differences too."""
    with pytest.raises(AssertionError, match="leaf 0 element"):
        pyad.check_grad(_WrongArrayGradient(), np.array([0.5, -1.0, 2.0]), 1.5, coords=3)


def scalar_inner_in_a_taped_loop(a, n):
    """An accumulating inner loop over scalars only, inside a loop that carries a product:
    fused at that depth (no temporaries needed), its contribution scaled by the outer
    reverse sweep's cotangent."""
    s = 1.0
    for k in range(n):
        inner = 0.0
        for i in range(k + 2):
            inner -= math.sin(a * i) * 0.25
        s = s * (1.0 + 0.1 * a) + inner
    return s


def test_scalar_accumulation_inside_a_taped_loop():
    check_against_python(scalar_inner_in_a_taped_loop, 0.8, 5)
    check_against_python(scalar_inner_in_a_taped_loop, -1.3, 0)
