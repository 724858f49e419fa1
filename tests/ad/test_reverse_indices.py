"""Indices the reverse sweep computes again (pyad/ad/taped.py: the plan's recomputed ops) are
`wrapidx`: the forward trip checked the same values with `normidx`, so native code does not
check them a second time (bounds checks of invariant indices inside a reverse loop kept LLVM
from vectorizing it). These functions index with negative numbers, through an index array and
from an outer loop's counter; each is checked against CPython, central differences with the
dot-product test and the IR interpreter (which still checks `wrapidx`). An index out of bounds
is still an IndexError naming the line, raised by the forward sweep, in every entry point."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad
from pyad.ir.ops import OPS

from ..gradients import check_against_python


def from_the_end(x):
    s = 0.0
    for i in range(len(x)):
        s = math.sin(s) + x[-1 - i] * x[i]
    return s


def through_an_index_array(x, idx):
    s = 0.0
    for i in range(len(idx)):
        s = s * x[idx[i]] + x[idx[i]] * (i + 1.5)
    return s


def outer_counter_in_inner_loop(w, v):
    h = np.zeros(w.shape[1])
    s = 0.0
    for f in range(w.shape[0]):
        for j in range(w.shape[1]):
            h[j] += v[f] * w[f, -1 - j]
        s += math.tanh(h[f % w.shape[1]])
    return s


def rerun_from_the_end(a, w):
    """An accumulating inner loop the reverse sweep runs again (fused.rerun_in_reverse)."""
    p = 1.0
    for i in range(a.shape[0]):
        se = 0.0
        for j in range(a.shape[1]):
            se += math.exp(a[-1 - i, j] * w[-1 - j])
        p = p * 0.5 + math.log(se)
    return p


CASES = [
    (from_the_end, (np.linspace(-1.0, 2.0, 7),)),
    (through_an_index_array, (np.linspace(0.5, 1.5, 6), np.array([0, -1, 3, -6, 2, 5]))),
    (outer_counter_in_inner_loop, (np.linspace(-0.5, 0.7, 12).reshape(3, 4),
                                  np.array([0.3, -0.2, 0.9]))),
    (rerun_from_the_end, (np.linspace(-0.5, 0.7, 12).reshape(3, 4), np.linspace(0.2, 0.5, 4))),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_recomputed_indices_give_the_gradient(fn, args):
    f = check_against_python(fn, *args)
    fwd_bwd = f.grad_ir(*args)
    assert "wrapidx" in fwd_bwd  # the reverse sweep recomputes an index: the case is covered
    forward = fwd_bwd.split("func ")[1]  # the forward sweep checks every index it computes
    unchecked = [line for line in forward.splitlines() if "wrapidx" in line
                 and ", true" not in line]  # (those a split loop's block checked before it)
    assert "normidx" in forward and not unchecked


def test_an_index_out_of_bounds_is_still_an_index_error():
    f = pyad.jit_grad(through_an_index_array)
    x, idx = np.linspace(0.5, 1.5, 6), np.array([0, 2, 6])
    line = through_an_index_array.__code__.co_firstlineno + 3  # the line of x[idx[i]]
    for call in (f, f.grad, f.value_and_grad, f.pullback):
        with pytest.raises(IndexError, match=rf"index 6 is out of bounds .*\(line {line} of"):
            call(x, idx)


def test_the_interpreter_checks_wrapidx():
    row = OPS["wrapidx"]
    assert row.py(-1, 4, 0) == 3 and row.py(2, 4, 0) == 2
    with pytest.raises(IndexError):
        row.py(4, 4, 0)


def test_checkpointed_segments_run_again_unchecked_and_give_the_same_bits():
    x = np.linspace(-1.0, 2.0, 1000)  # 8000 bytes of tape without a budget
    free = pyad.jit_grad(from_the_end)
    tight = pyad.jit_grad(from_the_end, max_tape_bytes=1024)
    plan = tight.grad_ir(x)
    assert "checkpoints:" in plan and "wrapidx" in plan
    assert tight.grad(x).tobytes() == free.grad(x).tobytes()
    assert tight.tape_bytes(x) <= 1024 < free.tape_bytes(x)
