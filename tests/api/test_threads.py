"""Threads: the GIL is released while a native kernel with a loop runs (scalar and array
signatures), concurrent first calls compile once, and results are
right when many threads call at once. No timing is asserted: GIL release is shown by another
Python thread finishing a fixed amount of work while the native call is still running."""
from __future__ import annotations

import sys
import threading

import numpy as np
import pytest
from llvmlite import ir

import pyad
from pyad.codegen import jit
from pyad.codegen.python import wrap as pywrap

from .. import mp_helpers

N_THREADS = 8
WORK = 300_000  # Python loop iterations the other thread runs (a few ms; far below one call)


@pytest.fixture
def short_switch_interval():
    old = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)  # with a held GIL, the busy thread would lose it quickly
    yield
    sys.setswitchinterval(old)


def _runs_concurrently(call) -> tuple[bool, object]:
    """Start `call()` in a thread; when it is about to enter native code, run WORK Python
    iterations here and report whether the call was still running afterwards (it cannot be,
    if the call holds the GIL: this thread only runs once it returns)."""
    started, done = threading.Event(), threading.Event()
    out: list = []

    def worker():
        started.set()
        out.append(call())
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    started.wait()
    count = 0
    for _ in range(WORK):
        count += 1
    still_running = not done.is_set()
    t.join()
    assert count == WORK
    return still_running, out[0]


def _calibrated(f, *args, seconds: float = 0.4) -> int:
    """An iteration count for which one call of f takes about `seconds` (not asserted)."""
    import time
    n = 2_000_000
    f(*args, 10)  # compile first
    t0 = time.perf_counter()
    f(*args, n)
    dt = max(time.perf_counter() - t0, 1e-4)
    return max(n, int(n * seconds / dt))


def test_scalar_kernel_with_loop_releases_the_gil(short_switch_interval):
    f = mp_helpers.spin
    n = _calibrated(f, 1.0)
    still_running, result = _runs_concurrently(lambda: f(1.0, n))
    assert result == pytest.approx(2.0)
    assert still_running, "another thread could not run while the native call was running"


def test_gradient_kernel_with_loop_releases_the_gil(short_switch_interval):
    f = mp_helpers.spin
    n = _calibrated(f, 1.0)
    f.value_and_grad(1.0, 10)
    still_running, (value, grad) = _runs_concurrently(lambda: f.value_and_grad(1.0, n))
    assert value == pytest.approx(2.0) and grad == pytest.approx(2.0)
    assert still_running


def test_array_kernel_releases_the_gil(short_switch_interval):
    # the native array wrapper releases the GIL around a kernel with a loop, like scalars
    f = mp_helpers.array_spin
    x = np.ones(4)
    n = _calibrated(f, x)
    still_running, result = _runs_concurrently(lambda: f(x, n))
    assert result == pytest.approx(2.0)
    assert still_running


def test_gil_release_only_for_kernels_with_loops():
    def straight(a, b):
        return a / (a + b * b)

    f = pyad.jit_grad(straight)
    assert "PyEval_SaveThread" not in f.llvm_ir(1.0, 2.0)
    assert "PyEval_SaveThread" not in f.llvm_ir(1.0, 2.0, gradient=True)
    g = mp_helpers.spin
    assert "PyEval_SaveThread" in g.llvm_ir(1.0, 3) and "PyEval_RestoreThread" in g.llvm_ir(1.0, 3)
    assert "PyEval_SaveThread" in g.llvm_ir(1.0, 3, gradient=True)


def _kernel_module(loop: bool, calls_python: bool):
    m = ir.Module(name="t")
    dbl = ir.DoubleType()
    helper = ir.Function(m, ir.FunctionType(dbl, [dbl]), "helper")
    b = ir.IRBuilder(helper.append_basic_block("entry"))
    if calls_python:
        pyf = ir.Function(m, ir.FunctionType(dbl, [ir.PointerType()]), "PyFloat_AsDouble")
        b.ret(b.call(pyf, [ir.Constant(ir.PointerType(), None)]))
    else:
        b.ret(helper.args[0])
    k = ir.Function(m, ir.FunctionType(dbl, [dbl]), "kernel")
    entry, body, out = (k.append_basic_block(s) for s in ("entry", "body", "out"))
    b = ir.IRBuilder(entry)
    b.branch(body)
    b.position_at_end(body)
    v = b.call(helper, [k.args[0]])
    if loop:
        b.cbranch(b.fcmp_ordered("<", v, ir.Constant(dbl, 0.0)), body, out)
    else:
        b.branch(out)
    b.position_at_end(out)
    b.ret(v)
    return k


@pytest.mark.parametrize("loop", [False, True])
@pytest.mark.parametrize("calls_python", [False, True])
def test_loop_and_c_api_detection(loop, calls_python):
    k = _kernel_module(loop, calls_python)
    assert pywrap.has_loop(k) is loop
    assert pywrap.uses_python_api(k) is calls_python


# --------------------------------------------------------------------------- first calls
@pytest.fixture
def compile_counter(monkeypatch):
    names: list[str] = []
    lock = threading.Lock()
    orig = jit.compile_module

    def counting(module, *args, **kwargs):
        with lock:
            names.append(module.name)
        return orig(module, *args, **kwargs)

    monkeypatch.setattr(jit, "compile_module", counting)
    return names


def _together(fn, n=N_THREADS):
    """Run fn(k) in n threads released at once by a barrier; return results in order."""
    barrier = threading.Barrier(n)
    results: list = [None] * n
    errors: list = []

    def run(k):
        try:
            barrier.wait()
            results[k] = fn(k)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def _units(names: list[str]) -> list[str]:
    """The compiled units among `names` (not the wrappers shared by a signature's kernels,
    compiled once per process by whichever function needs them first: families.py)."""
    return [n for n in names if n != "wrappers"]


def test_concurrent_first_calls_compile_once(compile_counter):
    f = pyad.jit_grad(mp_helpers.energy.fn, cache=False)  # a fresh object: nothing compiled yet
    xs = [0.1 * (k + 1) for k in range(N_THREADS)]
    values = _together(lambda k: f(xs[k], 9))
    assert _units(compile_counter) == ["energy"]
    assert values == [pytest.approx(f.fn(x, 9), rel=1e-12) for x in xs]
    grads = _together(lambda k: f.grad(xs[k], 9))
    assert _units(compile_counter) == ["energy", "energy.vg"]
    assert grads == [f.grad(x, 9) for x in xs]
    backs = _together(lambda k: f.pullback(xs[k], 9)[1](1.0))
    assert _units(compile_counter) == ["energy", "energy.vg", "energy.pullback"]
    assert backs == grads
    # a family at most once, however many threads asked: primal, grad, forward, backward
    assert compile_counter.count("wrappers") <= 4


def test_concurrent_first_calls_of_several_signatures(compile_counter):
    f = pyad.jit_grad(mp_helpers.plain_square, cache=False)
    argsets = [(2.0, 3.0), (2, 3), (2.0, 3), (2, 3.0)] * 2
    values = _together(lambda k: f(*argsets[k]))
    assert values == [mp_helpers.plain_square(*a) for a in argsets]
    assert sorted(compile_counter) == ["plain_square"] * 4  # one per signature
    assert len(f._specs) == 4 and f._first in f._specs.values()


def test_parallel_calls_give_the_serial_results():
    f = mp_helpers.energy
    xs = [0.05 * k for k in range(N_THREADS)]
    want = [(f(x, 50), f.grad(x, 50)) for x in xs]
    got = _together(lambda k: [(f(xs[k], 50), f.grad(xs[k], 50)) for _ in range(200)])
    for k in range(N_THREADS):
        assert got[k] == [want[k]] * 200
    w = mp_helpers.weighted
    wx = [(np.full(5, 0.1 * k), np.arange(5.0)) for k in range(N_THREADS)]
    wwant = [w.grad(*a) for a in wx]
    wgot = _together(lambda k: [w.grad(*wx[k]) for _ in range(20)])
    for k in range(N_THREADS):
        for g in wgot[k]:
            np.testing.assert_array_equal(g[0], wwant[k][0])
            np.testing.assert_array_equal(g[1], wwant[k][1])
