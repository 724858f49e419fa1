"""Accumulating loops whose terms are added under a branch (`if c: s += t`, `else: s -= u`)
are reversed inside their forward sweep like plain accumulations (fused.py): nothing is
taped. A branch that scales the sum, or a condition that reads it, makes the trips depend
on each other: those loops are taped. Each function is checked against CPython's value,
central differences with the dot-product test, and the IR interpreter."""
from __future__ import annotations

import math

import numpy as np
import pytest

from bench.spellings.w4 import all_pairs_scratch

from ..gradients import check_against_python

def masked_sum(x, w):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.0:
            s += w[i] * x[i] ** 2
        elif x[i] < -0.5:
            s -= math.exp(w[i] * x[i])
    return s

def huber(r, d):
    s = 0.0
    for i in range(len(r)):
        a = abs(r[i] - d[i])
        if a < 1.0:
            s += 0.5 * a * a
        else:
            s += a - 0.5
    return s

def pairs(pos, m):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(n):
            if i != j:
                d = 0.01
                for c in range(3):
                    d += (pos[i, c] - pos[j, c]) ** 2
                e -= 0.5 * m[i] * m[j] / math.sqrt(d)
    return e

def not_accum(x, w):
    """The branch scales the sum: not an accumulation."""
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.0:
            s = s * w[i] + x[i]
        else:
            s += x[i]
    return s

def cond_reads(x, w):
    """The condition reads the sum: not an accumulation."""
    s = 0.0
    for i in range(len(x)):
        if s > 1.0:
            s += w[i]
        else:
            s += x[i] * w[i]
    return s


# The W4 all-pairs spelling (bench/spellings/w4.py): the difference in a 3-vector scratch
# array under the branch. The array becomes three scalars (scalarize), which the loops would
# carry from trip to trip were they not dropped as dead (opt.dead_carried).
pairs_scratch = all_pairs_scratch


def flips(x, w):
    """A branch subtracts the sum from a term: its adjoint changes sign, not an
    accumulation."""
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.0:
            s = w[i] - s
        else:
            s += x[i] * w[i]
    return s


_rng = np.random.default_rng(0)
_X, _W = _rng.uniform(-1.0, 1.0, 7), _rng.uniform(-1.0, 1.0, 7)
_POS, _M = _rng.uniform(-1.0, 1.0, (5, 3)), _rng.uniform(0.5, 1.0, 5)
CASES = [(masked_sum, (_X, _W), True), (huber, (3.0 * _X, _W), True),
         (pairs, (_POS, _M), True), (pairs_scratch, (_POS, _M), True), (not_accum, (_X, _W), False),
         (cond_reads, (_X, _W), False), (flips, (_X, _W), False)]


@pytest.mark.parametrize("fn, args, fused", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_conditional_accumulation(fn, args, fused):
    f = check_against_python(fn, *args)
    first = next(line for line in f.grad_ir(*args).splitlines() if "# reverse" in line)
    assert ("# reversed inside this loop" in first) == fused  # the outer loop's plan
    assert (f.tape_bytes(*args) == 0) == fused
