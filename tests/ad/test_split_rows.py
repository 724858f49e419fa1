"""Accumulating loops whose trips load one array at several offsets of the counter
(`x[i]` and `x[i + 1]`: Rosenbrock, stencils) give each load a row of its own for the
contributions (pyad/ad/rows.py), so that no trip adds into what the trip
before added and the loop vectorizes; the rows are added up in the order the shared
temporary received them. Each function is checked against CPython, central differences
with the dot-product test and the IR interpreter, and its gradient and pullback against
the same function compiled without rows, bit for bit. Loads the rows cannot serve (an index
that is not the counter plus a constant, one that may wrap around, one in an inner loop)
keep the shared temporary."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

import pyad
from pyad.ad import fused

from ..gradients import check_against_python
from ..modules import load_module


def rosenbrock(x):
    s = 0.0
    for i in range(len(x) - 1):
        t = x[i + 1] - x[i] * x[i]
        s += 100.0 * t * t + (1.0 - x[i]) ** 2
    return s


def rosenbrock_backwards(x):
    s = 0.0
    for i in range(len(x) - 2, -1, -1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def three_point_stencil(u, w):
    e = 0.0
    for i in range(1, len(u) - 1):
        lap = u[i - 1] - 2.0 * u[i] + u[i + 1]
        e += w[i] * lap * lap + math.sin(u[i + 1] * w[i - 1])
    return e


def stencil_backwards(u):
    e = 0.0
    for i in range(len(u) - 2, 0, -1):
        e += (u[i - 1] - 2.0 * u[i] + u[i + 1]) ** 2 * math.cos(u[i])
    return e


def while_second_differences(y, lam):
    """A while loop whose condition takes len(y) again on every trip."""
    s = 0.0
    i = 2
    while i < len(y):
        d = y[i] - 2.0 * y[i - 1] + y[i - 2]
        s += lam * d * d + math.log1p(y[i - 1] ** 2)
        i += 1
    return s


def columns_of_a_matrix(p):
    e = 0.0
    for i in range(p.shape[0] - 2):
        d = p[i + 2, 1] - p[i, 0]
        a, b = p[i + 1, 1], p[i, 1]
        if d > 0.0:
            e += d * d * a
        else:
            e -= math.exp(d) * b
    return e


def stepping_by_two(x):
    s = 0.0
    for i in range(0, len(x) - 2, 2):
        s += x[i] * x[i + 2] + math.cos(x[i + 1])
    return s


# no rows: an index computed in a branch (the reverse reads it under another name), not the
# counter plus a constant, one that may wrap around, one in an inner loop
def loads_in_branches(p):
    e = 0.0
    for i in range(p.shape[0] - 2):
        d = p[i + 2, 1] - p[i, 0]
        if d > 0.0:
            e += d * d * p[i + 1, 1]  # its index is computed in the branch
        else:
            e -= math.exp(d) * p[i, 1]
    return e


def halves(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i // 2]
    return s


def wraps_around(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i - 1]  # x[-1] in the first trip
    return s


def inner_loop_loads(x):
    s = 0.0
    for i in range(len(x) - 1):
        for j in range(2):
            s += x[i + j] * x[i]
    return s


X = np.linspace(-1.2, 1.5, 23)
ROWS = [(rosenbrock, (X,)), (rosenbrock_backwards, (X,)),
        (three_point_stencil, (X, np.linspace(0.5, 2.0, 23))), (stencil_backwards, (X,)),
        (while_second_differences, (X, 3.0)),
        (columns_of_a_matrix, (np.sin(np.arange(30.0)).reshape(15, 2),)),
        (stepping_by_two, (X,))]
SHARED = [(loads_in_branches, (np.sin(np.arange(30.0)).reshape(15, 2),)), (halves, (X,)),
          (wraps_around, (X,)), (inner_loop_loads, (X,))]


def _ids(cases):
    return [fn.__name__ for fn, _ in cases]


@pytest.mark.parametrize("fn,args", ROWS + SHARED, ids=_ids(ROWS + SHARED))
def test_gradients(fn, args):
    f = check_against_python(fn, *args)
    assert ("a row per load of" in f.grad_ir(*args)) == ((fn, args) in ROWS)


@pytest.mark.parametrize("fn,args", ROWS, ids=_ids(ROWS))
def test_rows_give_the_bits_of_one_temporary(fn, args, monkeypatch):
    def results(f):
        v, g = f.value_and_grad(*args)
        _, back = f.pullback(*args)
        return [np.float64(v).tobytes()] + [np.asarray(a).tobytes()
                                            for a in pyad.tree_leaves((g, back(0.7)))]
    rows = results(pyad.jit_grad(fn, argnums="all", cache=False))
    monkeypatch.setattr(fused, "split_rows", lambda rv, s, loop, temps, pre: (loop, {}))
    one = pyad.jit_grad(fn, argnums="all", cache=False)
    assert "a row per load of" not in one.grad_ir(*args)
    assert results(one) == rows


def _stencil_source(seed: int) -> str:
    """A random accumulating loop over `x[i + c]` for 2-4 offsets c in -2..2, going up or
    down, its range keeping every index in bounds."""
    r = random.Random(seed)
    offs = sorted({r.choice([-2, -1, 0, 1, 2]) for _ in range(r.randint(2, 4))})
    lo, hi = -min(offs + [0]), max(offs + [0])
    forms = ["{} * {}", "math.sin({} * {})", "({} - {}) ** 2", "math.exp(0.3 * {}) * {}"]
    terms = [r.choice(forms).format(f"x[i + {r.choice(offs)}]", f"x[i + {r.choice(offs)}]")
             for _ in range(r.randint(2, 4))]
    rng = f"range(len(x) - 1 - {hi}, {lo} - 1, -1)" if r.random() < 0.5 \
        else f"range({lo}, len(x) - {hi})"
    return (f"import math\n\n\ndef f(x):\n    s = 0.0\n    for i in {rng}:\n"
            f"        s += {' + '.join(terms)}\n    return s\n")


@pytest.mark.parametrize("seed", range(12))
def test_random_stencils(seed, tmp_path, monkeypatch):
    """Random spellings: the gradient passes the three-way check, and the rows give the
    bits of one temporary (three or more offsets make the order of the sums matter)."""
    fn = load_module(tmp_path / f"stencil_{seed}.py", _stencil_source(seed)).f
    x = np.linspace(-0.9, 1.1, 13)
    f = check_against_python(fn, x)
    want = f.value_and_grad(x)[1][0].tobytes()
    monkeypatch.setattr(fused, "split_rows", lambda rv, s, loop, temps, pre: (loop, {}))
    assert pyad.jit_grad(fn, argnums="all", cache=False).value_and_grad(x)[1][0].tobytes() \
        == want
