"""What a taped loop's reverse trip recomputes instead of taping (pyad/ad/plan.py, the cost
model in docs/gradients.md, "What a reverse trip saves"): values that cheap ops rebuild from
the carried values are recomputed however many ops that takes, so the tape holds the
loop's live state; a division, square root or exp is taped unless nothing it reads changes
in the loop (an element loaded at a fixed index from memory nothing writes counts as not
changing), or, for divisions and square roots, unless computing them again empties the
tape (the operands of each come back). Each function: the tape's bytes per trip, the
printed plan, the gradient against central differences and against the IR interpreter."""
from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

import pyad
from pyad.api.check import interp_value_and_grad

from ..corpus_loops import lorenz_rk4


def oscillator_rk4(k, c, x, v, steps, dt):
    """A damped oscillator x'' = -k x - c x' integrated by classical RK4: every stage is
    cheap arithmetic on the state (x, v) and the parameters; dt / 6.0 does not change."""
    for _ in range(steps):
        a1x, a1v = v, -k * x - c * v
        x2, v2 = x + 0.5 * dt * a1x, v + 0.5 * dt * a1v
        a2x, a2v = v2, -k * x2 - c * v2
        x3, v3 = x + 0.5 * dt * a2x, v + 0.5 * dt * a2v
        a3x, a3v = v3, -k * x3 - c * v3
        x4, v4 = x + dt * a3x, v + dt * a3v
        a4x, a4v = v4, -k * x4 - c * v4
        x = x + dt / 6.0 * (a1x + 2.0 * a2x + 2.0 * a3x + a4x)
        v = v + dt / 6.0 * (a1v + 2.0 * a2v + 2.0 * a3v + a4v)
    return x * x + v * v


def invariant_exp(x, a, n):
    """exp(a) and sqrt(a) do not change in the loop: run again, not taped; s is taped."""
    s = x
    for _ in range(n):
        s = s * math.exp(a) * 0.5 + math.sqrt(a) * s * s * 0.1
    return s


def invariant_load(x, v, n):
    """v[0], an element nothing writes, is read at a fixed index: its square root and the
    quotient are the same every trip, run again rather than taped (before: 4 values a
    trip); only s is taped."""
    s = x
    for _ in range(n):
        s = s * (0.5 + 0.1 / math.sqrt(v[0] + 1.0)) + 0.01 * s * s
    return s


def variant_exp(x, n):
    """exp(-s) changes every trip: its value is taped (its adjoint needs it), s is not."""
    s = x
    for _ in range(n):
        s = s + 0.1 * math.exp(-s)
    return s


def _chain(length: int, where):
    """A loop whose body is `length` dependent cheap ops on the carried value, from a file
    written in `where` (a chain deeper than Python's recursion limit)."""
    body = "\n".join(f"        t = t * 0.999 + {1e-3 * (i % 7):.4f}" for i in range(length))
    src = (f"def chain(x, n):\n    s = x\n    for _ in range(n):\n        t = s\n{body}\n"
           f"        s = t * s * 0.5 + 0.25\n    return s\n")
    path = where / f"chain{length}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"chain{length}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.chain


def ratio_of_elements(x, n):
    """The square root and the quotient are not cheap, but their operands come back (x is
    never written): computed again, which leaves the tape empty (before: 2 values a trip)."""
    s = 0.0
    for i in range(n):
        v = x[i % len(x)]
        s = 0.9 * s + v / math.sqrt(1.0 + v * v)
    return s


def logistic_of_elements(x, n):
    """exp is 20-40 instructions: its value is taped although its operand comes back, and
    so the quotient and its denominator over it are (3 values a trip)."""
    s = 0.0
    for i in range(n):
        e = math.exp(x[i % len(x)])
        s = 0.9 * s + e / (1.0 + e)
    return s


# (function, arguments, index of the trip count in them, tape bytes per trip)
CASES = [
    (oscillator_rk4, (2.0, 0.3, 1.0, 0.0, 7, 0.05), 4, 16),
    (lorenz_rk4, (10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, 7, 0.001), 6, 24),
    (invariant_exp, (0.4, 0.3, 6), 2, 8),
    (invariant_load, (0.4, np.array([0.3, 0.7]), 6), 2, 8),
    (variant_exp, (0.4, 6), 1, 8),
    (ratio_of_elements, (np.linspace(-1.0, 1.0, 5), 6), 1, 0),
    (logistic_of_elements, (np.linspace(-1.0, 1.0, 5), 6), 1, 24),
]


@pytest.mark.parametrize("fn, args, at, per_trip", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_tape_holds_the_live_state(fn, args, at, per_trip):
    f = pyad.jit_grad(fn, argnums="all")
    for n in (0, 1, 5, 40):
        sized = args[:at] + (n,) + args[at + 1:]
        assert f.tape_bytes(*sized) == per_trip * n, n
    assert f"with the tape: {per_trip // 8} value" in f.grad_ir(*args)


@pytest.mark.parametrize("fn, args, at, per_trip", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_recomputed_gradients(fn, args, at, per_trip):
    f = pyad.jit_grad(fn, argnums="all")
    value, grads = f.value_and_grad(*args)
    assert value == pytest.approx(fn(*args), rel=1e-12)
    pyad.check_grad(f, *args)
    iv, ig = interp_value_and_grad(f, *args)
    assert iv == pytest.approx(value, rel=1e-12)
    for g, h in zip(grads, ig):
        if g is None:  # the trip count
            assert h is None
        else:
            assert h == pytest.approx(g, rel=1e-12, abs=1e-14)
    _, back = f.pullback(*args)
    for g, h in zip(back(1.0), grads):  # the pullback recomputes the same ops: the same bits
        assert g is h is None or np.array_equal(g, h)


def test_a_chain_of_1200_ops_is_recomputed(tmp_path):
    """1200 dependent ops from the carried value: all recomputed (the tape holds s alone),
    without recursing once per op."""
    fn = _chain(1200, tmp_path)
    f = pyad.jit_grad(fn, argnums=(0,))
    assert f.tape_bytes(0.3, 3) == 8 * 3
    pyad.check_grad(f, 0.3, 3)
    _, ig = interp_value_and_grad(f, 0.3, 3)
    assert ig[0] == pytest.approx(f.grad(0.3, 3)[0], rel=1e-12)
    assert f(0.3, 3) == pytest.approx(fn(0.3, 3), rel=1e-12)
