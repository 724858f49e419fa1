"""Scalar replacement of small arrays (pyad/ir/scalarize.py) and the facts it builds on
(pyad/ir/shapes.py): programs whose small arrays of known shape become scalars compute what
CPython computes, differentiate right (finite differences, dot-product test, interpreter,
pullback), and their IR has no array left; programs the pass must leave alone keep their
arrays and are still right."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad
from pyad.ir.nodes import Func, If, Op, Var, While, Block, F64, I64
from pyad.ir.shapes import Shape, known
from tests.gradients import check_against_python


def _rk4_state(x, y, z, dt, steps):
    """An ODE whose state is a 3-vector made by np.array, updated by whole-array steps."""
    def deriv(s):
        return np.array([10.0 * (s[1] - s[0]), s[0] * (28.0 - s[2]) - s[1],
                         s[0] * s[1] - 8.0 / 3.0 * s[2]])
    s = np.array([x, y, z])
    for _ in range(steps):
        k1 = deriv(s)
        k2 = deriv(s + 0.5 * dt * k1)
        k3 = deriv(s + 0.5 * dt * k2)
        k4 = deriv(s + dt * k3)
        s = s + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(s * s)


def _rotation_2x2(theta, x, y, n):
    """A 2x2 matrix built by element writes, applied n times to a 2-vector with @."""
    r = np.zeros((2, 2))
    r[0, 0] = math.cos(theta)
    r[0, 1] = -math.sin(theta)
    r[1, 0] = math.sin(theta)
    r[1, 1] = math.cos(theta)
    v = np.array([x, y])
    for _ in range(n):
        w = np.zeros(2)
        for i in range(2):
            for j in range(2):
                w[i] += r[i, j] * v[j]
        v = w * 0.99
    return v[0] * v[0] + 3.0 * v[1]


def _stages_in_rows(a, b, h, steps):
    """Runge-Kutta stages kept as rows of a (4, 2) array written at constant indices, with a
    branch that writes into the state."""
    u = np.array([a, b])
    for t in range(steps):
        k = np.zeros((4, 2))
        k[0, 0], k[0, 1] = u[1], -u[0] * a
        k[1, 0], k[1, 1] = u[1] + 0.5 * h * k[0, 1], -(u[0] + 0.5 * h * k[0, 0]) * a
        k[2, 0], k[2, 1] = u[1] + 0.5 * h * k[1, 1], -(u[0] + 0.5 * h * k[1, 0]) * a
        k[3, 0], k[3, 1] = u[1] + h * k[2, 1], -(u[0] + h * k[2, 0]) * a
        u = u + h / 6.0 * (k[0] + 2.0 * k[1] + 2.0 * k[2] + k[3])
        if u[0] > 1.5:
            u[0] = 1.5 - 0.1 * u[1]
    return u[0] * b + u[1]


def _small_and_fixed(p, q):
    """A table of constants read at constant indices, and a 2-vector state carried by a
    while loop with a data-dependent exit."""
    c = np.array([0.5, 0.25, 0.125])
    s = np.array([p, q])
    i = 0
    while s[0] * s[0] < 50.0 and i < 20:
        s = np.array([s[0] * c[2] + s[1] + 1.0, s[1] - c[0] * s[0]])
        i += 1
    return s[0] + 2.0 * s[1]


SCALARIZED = [
    (_rk4_state, (1.0, 1.2, 0.9, 0.001, 40)),
    (_rotation_2x2, (0.3, 1.0, -0.5, 7)),
    (_stages_in_rows, (0.8, 1.1, 0.05, 30)),
    (_stages_in_rows, (0.8, 1.1, 0.05, 0)),
    (_small_and_fixed, (0.7, -0.3)),
]


def _allocates(f, *args) -> bool:
    text = f.ir(*args) + f.grad_ir(*args)
    return any(op in text for op in (" alloc ", " constarray "))


@pytest.mark.parametrize("fn,args", SCALARIZED, ids=lambda x: getattr(x, "__name__", ""))
def test_small_arrays_become_scalars(fn, args):
    f = check_against_python(fn, *args)
    assert not _allocates(f, *args)


def _runtime_length(x, n):
    """An array whose length is an argument: not a known shape."""
    a = np.zeros(n)
    for i in range(n):
        a[i] = x * i
    return np.sum(a * a)


def _escapes(x, y):
    """A small array that is a result of the function stays an array."""
    s = np.array([x, y, x * y])
    return s * 2.0


def _variable_index(x, y, k):
    """A small array read at a run-time index stays an array."""
    s = np.array([x, y, x + y])
    return s[k] * s[0]


def _table_at_runtime_index(p, q, n):
    """A table read at a run-time index inside a loop stays an array; the state still
    goes (the test looks for the table's constarray only)."""
    c = np.array([0.5, 0.25, 0.125])
    s = np.array([p, q])
    for i in range(n):
        s = np.array([s[0] * c[i % 3] + s[1], s[1] - c[0] * s[0]])
    return s[0] + 2.0 * s[1]


def _too_big(x):
    """More elements than the pass replaces."""
    a = np.zeros(64)
    for i in range(64):
        a[i] = x + i
    return np.sum(a * a)


KEPT = [(_runtime_length, (0.5, 6)), (_escapes, (1.5, 2.0)), (_variable_index, (1.5, 2.0, 2)),
        (_too_big, (0.25,))]


@pytest.mark.parametrize("fn,args", KEPT, ids=lambda x: getattr(x, "__name__", ""))
def test_arrays_the_pass_must_keep(fn, args):
    f = check_against_python(fn, *args)
    assert _allocates(f, *args)


def test_a_table_read_at_runtime_indices_stays_and_the_state_goes():
    f = check_against_python(_table_at_runtime_index, 0.7, -0.3, 5)
    assert f.ir(0.7, -0.3, 5).count(" alloc ") == 1     # the table, not the state


def test_loop_facts_reach_a_fixed_point_with_unknown_carried_values():
    """A loop carrying a value nothing is known about (here an argument) next to a counter:
    the analysis ends (it used to loop forever when an unknown stayed unknown) and knows
    neither."""
    x, n = Var("x", F64), Var("n", I64)
    i0 = Var("i0", I64)
    ci, cx = Var("ci", I64), Var("cx", F64)
    bi, bx = Var("bi", I64), Var("bx", F64)
    lt, one, i1, x1 = Var("lt", "bool"), Var("one", I64), Var("i1", I64), Var("x1", F64)
    oi, ox = Var("oi", I64), Var("ox", F64)
    loop = While((oi, ox), (i0, x),
                 Block((ci, cx), (Op((lt,), "lt", (ci, n), ()),), (lt,)),
                 Block((bi, bx), (Op((one,), "const", (), (1,)), Op((i1,), "add", (bi, one), ()),
                                  Op((x1,), "mul", (bx, bx), ())), (i1, x1)))
    func = Func("f", Block((x, n), (Op((i0,), "const", (), (0,)), loop), (ox,)))
    facts = known(func)
    assert facts.get("i0") == 0
    assert "oi" not in facts and "ox" not in facts and "bx" not in facts


def test_a_fact_survives_a_loop_that_keeps_it():
    """The 3-long state of a loop that replaces it by another 3-long array each trip is
    known to be 3 long after the loop."""
    def g(x, n):
        s = np.array([x, x, x])
        for _ in range(n):
            s = s * 0.5 + 1.0
        return s
    f = pyad.jit_grad(g)
    np.testing.assert_allclose(f(2.0, 4), g(2.0, 4))
    assert Shape((3,)).size == 3


def _squares(x, v, k):
    """x ** 2 of numbers and arrays, an int index times one."""
    return x ** 2 + np.sum(v ** 2) + v[k * 1] ** 2.0 + float(k ** 2)


def test_squares_are_products_and_times_one_is_the_index():
    f = check_against_python(_squares, 1.5, np.array([0.5, -2.0, 3.0]), 2)
    text = f.ir(1.5, np.array([0.5, -2.0, 3.0]), 2)
    assert " pow " not in text and " ipow " not in text
    assert f(1.5, np.array([0.5, -2.0, 3.0]), 2) == _squares(1.5, np.array([0.5, -2.0, 3.0]), 2)


def _loop_after_unrolled_loop(x):
    """The second element loop reads the first's result (the max): both are unrolled in
    one pass (found by the differential tester, seed 155: a use left unrenamed)."""
    sc = np.zeros(5)
    sc = sc - np.max(sc) + x
    return np.sum(sc) + np.max(sc * sc)


def test_a_loop_unrolled_after_one_it_reads():
    check_against_python(_loop_after_unrolled_loop, 0.75)
