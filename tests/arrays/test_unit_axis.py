"""An axis known to have length 0 or 1 for every size (`M[:, 0:1]`, `x[-1:]`: lengths
`min(1, n)`) that broadcasts against another is read at index 0 (pyad/ir/shapes.py,
`unit_axis_index`), as a `None` axis is: its broadcast index `select(d == 1, 0, i)` made the
gradient's accumulation into M's column a chain through a data-dependent index (value and
gradient 3.7x the `M[:, 0][:, None]` spelling; now the same). Values, gradients and errors
are NumPy's, lengths 0 included."""
from __future__ import annotations

import numpy as np
import pytest

import pyad
from pyad.ir.nodes import Op, walk
from pyad.pipeline import primal_ir
from tests.gradients import check_against_python


def col_slice(a, M, X):
    t = a[:, None] + M[:, 0:1] * X[None, :, 0]
    return np.sum(t * t)


def col_index(a, M, X):
    t = a[:, None] + M[:, 0][:, None] * X[:, 0][None, :]
    return np.sum(t * t)


def last_rows(x, y):
    return np.sum(np.tanh(x[-1:] - y) * x[:1])


def times(M, v):
    return np.sum(M[:, 0:1] * v)


def _unit_selects(fn, sig) -> int:
    """The broadcast indices `select(d == 1, 0, i)` left in fn's IR whose d is a `min`."""
    func, _ = primal_ir(fn, sig)
    defs = {o.name: s for s in walk(func.block) if isinstance(s, Op) for o in s.outs}
    found = 0
    for s in walk(func.block):
        c = defs.get(s.args[0].name) if isinstance(s, Op) and s.op == "select" else None
        zero = defs.get(s.args[1].name) if c is not None else None
        if zero is not None and zero.op == "const" and zero.attrs[0] == 0 and c.op == "eq" and any(
                defs.get(a.name) is not None and defs[a.name].op == "min" for a in c.args):
            found += 1
    return found


def test_unit_axes_broadcast_as_new_axes():
    rng = np.random.default_rng(5)
    args = (rng.standard_normal(6), rng.standard_normal((6, 3)), rng.standard_normal((9, 3)))
    f = check_against_python(col_slice, *args)
    g = pyad.jit_grad(col_index, argnums="all")
    for a, b in zip(f.grad(*args), g.grad(*args)):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    assert _unit_selects(col_slice, ("f64[1d]", "f64[2d]", "f64[2d]")) == 0
    check_against_python(last_rows, rng.standard_normal(4), rng.standard_normal(7))


def test_empty_unit_axes_as_numpy():
    f = pyad.jit_grad(times)
    M, v = np.ones((3, 0)), np.ones(1)
    assert f(M, v) == times(M, v) == 0.0
    np.testing.assert_array_equal(f.grad(M, v), np.zeros((3, 0)))
    with pytest.raises(ValueError):
        times(M, np.ones(4))
    with pytest.raises(ValueError, match="broadcast"):
        f(M, np.ones(4))
    M2 = np.arange(6.0).reshape(3, 2)
    assert f(M2, np.ones(4)) == times(M2, np.ones(4))
