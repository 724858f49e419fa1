"""Adjoint divisions by a square root the primal computed become multiplications by its
reciprocal (pyad/ad/reverser.py `_by_reciprocals`), so that a quotient's partials and the
square root's own share one division. Checked: gradients against CPython, central
differences with the dot-product test and the interpreter; the special values (r = 0,
inf, nan, r of a subnormal) come out as the division by r gives them; the primal's own
divisions keep their bits; the IR divides by each square root at most once in the
adjoint."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import pyad
from pyad import pipeline

from ..gradients import check_against_python


def potential(pos, m):
    e = 0.0
    for i in range(pos.shape[0]):
        for j in range(i + 1, pos.shape[0]):
            d = (pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2 + 0.01
            e -= m[i] * m[j] / math.sqrt(d)
    return e


def normalised(x, w):
    nrm = math.sqrt(sum(v * v for v in x))
    return sum(w[k] * x[k] / nrm for k in range(len(x)))


def scaled_root(a, b):
    r = math.sqrt(a * a + b)
    return a / r + b / r + r


def array_norm(x):
    return float(np.sum(x / np.sqrt(np.sum(x * x))))


POS = np.sin(np.arange(14.0)).reshape(7, 2)
CASES = [(potential, (POS, np.linspace(0.5, 1.5, 7))),
         (normalised, (np.array([0.3, -1.2, 2.0, 0.7]), np.array([1.0, 2.0, -0.5, 0.25]))),
         (scaled_root, (0.7, 2.5)), (array_norm, (np.array([0.5, -1.5, 2.0]),))]


@pytest.mark.parametrize("fn,args", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_gradients(fn, args):
    check_against_python(fn, *args)


def _divisions_by_roots(ir: str) -> int:
    """The divisions in the first function of `ir` by a square root's result, but for
    `1.0 / r` and for the primal's divisions a reverse loop recomputes (its plan lists
    them: a trip recomputes a quotient instead of taping it when that empties the tape)."""
    ir = ir[:ir.find("\nfunc ", 1)]
    roots = set(re.findall(r"(%[\w.]+): f64 = sqrt ", ir))
    consts = {m[0]: float(m[1]) for m in re.findall(r"(%[\w.]+): f64 = const (\S+)", ir)}
    again = {v for line in re.findall(r"#   recomputed: (.*)", ir) for v in line.split(", ")}
    assert roots
    return sum(den in roots and consts.get(num) != 1.0 and out not in again
               for out, num, den in re.findall(r"(%[\w.]+): f64 = f?div (%[\w.]+), (%[\w.]+)",
                                               ir))


@pytest.mark.parametrize("fn,args", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_the_adjoint_divides_by_a_root_once(fn, args, monkeypatch):
    """The value-and-gradient IR divides by square roots only where the primal does, and
    by `1.0 / r` (one division per root, once LLVM merges the equal ones). Counted without
    split running sums (pyad/ir/split_sums.py), which keep a copy of a loop as written."""
    monkeypatch.setattr(pipeline, "split_sums", lambda func, outputs=frozenset(): func)
    f = pyad.jit_grad(fn, argnums="all", cache=False)
    ir = f.grad_ir(*args)
    assert _divisions_by_roots(ir[ir.index("func " + fn.__name__ + ".vg"):]) \
        == _divisions_by_roots(f.ir(*args))


def test_the_primal_division_keeps_its_bits():
    f = pyad.jit_grad(scaled_root, argnums="all")
    for a, b in [(0.7, 2.5), (1e-3, 3.0), (123.25, 1e-7)]:
        assert f(a, b) == scaled_root(a, b)
        assert f.value_and_grad(a, b)[0] == scaled_root(a, b)


def over_root(a, x):
    return a / math.sqrt(x)


def _exact(a, x):
    """d/da and d/dx of a / sqrt(x), dividing as the rules did before."""
    r = math.sqrt(x)
    with np.errstate(all="ignore"):
        q = np.float64(a) / r
        return np.float64(1.0) / r, -((np.float64(-1.0) * -q) / r) / (2.0 * r)


@pytest.mark.parametrize("a,x", [(1.5, 0.0), (1.5, math.inf), (0.0, 4.0), (-2.0, 5e-324),
                                 (3.0, 1e-310), (1e300, 1e-300), (2.0, 1e308)])
def test_special_values_as_the_division_gives_them(a, x):
    f = pyad.jit_grad(over_root, argnums="all")
    try:
        over_root(a, x)
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            f.grad(a, x)
        return
    got, want = f.grad(a, x), _exact(a, x)
    for g, w in zip(got, want):
        assert math.isfinite(g) == math.isfinite(w) and math.isnan(g) == math.isnan(w), (g, w)
        if math.isfinite(w):
            assert g == pytest.approx(float(w), rel=1e-15, abs=0.0)
        elif not math.isnan(w):
            assert g == w
