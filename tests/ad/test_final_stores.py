"""Values a loop stores into an element that nothing writes afterwards are loaded back by
the reverse sweep instead of being taped (pyad/ir/memory.py: final_stores; the plan,
pyad/ad/plan.py). Each function is checked against CPython's value, central differences
with the dot-product test and the IR interpreter; the tape sizes show whether the store
was trusted. The functions whose element is written again (a later statement, a later trip,
two trips normalizing to one element, a store under a branch) must tape."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def mlp_hidden(x, w, b, v):
    h = np.tanh(x @ w + b)
    return np.sum((h @ v) ** 2)


def filled_then_read(a, b):
    m = np.zeros((len(a), len(b)))
    for i in range(len(a)):
        for j in range(len(b)):
            m[i, j] = math.exp(a[i] * b[j])
    return np.sum(m * m)


def filled_then_overwritten(a, b):
    m = np.zeros((len(a), len(b)))
    for i in range(len(a)):
        for j in range(len(b)):
            m[i, j] = math.exp(a[i] * b[j])
    m[0, 0] = 3.0 * a[0]
    return np.sum(m * m)


def row_reused_each_trip(a, b):
    t = np.zeros(len(b))
    s = 0.0
    for i in range(len(a)):
        for j in range(len(b)):
            t[j] = math.exp(a[i] * b[j])
        for j in range(len(b)):
            s += t[j] * t[j]
    return s


def negative_start(x):
    m = np.zeros(len(x))
    n = len(x)
    for i in range(-n, n):
        m[i] = math.tanh(x[i] * (i + 2.5))
    return np.sum(m * m)


def store_under_branch(x):
    m = np.zeros(len(x))
    for i in range(len(x)):
        y = math.tanh(x[i])
        if x[i] > 0.0:
            m[i] = y
        else:
            m[i] = 2.0 * y
    return np.sum(m * m)


def _u(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).uniform(-1.0, 1.0, shape)


def test_a_stored_fill_is_loaded_back():
    f = check_against_python(filled_then_read, _u(5), _u(4))
    assert f.tape_bytes(_u(5), _u(4)) == 0
    assert f.tape_bytes(_u(50), _u(40)) == 0


def test_array_style_hidden_layer_tapes_nothing():
    args = (_u(6, 3), _u(3, 4), _u(4), _u(4, 2))
    f = check_against_python(mlp_hidden, *args)
    assert f.tape_bytes(*args) == 0


@pytest.mark.parametrize("fn, args", [
    (filled_then_overwritten, (_u(4), _u(3))),
    (row_reused_each_trip, (_u(4), _u(3))),
    (negative_start, (_u(5),)),
    (store_under_branch, (_u(6),)),
], ids=lambda c: getattr(c, "__name__", ""))
def test_elements_written_again_are_taped(fn, args):
    f = check_against_python(fn, *args)
    assert f.tape_bytes(*args) > 0


def test_the_plan_names_what_it_loads_back():
    f = pyad.jit_grad(filled_then_read, argnums="all")
    text = f.grad_ir(_u(5), _u(4))
    assert "re-read from memory:" in text
