"""A counted loop whose trips push a fixed number of bytes makes room on the tape for all its
trips before it and keeps the tape's top in a register (codegen/lower/emit.py `while_`), so
the pushes are stores at offsets of the trip and the loop vectorizes like one without them
(split_sums.py splits loops that push, too); a loop whose trips pop a fixed number of bytes
keeps the top in a register as well. Gradients against central differences and the
interpreter; the tape holds what it held before (tape_bytes); a loop that raises midway
leaves the next call right."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def log_sum_exp_rows(X):
    total = 0.0
    for i in range(X.shape[0]):
        s = 1.0
        for j in range(X.shape[1]):
            s += math.exp(X[i, j])
        total += math.log(s)
    return total


def stepped(x, n):
    s = 0.3
    for i in range(1, n, 3):
        s = math.sin(s * x[i]) + x[i - 1]   # s is taped: the reverse needs each trip's
    return s


def pushes_under_an_if(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s += math.exp(x[i]) * x[i]
        else:
            s -= math.log1p(x[i] * x[i])
    return s


def first_n(x, n):
    s = 0.3
    for i in range(n):
        s = math.sin(s * x[i]) + x[i]
    return s


RNG = np.random.default_rng(3)


@pytest.mark.parametrize("fn, args", [
    (log_sum_exp_rows, (RNG.standard_normal((4, 50)),)),
    (log_sum_exp_rows, (np.zeros((3, 0)),)),
    (stepped, (RNG.standard_normal(40), 40)), (stepped, (RNG.standard_normal(40), 38)),
    (stepped, (RNG.standard_normal(40), 0)), (stepped, (RNG.standard_normal(40), -5)),
    (pushes_under_an_if, (RNG.standard_normal(60),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_values_and_gradients(fn, args):
    check_against_python(fn, *args)


@pytest.mark.parametrize("n, trips", [(40, 13), (38, 13), (2, 1), (1, 0), (-5, 0)])
def test_the_tape_holds_the_same_bytes_per_trip(n, trips):
    f = pyad.jit_grad(stepped)
    x = np.linspace(0.1, 0.9, 40)
    per_trip = f.tape_bytes(x, 2)      # range(1, 2, 3): one trip
    assert per_trip > 0 and f.tape_bytes(x, n) == trips * per_trip


def test_the_loop_keeps_the_tape_top_in_a_register():
    ir = pyad.jit_grad(log_sum_exp_rows).llvm_ir(np.ones((2, 3)), gradient=True)
    assert "%tape.top" in ir
    ir = pyad.jit_grad(stepped).llvm_ir(np.ones(4), 4, gradient=True)
    backward = ir[ir.index("@stepped.bwd.kernel("):]
    assert "%tape.top" in backward[:backward.index("\n}\n")]   # the pops of its reverse
    assert "%tape.top" not in pyad.jit_grad(pushes_under_an_if).llvm_ir(np.ones(3),
                                                                        gradient=True)


def test_a_loop_that_raises_midway_leaves_the_next_call_right():
    f = pyad.jit_grad(first_n)
    x = RNG.standard_normal(8)
    want = f.grad(x, 8)
    for _ in range(3):
        with pytest.raises(IndexError):
            f.grad(x, 12)          # raises at trip 8, after 8 trips' pushes
        assert np.array_equal(f.grad(x, 8), want)
        assert f.tape_bytes(x, 8) == 8 * f.tape_bytes(x, 1) > 0
    check_against_python(first_n, x, 8)


def huge_loop(x, n):
    s = 0.3
    for i in range(-n, n, 2):
        s = math.sin(s * x[0]) + x[1]
    return s


@pytest.mark.parametrize("n", [2 ** 62, 2 ** 61 + 3, 2 ** 60])
def test_room_for_more_trips_than_memory_is_a_memory_error(n):
    """Trips times bytes past the 64-bit range (or past memory) raise MemoryError before
    the loop runs, not a tape too small for its pushes."""
    with pytest.raises(MemoryError):
        pyad.jit_grad(huge_loop).grad(np.array([0.5, 0.25]), n)
