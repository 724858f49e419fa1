"""An array a loop nest reads again and again, and something writes after the nest, is copied
before the nest for the reverse sweep (pyad/ad/snapshot.py, `snapshot_loop_reads`): the
tape then grows with the array's size per nest, not with the number of reads. Buffers a loop
rotates (`h, hn = hn, h`) are told apart. Each function is checked against CPython's value,
central differences with the dot-product test and the IR interpreter; the tape sizes show
whether the copy was made (power iteration, an in-place direction update; the rnn's
reads were kept off the tape before the copies too, so it checks only values and
gradients). A nest that writes the array it reads (Gauss-Seidel) must not read a copy."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def rnn(X, Wh):
    """The hidden state rotates between two buffers; each step reads h once per row."""
    T, H = X.shape[0], Wh.shape[0]
    h = np.zeros(H)
    hn = np.zeros(H)
    loss = 0.0
    for t in range(T):
        for i in range(H):
            a = X[t, i % X.shape[1]]
            for j in range(H):
                a += Wh[i, j] * h[j]
            hn[i] = math.tanh(a)
        h, hn = hn, h
        loss += h[0] * h[0]
    return loss


def power_iteration(A, iters):
    n = A.shape[0]
    v = np.ones(n)
    w = np.zeros(n)
    lam = 0.0
    for _ in range(iters):
        nrm = 0.0
        for i in range(n):
            acc = 0.0
            for j in range(n):
                acc += A[i, j] * v[j]
            w[i] = acc
            nrm += acc * acc
        nrm = math.sqrt(nrm)
        for i in range(n):
            w[i] /= nrm
        lam = nrm
        v, w = w, v
    return lam + v[0]


def in_place_direction(A, b):
    """p is rewritten in place after the product A @ p that reads it n times."""
    n = len(b)
    p = b.copy()
    q = np.zeros(n)
    s = 0.0
    for it in range(3):
        for i in range(n):
            acc = 0.0
            for j in range(n):
                acc += A[i, j] * p[j]
            q[i] = acc
        for i in range(n):
            p[i] = 0.5 * p[i] + 0.1 * math.sin(q[i])
            s += q[i] * p[i]
    return s


def gauss_seidel(A, b):
    """The sweep reads x while it writes it: each read must see the new elements."""
    n = len(b)
    x = np.zeros(n)
    for sweep in range(3):
        for i in range(n):
            acc = b[i]
            for j in range(n):
                if j != i:
                    acc -= A[i, j] * x[j]
            x[i] = acc / A[i, i]
    return float(np.sum(x * x))


def aliased_rotation(X, Wh):
    """Both names start as one buffer: not two buffers to tell apart."""
    T, H = X.shape[0], Wh.shape[0]
    h = np.zeros(H)
    hn = h
    loss = 0.0
    for t in range(T):
        for i in range(H):
            a = X[t, i % X.shape[1]]
            for j in range(H):
                a += Wh[i, j] * h[j]
            hn[i] = math.tanh(a)
        h, hn = hn, h
        loss += h[0] * h[0]
    return loss


def _dominant(n, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.5, 0.5, (n, n)) + n * np.eye(n)


RNG = np.random.default_rng(3)
CASES = [(rnn, lambda n: (RNG.uniform(-1, 1, (6, 3)), RNG.uniform(-0.5, 0.5, (n, n)))),
         (power_iteration, lambda n: (_dominant(n, 1), 4)),
         (in_place_direction, lambda n: (RNG.uniform(-0.5, 0.5, (n, n)),
                                         RNG.uniform(-1, 1, n))),
         (gauss_seidel, lambda n: (_dominant(n, 2), RNG.uniform(-1, 1, n))),
         (aliased_rotation, lambda n: (RNG.uniform(-1, 1, (n, 3)),
                                       RNG.uniform(-0.5, 0.5, (n, n))))]


@pytest.mark.parametrize("fn,make", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_values_and_gradients(fn, make):
    for n in (1, 2, 5):
        check_against_python(fn, *make(n))


def _tape(fn, args) -> int:
    f = pyad.jit_grad(fn, argnums=0, cache=False)
    return f.tape_bytes(*args)


@pytest.mark.parametrize("fn,make", CASES[1:3], ids=lambda c: getattr(c, "__name__", ""))
def test_the_tape_grows_with_the_array_not_the_reads(fn, make):
    """From n = 16 to n = 32 the reads of the vector grow 4x per nest; the tape about
    doubles (a copy of the vector, and per-row values, per nest)."""
    small, large = _tape(fn, make(16)), _tape(fn, make(32))
    assert large < 2.6 * small


def test_a_nest_that_writes_what_it_reads_reads_it_in_place():
    """Gauss-Seidel's reads of x are taped (a copy would miss the new elements): the tape
    grows with the reads."""
    small, large = _tape(gauss_seidel, CASES[3][1](16)), _tape(gauss_seidel, CASES[3][1](32))
    assert large > 3.5 * small
