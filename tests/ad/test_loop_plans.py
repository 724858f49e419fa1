"""How each kind of loop is reversed, as golden IR: the gradient of one small function per
loop strategy (taped, counters rebuilt, recomputed values, re-run fills, accumulating loops
reversed inside their forward sweep, a running maximum read as the loop's result), with the plan the AD pass prints above each reversed
loop. Regenerate with PYAD_UPDATE_GOLDEN=1 and read the diff: a changed plan is a changed
gradient strategy. Each function's gradient is also checked against finite differences."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..golden_files import check_golden, strip_locs


def taped(x, n):
    """A loop whose carried value is multiplied: the reverse needs each trip's value."""
    s = x
    for i in range(n):
        s = s * math.sin(s) + x
    return s


def while_counter(x):
    """A while loop with a counter stepping by 2: rebuilt from the trip number."""
    s, i = 0.0, 0
    while i < 10:
        s = s * 0.5 + x * i
        i += 2
    return s * s


def recomputed(a):
    """Loads of an argument and index arithmetic: re-read and recomputed, not taped."""
    s = 1.0
    for i in range(1, len(a)):
        s = s * (a[i] - a[i - 1]) + 0.1
    return s


def refilled(a, w):
    """A scratch array filled completely at the top of each trip: the fill re-runs."""
    sc = np.zeros(len(a))
    s = 0.0
    for k in range(len(w)):
        for j in range(len(a)):
            sc[j] = a[j] - w[k]
        s = s * 0.9 + sc[0] * sc[-1]
    return s


def accumulating(a):
    """Only `s += term`: the reverse runs inside the forward sweep, nothing is taped."""
    s = 0.0
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            s += math.exp(-(a[i] - a[j]) ** 2)
    return s


def running_max(a):
    """A running maximum (NumPy's): the reverse trip compares with the loop's result, so
    nothing is taped."""
    m = a[0]
    for i in range(1, len(a)):
        m = np.maximum(m, a[i] * a[i - 1])
    return m * m


CASES = [
    (taped, (0.7, 5)),
    (while_counter, (0.3,)),
    (recomputed, (np.array([0.5, -1.0, 2.0, 0.25]),)),
    (refilled, (np.array([0.5, -1.0, 2.0]), np.array([0.1, 0.4]))),
    (accumulating, (np.array([0.5, -1.0, 2.0, 0.25]),)),
    (running_max, (np.array([0.5, -1.0, 2.0, 0.4, 1.5]),)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_loop_plan_golden(fn, args):
    f = pyad.jit_grad(fn, argnums="all")
    pyad.check_grad(f, *args)
    check_golden(f"loops/{fn.__name__}.grad.ir", strip_locs(f.grad_ir(*args)))


def test_every_reversed_loop_prints_its_plan():
    for fn, args in CASES:
        text = pyad.jit_grad(fn, argnums="all").grad_ir(*args)
        assert "# reverse of the loop" in text or "# reversed inside this loop" in text
    every = lambda fn: pyad.jit_grad(fn, argnums="all")  # noqa: E731
    assert "rebuilt from the trip number" in every(while_counter).grad_ir(0.3)
    assert "re-run first" in every(refilled).grad_ir(*CASES[3][1])
    assert "recomputed" in every(recomputed).grad_ir(*CASES[2][1])
    text = every(running_max).grad_ir(*CASES[5][1])
    assert "the loop's result" in text and "with the tape: 0 values per trip" in text
