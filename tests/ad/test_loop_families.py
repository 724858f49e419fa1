"""One small function per loop family of issue 17 (scratch fills then reductions, in-place
`+=` updates of scratch arrays in nested loops, buffer rotation, time stepping with array
state, nested fills then reductions, while loops with a data-dependent exit; accumulations
and the other strategies are in test_loop_plans.py): the golden gradient IR with the plan
printed above each reversed loop, finite differences and the IR interpreter against
value_and_grad, and the tape's size as a formula of the sizes, checked at several sizes.

The formulas are what pyad tapes today. Where that is more than the loop's live state per
trip, the comment above the formula says so and what issue 17's target is; a change of the
AD pass that meets the target makes the formula fail here, and the new formula goes in."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad
from pyad.api.check import interp_value_and_grad

from ..golden_files import check_golden, strip_locs


def fill_reduce(a, w):
    """A scratch vector filled completely each trip, then reduced by a second inner loop."""
    sc = np.zeros(len(a))
    s = 0.0
    for k in range(len(w)):
        for j in range(len(a)):
            sc[j] = math.sin(a[j] * w[k])
        t = 0.0
        for j in range(len(a)):
            t += sc[j] * sc[j]
        s = s * 0.5 + math.log(1.0 + t)
    return s


def inplace_update(q, means, x):
    """ADBench GMM C++ style: per point and component, scratch vectors set, then updated in
    place with `+=` in a nested loop (v = Q (x_i - mu_k), Q lower triangular), then reduced."""
    d = x.shape[1]
    xc = np.zeros(d)
    v = np.zeros(d)
    s = 0.0
    for i in range(x.shape[0]):
        for k in range(means.shape[0]):
            for j in range(d):
                xc[j] = x[i, j] - means[k, j]
            for r in range(d):
                v[r] = 0.0
            for r in range(d):
                for c in range(r + 1):
                    v[r] += q[r, c] * xc[c]
            sq = 0.0
            for r in range(d):
                sq += v[r] * v[r]
            s += math.exp(-0.5 * sq)
    return math.log(s)


def rotation(u0, c, steps):
    """A leapfrog wave stencil whose three buffers rotate: prev, cur, nxt = cur, nxt, prev."""
    n = len(u0)
    prev = u0.copy()
    cur = u0.copy()
    nxt = u0.copy()
    for _ in range(steps):
        for i in range(1, n - 1):
            nxt[i] = 2.0 * cur[i] - prev[i] + c * (cur[i + 1] - 2.0 * cur[i] + cur[i - 1])
        prev, cur, nxt = cur, nxt, prev
    return np.sum(cur * cur)


def step_new_array(u, w, steps):
    """Time stepping with array state, a new array per step (u = u + dt * f(u))."""
    for _ in range(steps):
        u = u + 0.1 * np.tanh(w - u * u)
    return np.sum(u)


def stencil_inplace(u0, c, steps):
    """Time stepping with array state updated in place (a Gauss-Seidel-like sweep)."""
    u = u0.copy()
    for _ in range(steps):
        for i in range(1, len(u) - 1):
            u[i] = u[i] + c * math.sin(u[i + 1] - 2.0 * u[i] + u[i - 1])
    return np.sum(u * u)


def nested_fill_reduce(a, b):
    """A 2-D scratch array filled by nested loops, then reduced row by row."""
    m = np.zeros((len(a), len(b)))
    for i in range(len(a)):
        for j in range(len(b)):
            m[i, j] = math.exp(-(a[i] - b[j]) ** 2)
    s = 0.0
    for i in range(len(a)):
        r = 0.0
        for j in range(len(b)):
            r += m[i, j]
        s += math.log(r)
    return s


def while_exit(x, target):
    """A while loop whose exit depends on the carried value."""
    s = x
    while s < target:
        s = s * 1.5 + math.sin(s)
    return s * x


def _trips(x, target):
    """The trip count of while_exit, counted in Python."""
    s, n = x, 0
    while s < target:
        s, n = s * 1.5 + math.sin(s), n + 1
    return n


def _u(*shape):
    return np.random.default_rng(sum(shape)).uniform(-1.0, 1.0, shape)


# (function, args of sizes (n, k), tape bytes as a formula of (n, k)); the golden IR and the
# gradient checks use (n, k) = (4, 3).
FAMILIES = [
    # today, per trip of k: the reduction loop tapes its load of sc[j] (n values: the
    # second load in `sc[j] * sc[j]` reuses the first) and 1 + t (1 value); the fill loop
    # tapes nothing. Target: sc is not written again until the next trip's fill, so the
    # reduction can re-read it: 1 value per trip (8 k).
    (fill_reduce, lambda n, k: (_u(n), _u(k)), lambda n, k: 8 * k * (n + 1)),
    # xc and v are private to the trips of both loops (each trip fills them before it
    # reads them: pyad/ir/private.py), and s only accumulates, so each (point, component)
    # pair is reversed right after it runs; its loads of xc and v are re-read there (the
    # pair writes them no more after them), so nothing is taped. Meets the target.
    (inplace_update, lambda n, k: (np.tril(_u(3, 3)), _u(k, 3), _u(n, 3)),
     lambda n, k: 0),
    # today, per step: 1 value per inner trip (n - 2) and the six array references the
    # rotation moves (prev, cur, nxt and their shadows, 24 bytes each: 18 words). The
    # inner values are within the live state (two buffers of n); the references are not
    # needed on the tape (the rotation is a permutation of period 3): target 8 k (n - 2).
    (rotation, lambda n, k: (_u(n), 0.2, k), lambda n, k: 8 * k * (n - 2 + 18)),
    # today, per step: the tanh of each element (n values; u is re-read: a step writes
    # only the array it makes, never the one it reads) and three array references (9
    # words). The live state is u, n values per step: the target is 8 k n.
    (step_new_array, lambda n, k: (_u(n), _u(n), k), lambda n, k: 8 * k * (n + 9)),
    # today: 2 values per inner trip (sin and its argument). The live state is the one
    # overwritten u[i] per inner trip: the target is 8 k (n - 2) (sin recomputed).
    (stencil_inplace, lambda n, k: (_u(n), 0.2, k), lambda n, k: 16 * k * (n - 2)),
    # m is never written after its fill and holds the exp of each element, so the reverse
    # of the fill loads them back (memory.final_stores) and tapes nothing. Meets the target.
    (nested_fill_reduce, lambda n, k: (_u(n), _u(k)), lambda n, k: 0),
    # one value per trip, the carried state: meets the target. The trip count of a
    # data-dependent exit is counted by the forward sweep.
    (while_exit, lambda n, k: (0.5, float(n * k)), lambda n, k: 8 * _trips(0.5, n * k)),
]


@pytest.mark.parametrize("fn, make, tape", FAMILIES, ids=lambda c: getattr(c, "__name__", ""))
def test_family_plan_and_gradient(fn, make, tape):
    f = pyad.jit_grad(fn, argnums="all")
    args = make(4, 3)
    pyad.check_grad(f, *args)
    value, grads = f.value_and_grad(*args)
    assert value == pytest.approx(fn(*args), rel=1e-12)
    iv, ig = interp_value_and_grad(f, *args)
    assert iv == pytest.approx(value, rel=1e-12)
    for g, h in zip(grads, ig):
        if g is None:  # an int argument (a step count)
            assert h is None
        else:
            np.testing.assert_allclose(h, g, rtol=1e-12, atol=1e-14)
    check_golden(f"loops/{fn.__name__}.grad.ir", strip_locs(f.grad_ir(*args)))


@pytest.mark.parametrize("fn, make, tape", FAMILIES, ids=lambda c: getattr(c, "__name__", ""))
def test_family_tape_formula(fn, make, tape):
    """The tape's size follows the formula at three sizes of n and of k."""
    f = pyad.jit_grad(fn, argnums="all")
    for n, k in [(4, 3), (8, 3), (4, 6), (16, 12)]:
        assert f.tape_bytes(*make(n, k)) == tape(n, k), (n, k)


def test_every_family_prints_its_plan():
    for fn, make, _ in FAMILIES:
        text = pyad.jit_grad(fn, argnums="all").grad_ir(*make(4, 3))
        assert "# reverse of the loop" in text or "# reversed inside this loop" in text
