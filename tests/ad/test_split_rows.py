"""Accumulating loops whose trips load one array at several offsets of the counter
(`x[i]` and `x[i + 1]`: Rosenbrock, stencils) carry the partial sums of the elements the
next trips add to and write each element once (pyad/ad/window.py), or, where that does not
apply (loads on the other axes at indices that may name one element: -1 and 0),
give each load a row of its own for the contributions (pyad/ad/rows.py), added up in the
order the shared temporary received them: either way no trip adds into what the trip
before added. Each function is checked against CPython, central differences with the
dot-product test and the IR interpreter, and its gradient and pullback against the same
function compiled with neither, bit for bit. Loads neither can serve (an index that is
not the counter plus a constant, one that may wrap around, one in an inner loop) keep the
shared temporary."""
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


def gaps_between_offsets(x):
    s = 0.0
    for i in range(len(x) - 3):
        s += math.sin(x[i] * x[i + 3]) + x[i + 1] ** 2 * x[i]
    return s


def step_two_four_apart(x):
    """Each element passes through offset 2, which no load reads, between its two loads."""
    s = 0.0
    for i in range(0, len(x) - 4, 2):
        s += math.exp(0.2 * x[i + 4]) * x[i] + x[i + 1]
    return s


def down_by_two(x):
    s = 0.0
    for i in range(len(x) - 3, 1, -2):
        s += (x[i + 2] - x[i]) ** 2 + math.cos(x[i - 2] * x[i])
    return s


def along_a_row(p):
    """The counter on axis 1 of a matrix, the same row for every load."""
    e = 0.0
    r = p.shape[0] - 1
    for j in range(p.shape[1] - 1):
        e += (p[r, j + 1] - p[r, j] ** 2) ** 2
    return e


def curve_length(p):
    """Two columns of one array, each loaded at two offsets of the counter: a window
    each."""
    s = 0.0
    for i in range(p.shape[0] - 1):
        s += math.sqrt((p[i + 1, 0] - p[i, 0]) ** 2 + (p[i + 1, 1] - p[i, 1]) ** 2)
    return s


def last_and_first_columns(p):
    """Columns -1 and 0 may be one (a single column): rows, not windows."""
    s = 0.0
    for i in range(p.shape[0] - 1):
        s += p[i + 1, -1] * p[i, 0] + math.sin(p[i, -1] - p[i + 1, 0])
    return s


def one_column_both_ends(p):
    """last_and_first_columns given one column: p[i, -1] is p[i, 0]."""
    s = 0.0
    for i in range(p.shape[0] - 1):
        s += p[i + 1, -1] * p[i, 0] + math.sin(p[i, -1] - p[i + 1, 0])
    return s


def step_three_meeting_loads(x):
    """Offset 1 is reached from offset 4 but read by no load: the window must not write it
    (refused: the rows serve)."""
    s = 0.0
    for i in range(0, len(x) - 4, 3):
        s += x[i] * x[i + 4]
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


def one_offset(x):
    """Every trip adds into its own element: nothing to carry, nothing to split."""
    s = 0.0
    for i in range(len(x)):
        s += math.sin(x[i]) * x[i]
    return s


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
WINDOW = [(rosenbrock, (X,)), (rosenbrock_backwards, (X,)),
          (three_point_stencil, (X, np.linspace(0.5, 2.0, 23))), (stencil_backwards, (X,)),
          (while_second_differences, (X, 3.0)), (stepping_by_two, (X,)),
          (gaps_between_offsets, (X,)), (step_two_four_apart, (X,)), (down_by_two, (X,)),
          (along_a_row, (np.sin(np.arange(30.0)).reshape(3, 10),)),
          (curve_length, (np.sin(np.arange(30.0)).reshape(15, 2),)),
          (columns_of_a_matrix, (np.sin(np.arange(30.0)).reshape(15, 2),))]
ROWS = [(step_three_meeting_loads, (X,)),
        (last_and_first_columns, (np.sin(np.arange(30.0)).reshape(15, 2),)),
        (one_column_both_ends, (np.sin(np.arange(15.0)).reshape(15, 1),))]
SHARED = [(one_offset, (X,)), (loads_in_branches, (np.sin(np.arange(30.0)).reshape(15, 2),)), (halves, (X,)),
          (wraps_around, (X,)), (inner_loop_loads, (X,))]


def _ids(cases):
    return [fn.__name__ for fn, _ in cases]


ALL = WINDOW + ROWS + SHARED
WINDOW_NOTE, ROW_NOTE = "carried to the next trip", "a row per load of"


def _one_temporary(monkeypatch) -> None:
    """Compile from now on with neither windows nor rows."""
    monkeypatch.setattr(fused, "split_rows", lambda rv, s, loop, temps, pre: (loop, {}))
    monkeypatch.setattr(fused, "carry_window", lambda rv, s, loop, temps, pre: (loop, [], set()))


@pytest.mark.parametrize("fn,args", ALL, ids=_ids(ALL))
def test_gradients(fn, args):
    f = check_against_python(fn, *args)
    ir = f.grad_ir(*args)
    assert (WINDOW_NOTE in ir, ROW_NOTE in ir) == ((fn, args) in WINDOW, (fn, args) in ROWS)


@pytest.mark.parametrize("fn,args", WINDOW + ROWS, ids=_ids(WINDOW + ROWS))
def test_the_bits_of_one_temporary(fn, args, monkeypatch):
    def results(f):
        v, g = f.value_and_grad(*args)
        _, back = f.pullback(*args)
        return [np.float64(v).tobytes()] + [np.asarray(a).tobytes()
                                            for a in pyad.tree_leaves((g, back(0.7)))]
    split = results(pyad.jit_grad(fn, argnums="all", cache=False))
    _one_temporary(monkeypatch)
    one = pyad.jit_grad(fn, argnums="all", cache=False)
    assert WINDOW_NOTE not in one.grad_ir(*args) and ROW_NOTE not in one.grad_ir(*args)
    assert results(one) == split


@pytest.mark.parametrize("fn,args", WINDOW, ids=_ids(WINDOW))
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 6])
def test_short_loops(fn, args, n):
    """A window left with partial sums after no trip, one trip or a few: the elements
    written after the loop are the right ones, and none out of bounds (the interpreter
    checks the indices written after the loop)."""
    x = args[0]
    short = x[:n] if x.ndim == 1 else x[:, :n]
    try:
        fn(short, *args[1:])
    except IndexError:
        return  # too short for the loop's own loads: nothing to compare
    check_against_python(fn, short, *args[1:])


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
    """Random spellings: the gradient passes the three-way check, and the window gives the
    bits of one temporary (three or more offsets make the order of the sums matter)."""
    fn = load_module(tmp_path / f"stencil_{seed}.py", _stencil_source(seed)).f
    x = np.linspace(-0.9, 1.1, 13)
    f = check_against_python(fn, x)
    want = f.value_and_grad(x)[1][0].tobytes()
    _one_temporary(monkeypatch)
    assert pyad.jit_grad(fn, argnums="all", cache=False).value_and_grad(x)[1][0].tobytes() \
        == want
