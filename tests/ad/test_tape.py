"""Loops at scale and the tape they fill: the forward-Euler Lorenz example and the W3 Lorenz
RK4 workload at T = 10,000 (value+gradient time and tape bytes per step are printed; run
with `-s` to see them), a 10**7-iteration loop, what the tape saves (`f.tape_bytes(*args)`,
`back.tape_bytes`) and when it is released, memory (repeated calls, pullback lifetimes, an
allocation failure of the tape), two threads sharing a gradient, and inner-loop trip counts
recomputed from the bounds instead of taped.
"""
from __future__ import annotations

import gc
import math
import os
import re
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import pyad

from ..concurrency import run_together
from .. import corpus_loops as C
from ..corpus_loops import CASES
from ..frontend.test_corpus import close, has_float_param
from ..frontend.test_loops import (
    case_id, compiled, differentiable, linux_only, oracle_grad, rss_bytes)

ROOT = Path(__file__).resolve().parents[2]


# =========================================================================== Lorenz
LORENZ_ARGS = (10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, 10_000, 0.001)
LORENZ_SHORT = LORENZ_ARGS[:6] + (200, 0.001)


def test_lorenz_euler_example():
    f = pyad.jit_grad(C.lorenz_euler, argnums="all")
    want = C.lorenz_euler(*LORENZ_ARGS)
    assert f(*LORENZ_ARGS) == pytest.approx(want, rel=1e-9)
    g = f.grad(*LORENZ_ARGS)
    assert len(g) == 8 and g[6] is None
    assert all(math.isfinite(v) for i, v in enumerate(g) if i != 6)
    val, g2 = f.value_and_grad(*LORENZ_ARGS)
    assert val == pytest.approx(want, rel=1e-9) and close(g2, g, rtol=1e-9)
    # central differences (CPython) on the parameters: the system is chaotic over T = 10,
    # so only loosely
    for i in (0, 1, 2, 3):
        p, m = list(LORENZ_ARGS), list(LORENZ_ARGS)
        p[i] += 1e-6
        m[i] -= 1e-6
        fd = (C.lorenz_euler(*p) - C.lorenz_euler(*m)) / 2e-6
        assert g[i] == pytest.approx(fd, rel=1e-4), (i, g[i], fd)
    # shorter run: the interpreter (the oracle) and finite differences
    _, want_grad = oracle_grad(f, LORENZ_SHORT)
    assert close(f.grad(*LORENZ_SHORT), want_grad, rtol=1e-9)
    assert f(*LORENZ_SHORT) == pytest.approx(C.lorenz_euler(*LORENZ_SHORT), rel=1e-12)
    pyad.check_grad(f, *LORENZ_SHORT)


def test_w3_lorenz_rk4_at_10000_steps():
    f = pyad.jit_grad(C.lorenz_rk4, argnums="all")
    t = time.perf_counter()
    want = C.lorenz_rk4(*LORENZ_ARGS)
    t_python = time.perf_counter() - t
    assert f(*LORENZ_ARGS) == pytest.approx(want, rel=1e-9)
    val, g = f.value_and_grad(*LORENZ_ARGS)  # compiles
    assert val == pytest.approx(want, rel=1e-9)
    assert len(g) == 8 and g[6] is None
    assert all(math.isfinite(v) for i, v in enumerate(g) if i != 6), g
    assert close(f.grad(*LORENZ_ARGS), g, rtol=1e-9)
    times = []
    for _ in range(7):
        t = time.perf_counter()
        f.value_and_grad(*LORENZ_ARGS)
        times.append(time.perf_counter() - t)
    primal = []
    for _ in range(7):
        t = time.perf_counter()
        f(*LORENZ_ARGS)
        primal.append(time.perf_counter() - t)
    tape = f.tape_bytes(*LORENZ_ARGS)
    assert isinstance(tape, int)
    per_step = tape / LORENZ_ARGS[6]
    print(f"\nW3 Lorenz RK4, T=10,000: value+gradient {statistics.median(times) * 1e3:.3f} ms, "
          f"primal {statistics.median(primal) * 1e3:.3f} ms, CPython primal "
          f"{t_python * 1e3:.1f} ms; tape {tape} bytes = {per_step:.1f} bytes/step")
    assert per_step == 24  # the state (x, y, z): the stages are recomputed (plan.py)
    _, back = f.pullback(*LORENZ_ARGS)
    assert back.tape_bytes == tape
    assert close(back(1.0), g, rtol=1e-9)
    # exact gradients at 10,000 steps: finite differences (natively) ...
    pyad.check_grad(f, *LORENZ_ARGS)
    # ... and the interpreter on a shorter run
    short = LORENZ_ARGS[:6] + (100, 0.001)
    _, want_grad = oracle_grad(f, short)
    assert close(f.grad(*short), want_grad, rtol=1e-9)


# =========================================================================== long loops, tape
def decay_sum(x, n):
    s = 0.0
    for i in range(n):
        s = s * 0.9999999 + x
    return s


def decay_sum_param(x, c, n):
    s = 0.0
    for i in range(n):
        s = s * c + x
    return s


def straight_line(a, b):
    return a * math.sin(b) + b / (1.0 + a * a)


def while_with_branch(x, n):
    s = x
    k = 0
    while k < n:
        if k % 2 == 0:
            s = math.sin(s) * 1.1
        else:
            s = s * s * 0.5
        k += 1
    return s


def _decay_closed_form(x, c, n):
    cn = c ** n
    value = x * (1.0 - cn) / (1.0 - c)
    d_x = (1.0 - cn) / (1.0 - c)
    d_c = x * ((1.0 - cn) - n * c ** (n - 1) * (1.0 - c)) / (1.0 - c) ** 2
    return value, d_x, d_c


def test_gradient_of_a_ten_million_iteration_loop():
    n = 10**7
    f = pyad.jit_grad(decay_sum, argnums="all")
    f.grad(1.5, 10)  # compile
    t = time.perf_counter()
    val, (gx, gn) = f.value_and_grad(1.5, n)
    elapsed = time.perf_counter() - t
    value, d_x, _ = _decay_closed_form(1.5, 0.9999999, n)
    assert val == pytest.approx(value, rel=1e-6)
    assert gx == pytest.approx(d_x, rel=1e-6) and gn is None
    fp = pyad.jit_grad(decay_sum_param, argnums="all")
    fp.grad(1.5, 0.9999999, 10)
    t = time.perf_counter()
    val, (gx, gc_, gn) = fp.value_and_grad(1.5, 0.9999999, n)
    elapsed_param = time.perf_counter() - t
    value, d_x, d_c = _decay_closed_form(1.5, 0.9999999, n)
    assert val == pytest.approx(value, rel=1e-6)
    assert gx == pytest.approx(d_x, rel=1e-6)
    assert gc_ == pytest.approx(d_c, rel=1e-5) and gn is None
    print(f"\n10**7 iterations: value+gradient {elapsed:.3f} s (nothing to save), "
          f"{elapsed_param:.3f} s (saving s each iteration)")
    assert elapsed < 5.0 and elapsed_param < 5.0


def test_tape_saves_only_what_is_needed():
    """The tape holds nothing for straight-line code, nothing for values that are never
    overwritten, no loop counters of range loops; memory proportional to what is saved."""
    f = pyad.jit_grad(straight_line, argnums="all")
    assert f.tape_bytes(1.5, -0.5) == 0
    _, back = f.pullback(1.5, -0.5)
    assert back.tape_bytes == 0
    # s = s * 0.9999999 + x: the reverse sweep needs no value of s: the tape does not grow
    # with the trip count
    f = pyad.jit_grad(decay_sum, argnums="all")
    assert f.tape_bytes(1.5, 10**6) == f.tape_bytes(1.5, 10) < 1024
    # s = s * c + x: the reverse sweep needs every overwritten s (one f64 per iteration)
    fp = pyad.jit_grad(decay_sum_param, argnums="all")
    small = fp.tape_bytes(1.5, 0.9, 10)
    for n in (1000, 10**6):
        b = fp.tape_bytes(1.5, 0.9, n)
        assert 8 * n <= b <= 16 * n + 1024, (n, b)
    assert fp.tape_bytes(1.5, 0.9, 0) <= small
    # a while loop with a branch: the tape grows linearly with the trip count
    fw = pyad.jit_grad(while_with_branch, argnums="all")
    b1, b2 = fw.tape_bytes(0.3, 1000), fw.tape_bytes(0.3, 2000)
    assert 0 < b1 < b2 <= 2 * b1 + 1024
    assert b2 - b1 <= 1000 * 64  # a few words per iteration, not more


@pytest.mark.parametrize("case", [c for c in CASES if differentiable(c)], ids=case_id)
def test_tape_bytes_api(case):
    fn, samples = case
    f = compiled(fn)
    for args in samples:
        if not has_float_param(args) or f.specialization(args).shape != 0 \
                or type(fn(*args)) is not float:
            continue
        b = f.tape_bytes(*args)
        assert isinstance(b, int) and b >= 0
        _, back = f.pullback(*args)
        assert isinstance(back.tape_bytes, int) and back.tape_bytes == b
        assert f.tape_bytes(*args) == b  # deterministic


@linux_only
def test_tape_is_released_when_the_gradient_returns():
    fp = pyad.jit_grad(decay_sum_param, argnums="all")
    fp.grad(1.5, 0.9, 1000)
    gc.collect()
    before = rss_bytes()
    n = 10**7  # an 80 MB tape
    fp.value_and_grad(1.5, 0.9999999, n)
    fp.grad(1.5, 0.9999999, n)
    gc.collect()
    grown = rss_bytes() - before
    assert grown < 40 * 2**20, f"RSS grew by {grown / 2**20:.1f} MB after two 80 MB tapes"


# =========================================================================== memory
@linux_only
def test_repeated_gradient_calls_do_not_grow_the_process():
    fp = pyad.jit_grad(decay_sum_param, argnums="all")
    fw = pyad.jit_grad(while_with_branch, argnums="all")
    n = 100_000  # 800 kB of tape per call: a leak shows at once
    for _ in range(20):  # warm-up
        fp.value_and_grad(0.5, 0.99, n)
        fp.grad(0.5, 0.99, n)
        fw.grad(0.3, n)
    gc.collect()
    before = rss_bytes()
    for k in range(200):
        fp.value_and_grad(0.5 + k * 1e-3, 0.99, n)
        fp.grad(0.5, 0.99, n)
        fw.grad(0.3, n)
    gc.collect()
    grown = rss_bytes() - before
    assert grown < 5 * 2**20, f"RSS grew by {grown / 2**20:.1f} MB over 200 gradient calls"


@linux_only
def test_dropped_pullbacks_free_their_tapes():
    fp = pyad.jit_grad(decay_sum_param, argnums="all")
    n = 10_000  # 80 kB per pullback: 1000 leaked pullbacks would be 80 MB
    for _ in range(20):
        fp.pullback(0.5, 0.99, n)[1](1.0)
    gc.collect()
    before = rss_bytes()
    for k in range(1000):
        _, back = fp.pullback(0.5 + 1e-4 * k, 0.99, n)
        back(1.0)
        del back
    gc.collect()
    grown = rss_bytes() - before
    assert grown < 8 * 2**20, f"RSS grew by {grown / 2**20:.1f} MB over 1000 dropped pullbacks"


def test_each_pullback_owns_its_tape():
    fp = pyad.jit_grad(decay_sum_param, argnums="all")
    xs = [0.5 + 0.25 * k for k in range(20)]
    backs = [fp.pullback(x, 0.97, 500)[1] for x in xs]
    for x, back in reversed(list(zip(xs, backs))):
        assert close(back(1.0), fp.grad(x, 0.97, 500), rtol=1e-12)
    for x, back in zip(xs, backs):
        assert close(back(1.0), fp.grad(x, 0.97, 500), rtol=1e-12)


def test_pullback_outlives_its_jit_grad():
    args = (10.0, 28.0, 8.0 / 3.0, -1.5, 0.5, 2.0, 300, 0.005)
    jf = pyad.jit_grad(C.lorenz_rk4, argnums="all")
    want = jf.grad(*args)
    bytes_ = jf.tape_bytes(*args)
    _, back = jf.pullback(*args)
    del jf
    gc.collect()
    first = back(1.0)
    assert close(first, want, rtol=1e-12)
    assert back(1.0) == first
    assert back.tape_bytes == bytes_
    del back
    gc.collect()


def test_memory_error_when_the_tape_cannot_grow():
    """An allocation failure of the tape raises MemoryError, never a crash (run in a child
    process with a limited address space)."""
    pytest.importorskip("resource")
    if not os.path.exists("/proc/self/statm"):
        pytest.skip("needs /proc/self/statm")
    code = textwrap.dedent(f"""
        import os, resource, sys
        sys.path.insert(0, {str(ROOT)!r})
        import pyad
        from tests.ad.test_tape import decay_sum_param
        f = pyad.jit_grad(decay_sum_param, argnums="all")
        want = f.grad(1.5, 0.9, 1000)
        with open("/proc/self/statm") as fh:
            vm = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = vm + 300 * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            f.grad(1.5, 0.9, 10**9)  # an 8 GB tape
        except MemoryError:
            pass
        else:
            print("no MemoryError")
            sys.exit(1)
        assert f.grad(1.5, 0.9, 1000) == want
        print("OK")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("OK"), \
        f"returncode {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr[-3000:]}"


# =========================================================================== threads
def test_two_threads_share_a_compiled_gradient():
    f = pyad.jit_grad(C.lorenz_rk4, argnums="all")
    arg_sets = [(10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, 2000, 0.001),
                (9.0, 25.0, 2.5, -1.5, 0.5, 2.0, 1500, 0.002)]
    expected = [(f.value_and_grad(*a), f.grad(*a)) for a in arg_sets]

    def work(t):
        a = arg_sets[t]
        (val, g), g_only = expected[t]
        for _ in range(100):
            assert f.value_and_grad(*a) == (val, g)
            assert f.grad(*a) == g_only
            y, back = f.pullback(*a)
            assert y == val and back(1.0) == g
    run_together(work, 2)




# =========================================================================== inner trip counts
def inner_range_counts(x, n):
    s = 0.0
    for i in range(n):
        for j in range(1, i, 2):
            s += x * j
        for j in range(i, 2):  # empty from i = 2 on
            s += x
    return s


def inner_while_counts(x, n):
    s = 0.0
    for i in range(-2, n):
        j = i
        while j < n:
            s += x * x * j
            j += 3
    return s


@pytest.mark.parametrize("fn", [inner_range_counts, inner_while_counts])
def test_inner_loop_trip_counts_come_from_the_bounds_not_the_tape(fn):
    """An inner loop that exits only at its bound has its trip count recomputed in the
    reverse sweep (max(0, ceil((hi - lo) / step))) instead of taped by the outer loop."""
    f = pyad.jit_grad(fn, argnums="all")
    for n in (0, 1, 2, 7):
        assert f(1.5, n) == pytest.approx(fn(1.5, n), rel=1e-14)
        pyad.check_grad(f, 1.5, n)
    assert f.tape_bytes(1.5, 50) == f.tape_bytes(1.5, 5)  # nothing per outer trip


def three_taped_values(x):
    s = 0.3
    for i in range(x.shape[0]):
        s = math.sin(s * x[i]) + math.cos(s) * math.exp(-s * s)
    return s


def three_taped_values_until(x, stop):
    s, i = 0.3, 0
    while i < x.shape[0] and s < stop:   # its trip count is known only when it ends
        s = math.sin(s * x[i]) + math.cos(s) * math.exp(-s * s)
        i += 1
    return s


def test_the_pushes_of_a_trip_share_one_room_check():
    """A trip that tapes three values checks the tape's room once (for 24 bytes) and grows
    it once when full, not once per value; a counted loop checks once for all its trips,
    before it (a size known at run time). The gradient is unchanged (from an empty tape,
    which grows in the first trip, and over 5000 trips, which grow it again)."""
    x = np.linspace(0.1, 1.0, 50)
    for fn, args, sizes in [(three_taped_values_until, (x, 10.0), {"24"}),
                            (three_taped_values, (x,), {"%"})]:
        f = pyad.jit_grad(fn, cache=False)
        # three in each of the forward half, the fused kernel and its strong-zero twin
        assert len(re.findall(r"(?m)^\s+push ", f.grad_ir(*args))) == 3 * 3
        ir = f.llvm_ir(*args, gradient=True)
        grows = re.findall(r'call i32 @"?pyad_tape_grow"?\(ptr [^,]*, i64 (\d+|%)', ir)
        assert grows and set(grows) == sizes, grows
        pyad.check_grad(f, *args)
        long = (np.linspace(0.1, 1.0, 5000),) + args[1:]
        assert f.tape_bytes(*long) == 24 * 5000
        pyad.check_grad(f, *long)
