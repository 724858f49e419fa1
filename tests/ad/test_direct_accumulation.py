"""The value-and-gradient kernel adds an accumulating loop's contributions straight into the
shadow when that gives the same bits (pyad/ad/direct.py): the shadow's array starts as
zeros, at most two adds reach an element of it (or only the temporary's adds, any number),
and nothing reads it before the reverse sweep would have added the temporary. Each function: CPython's value, central differences and the
interpreter (check_against_python), and value_and_grad equal bit for bit to the kernel
made without the pass and to the pullback with cotangent 1.0 (which keeps the
temporaries)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad
from pyad.ad import gradient
from pyad.ir.nodes import Op, walk

from ..gradients import check_against_python


def slices(x):
    head = x[:-1]
    return np.sum(100.0 * (x[1:] - head * head) ** 2 + (1.0 - head) ** 2)


def two_sums(x):
    return np.sum(x * x) + np.sum(np.sin(x))


def three_sums(x):
    return np.sum(x * x) + np.sum(np.sin(x)) + np.sum(np.exp(x))


def rows(a):
    return np.sum(np.tanh(a) * a)


def loop_then_read(x, w):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * w[i]
    return s * np.sum(x)


def strided(x):
    return np.sum(np.log1p(x[::2] ** 2))


def loop_of_the_user(x):
    """A loop written by hand: its index `x[i]` is normalized, and i counts up from 0."""
    s = 0.0
    for i in range(len(x)):
        s += np.sin(x[i]) * x[i]
    return s


def reversed_columns(a):
    """The view `a[:, ::-1]` keeps its temporary (adding through it directly measured 3.3x
    slower); the plain `a` loses its own."""
    return np.sum(np.tanh(a) ** 2 + a[:, ::-1])


def neighbours(p):
    """Each trip adds to rows i and i + 1 (partial sums carried to the next trip, flushed
    after the loop): four adds into the temporary, none other into the shadow."""
    s = 0.0
    for i in range(p.shape[0] - 1):
        s += p[i, 0] * p[i + 1, 1] - p[i + 1, 0] * p[i, 1]
    return s


def all_pairs(x):
    """x[j] gets a contribution from every trip of the outer loop: many adds into the
    temporary reach one element, none other into the shadow."""
    s = 0.0
    for i in range(len(x)):
        for j in range(len(x)):
            s += math.sin(x[i] - x[j]) * x[j]
    return s


CASES = [(slices, 1), (two_sums, 2), (three_sums, 0), (rows, 1), (loop_then_read, None),
         (strided, 0), (reversed_columns, 1), (loop_of_the_user, 1), (neighbours, 1),
         (all_pairs, 1)]


def _args(fn, n):
    rng = np.random.default_rng(n)
    if fn in (rows, reversed_columns, neighbours):
        return (rng.uniform(-1.0, 1.0, (n, 3)),)
    if fn is loop_then_read:
        return (rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n))
    return (rng.uniform(-1.0, 1.0, n),)


def _without_pass(monkeypatch):
    monkeypatch.setattr(gradient, "accumulate_directly", lambda func, zeroed: func)


@pytest.mark.parametrize("fn", [c[0] for c in CASES], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 2, 7, 300])
def test_same_bits_as_the_temporaries(fn, n, monkeypatch):
    args = _args(fn, n)
    if n >= 2:
        check_against_python(fn, *args)
    f = pyad.jit_grad(fn, cache=False, argnums="all")
    value, grads = f.value_and_grad(*args)
    out, back = f.pullback(*args)
    assert out == value
    for a, b in zip(back(1.0), grads):
        np.testing.assert_array_equal(a, b)
        assert np.array_equal(np.signbit(a), np.signbit(b))
    _without_pass(monkeypatch)
    g = pyad.jit_grad(fn, cache=False, argnums="all")
    v2, g2 = g.value_and_grad(*args)
    assert v2 == value
    for a, b in zip(g2, grads):
        np.testing.assert_array_equal(a, b)
        assert np.array_equal(np.signbit(a), np.signbit(b))


def _temporaries(fn, args) -> int:
    """The allocations of the value-and-gradient kernel (the temporaries the pass drops)."""
    f = pyad.jit_grad(fn, cache=False, argnums="all")
    func = f.specialization(args, {}).gradient(f.argnums).fused
    return sum(1 for s in walk(func.block) if isinstance(s, Op) and s.op == "alloc")


@pytest.mark.parametrize("fn,dropped", [c for c in CASES if c[1] is not None],
                         ids=lambda c: getattr(c, "__name__", str(c)))
def test_which_temporaries_go(fn, dropped, monkeypatch):
    """Rosenbrock's two views of x overlap: one keeps its temporary (adds into both in one
    loop would keep it scalar); two sums give each element two adds (both go), three give
    it three (none goes); views with steps (`x[::2]`, `a[:, ::-1]`) keep theirs."""
    args = _args(fn, 9)
    with_pass = _temporaries(fn, args)
    _without_pass(monkeypatch)
    assert _temporaries(fn, args) - with_pass == dropped


def _safe_temporaries(fn, args) -> int:
    f = pyad.jit_grad(fn, cache=False, argnums="all")
    func = f.specialization(args, {}).gradient(f.argnums).gir.safe
    assert func is not None   # the gradient has strong zeros (a kernel with them apart)
    return sum(1 for s in walk(func.block) if isinstance(s, Op) and s.op == "alloc")


def test_the_kernel_with_strong_zeros_drops_them_too(monkeypatch):
    """Its flush `S += ct * T` is guarded (0 where ct or T is 0: pyad/ad/fused.py); with
    ct = 1.0 that changes no bit of the sum, so the temporary goes there as well."""
    args = _args(loop_of_the_user, 9)
    with_pass = _safe_temporaries(loop_of_the_user, args)
    _without_pass(monkeypatch)
    assert _safe_temporaries(loop_of_the_user, args) - with_pass == 1
