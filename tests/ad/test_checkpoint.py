"""Checkpointing under a tape budget (`jit_grad(..., max_tape_bytes=N)`, pyad/ad/checkpoint.py).

For loops of several shapes (scalar state, array state in arrays each trip makes, nested
loops, while loops with data-dependent exits, early breaks), with budgets small enough that
the tape is cut many times: the value and gradient are bit for bit those without a budget
(value_and_grad, and a pullback called twice), the interpreter on the budgeted gradient IR
agrees bit for bit too, finite differences agree, and the tape's peak (`tape_bytes`) stays
under the budget. Loops that cannot re-run their trips are taped as without a budget and
their plan says why; a budget the checkpoints alone exceed is a located MemoryError.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad
from pyad.api.check import interp_value_and_grad

from .. import corpus_loops as C
from ..golden_files import check_golden, strip_locs


def rk4(sigma, rho, beta, x, y, z, steps, dt):
    return C.lorenz_rk4(sigma, rho, beta, x, y, z, steps, dt)


def while_exit(x, tol):
    """A while loop whose trip count depends on the data."""
    s, acc = x, 0.0
    while abs(s) > tol:
        s = s * 0.999 + 1e-4 * math.sin(s * x)
        acc += s * s
    return acc


def early_break(x, n):
    """A counted loop left early by a break."""
    s = x
    for i in range(n):
        s = s * math.cos(s) + 0.5 * x
        if s > 1e6:
            break
    return s


def nested(x, n, m):
    """A taped inner loop in a taped outer loop: both are checkpointed."""
    s = x
    for i in range(n):
        t = s
        for j in range(m):
            t = t * math.sin(t) + x * 0.1
        s = 0.5 * s + 0.5 * t
    return s


def fresh_arrays(u0, steps):
    """Array state: each trip writes a new array from the previous one."""
    n = len(u0)
    u = u0
    for t in range(steps):
        v = np.zeros(n)
        for i in range(n):
            v[i] = u[i] + 0.1 * (u[(i + 1) % n] - 2.0 * u[i] + u[i - 1]) + 0.01 * math.sin(u[i])
        u = v
    return float(np.sum(u * u))


def in_place(u, steps):
    """Array state written in place (a copy of the argument)."""
    v = u.copy()
    for t in range(steps):
        for i in range(1, len(v)):
            v[i] = v[i] * math.cos(v[i - 1]) + 0.01 * v[0]
    return float(np.sum(v))


def rotation(u, steps):
    """Two buffers rotated between carried values, each trip writing one from the other."""
    n = len(u)
    a = u.copy()
    b = np.zeros(n)
    for t in range(steps):
        for i in range(n):
            b[i] = a[i] + 0.05 * math.sin(a[i - 1] - a[i])
        a, b = b, a
    return float(np.sum(a * a))


def scratch_2d(u, steps):
    """A 2-D scratch array made before the loop, set then updated with += in each trip."""
    n = len(u)
    sc = np.zeros((2, n))
    s = 0.0
    for t in range(steps):
        for i in range(n):
            sc[0, i] = u[i] * s
            sc[1, i] = 0.5
            sc[1, i] += math.cos(sc[0, i])
        s = 0.1 + 0.5 * math.tanh(s + sc[1, t % n] * sc[0, (t + 1) % n])
    return s + float(np.sum(sc))


U0 = np.linspace(-1.0, 1.0, 7)
LONG = [  # (function, arguments with many trips, budget that forces checkpoints)
    (rk4, (10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, 3000, 0.001), 32768),
    (while_exit, (0.9, 0.05), 8192),
    (early_break, (0.3, 5000), 8192),
    (nested, (0.4, 60, 40), 4096),
    (fresh_arrays, (U0, 400), 8192),
    (in_place, (U0, 400), 8192),
    (rotation, (U0, 400), 8192),
    (scratch_2d, (U0, 400), 8192),
]
SHORT = [  # the same loops, short enough for the interpreter and finite differences
    (rk4, (10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, 300, 0.001), 8192),
    (while_exit, (0.9, 0.5), 1024),
    (early_break, (0.3, 300), 1024),
    (nested, (0.4, 12, 10), 1024),
    (fresh_arrays, (U0, 30), 2048),
    (in_place, (U0, 30), 4096),
    (rotation, (U0, 30), 4096),
    (scratch_2d, (U0, 30), 4096),
]


def _ids(value):
    return getattr(value, "__name__", None)


def _budgeted(fn, budget):
    return pyad.jit_grad(fn, argnums=0, max_tape_bytes=budget)


@pytest.mark.parametrize("fn, args, budget", LONG, ids=_ids)
def test_bit_identical_under_budget(fn, args, budget):
    plain = pyad.jit_grad(fn, argnums=0)
    tight = _budgeted(fn, budget)
    want_v, want_g = plain.value_and_grad(*args)
    got_v, got_g = tight.value_and_grad(*args)
    assert got_v == want_v
    np.testing.assert_array_equal(got_g, want_g)
    _, back = tight.pullback(*args)
    np.testing.assert_array_equal(back(1.0), want_g)  # the backward re-runs segments...
    np.testing.assert_array_equal(back(1.0), want_g)  # ...and leaves the pullback intact
    # the budget was needed, and the peak stayed under it
    assert plain.tape_bytes(*args) > budget
    assert 0 < tight.tape_bytes(*args) <= budget


@pytest.mark.parametrize("fn, args, budget", SHORT, ids=_ids)
def test_interpreter_and_finite_differences_under_budget(fn, args, budget):
    tight = _budgeted(fn, budget)
    assert "checkpoints: the carried values" in tight.grad_ir(*args)
    v, g = tight.value_and_grad(*args)
    iv, ig = interp_value_and_grad(tight, *args)
    assert iv == v
    np.testing.assert_array_equal(ig, g)
    pyad.check_grad(tight, *args)
    assert tight.tape_bytes(*args) <= budget


def euler(x, steps):
    s = x
    for i in range(steps):
        s = s + 1e-6 * math.sin(s) * x
    return s


def test_a_million_steps_in_64_kib():
    plain = pyad.jit_grad(euler)
    tight = pyad.jit_grad(euler, max_tape_bytes=64 * 1024)
    args = (0.5, 1_000_000)
    assert tight.value_and_grad(*args) == plain.value_and_grad(*args)
    assert tight.tape_bytes(*args) <= 64 * 1024 < plain.tape_bytes(*args)


def test_the_plan_shows_the_checkpoints():
    text = strip_locs(_budgeted(C.lorenz_euler, 1 << 20).grad_ir(
        10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, 50, 0.001))
    check_golden("loops/lorenz_euler_budget.grad.ir", text)
    assert "checkpoints: the carried values and the trip number each time the trips have taped " \
        "half of what max_tape_bytes=1 MiB leaves when the loop starts" in text


def read_after(u, steps):
    """Reads an array the code after the loop writes."""
    w = u.copy()
    s = 0.0
    for t in range(steps):
        s = s * math.sin(w[t % len(w)]) + 1.0
    w[0] = s
    return s + w[0]


def test_a_loop_that_cannot_rerun_is_taped():
    fn, why = read_after, "it reads an array written after the loop"
    args = (np.array([0.3, -0.2, 0.5, 0.1]), 50)
    plain, tight = pyad.jit_grad(fn), _budgeted(fn, 1024)
    assert f"checkpoints: none, {why} (line" in tight.grad_ir(*args)
    v, g = tight.value_and_grad(*args)
    assert (v, g.tolist()) == (lambda r: (r[0], r[1].tolist()))(plain.value_and_grad(*args))
    pyad.check_grad(tight, *args)
    assert tight.tape_bytes(*args) == plain.tape_bytes(*args)


def test_checkpoints_beyond_the_budget_are_a_located_memory_error():
    tight = _budgeted(euler, 1024)
    with pytest.raises(MemoryError, match=r"the checkpoints of this loop leave no room under "
                       r"max_tape_bytes=1 KiB .* \(line \d+ of test_checkpoint\.py\)"):
        tight.grad(0.5, 100_000)
    assert tight.grad(0.5, 100) == pyad.jit_grad(euler).grad(0.5, 100)


def test_a_state_larger_than_the_budget_is_a_located_memory_error():
    tight = _budgeted(in_place, 4096)
    with pytest.raises(MemoryError, match=r"the checkpoints of this loop leave no room .* "
                       r"\(line \d+ of test_checkpoint\.py\)"):
        tight.grad(np.linspace(0.0, 1.0, 1000), 2)  # a checkpoint holds 8000 bytes of state


@pytest.mark.parametrize("bad, exc", [(100, ValueError), (2.5e6, TypeError), (True, TypeError)])
def test_max_tape_bytes_is_checked(bad, exc):
    with pytest.raises(exc, match="max_tape_bytes"):
        pyad.jit_grad(euler, max_tape_bytes=bad)
