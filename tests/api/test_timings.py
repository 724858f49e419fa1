"""Where compile time goes (pyad/timings.py): `f.timings()` and `PYAD_TIMINGS=1` report the
phases of compiling each signature, and the phases add up to the time spent compiling."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import pyad
from pyad.timings import PHASES


def wave(x, n):
    s = 0.0
    for i in range(n):
        s += math.sin(x * (i + 1)) / (i + 1)
    return s


def weighted(w, x):
    return np.sum(np.tanh(w * x))


def _check_sums(t: dict) -> None:
    assert set(t) == {*PHASES, "total"}
    spent = sum(t[p] for p in PHASES)
    # each phase is charged once (nested phases to the inner one); outside them is only
    # the glue between them
    assert spent <= t["total"] * (1 + 1e-9)
    assert spent >= 0.8 * t["total"], t


def test_every_phase_of_a_signature_is_reported_and_they_sum_to_the_total():
    f = pyad.jit_grad(wave, cache=False)  # compiled here, not loaded from the on-disk cache
    assert f.timings() == {}
    f(0.5, 10)
    primal_only = f.timings()[("f64", "i64")]
    assert primal_only["AD"] == 0.0  # nothing differentiated yet
    f.grad(0.5, 10)
    f.pullback(0.5, 10)
    g = pyad.jit_grad(weighted, cache=False)
    g.grad(np.ones(3), np.arange(3.0))
    for t in (f.timings()[("f64", "i64")], g.timings()[("f64[1d]", "f64[1d]")]):
        for p in ("frontend", "IR optimization", "AD", "LLVM IR emission", "LLVM optimization",
                  "machine code", "linking", "wrapper build"):
            assert t[p] > 0, p
        assert t["cache"] == 0.0  # cache=False
        _check_sums(t)
    assert f.timings()[("f64", "i64")]["total"] > primal_only["total"]
    f(1, 10)  # another signature, another entry
    assert set(f.timings()) == {("f64", "i64"), ("i64", "i64")}


def test_pyad_timings_prints_each_compile_step_to_stderr(monkeypatch, capsys):
    monkeypatch.setenv("PYAD_TIMINGS", "1")
    f = pyad.jit_grad(wave, cache=False)
    f(0.5, 3)
    f.value_and_grad(0.5, 3)
    err = capsys.readouterr().err.splitlines()
    steps = [re.match(r"pyad: compiled wave\(f64, i64\) (.+) in ([\d.]+) ms: (.*)", ln)
             for ln in err]
    assert all(steps), err
    assert [m.group(1) for m in steps] == ["primal IR", "primal", "gradient IR", "gradient"]
    # the IR steps are nested in the units' steps, which are the total
    printed = sum(float(m.group(2)) for m in steps if not m.group(1).endswith("IR"))
    assert printed == pytest.approx(f.timings()[("f64", "i64")]["total"] * 1e3, rel=0.01)
    assert "frontend" in steps[0].group(3) and "LLVM optimization" in steps[1].group(3)
    monkeypatch.setenv("PYAD_TIMINGS", "0")
    pyad.jit_grad(wave)(0.5, 3)
    assert capsys.readouterr().err == ""


def test_a_cache_hit_spends_no_time_in_llvm(monkeypatch, tmp_path):
    monkeypatch.setenv("PYAD_CACHE_DIR", str(tmp_path))
    pyad.jit_grad(wave, cache=True)(0.5, 3)  # stores the entry
    f = pyad.jit_grad(wave, cache=True)
    f(0.5, 3)                                # loads it
    t = f.timings()[("f64", "i64")]
    assert t["cache"] > 0 and t["linking"] > 0
    assert t["LLVM optimization"] == 0.0 and t["machine code"] == 0.0
    # (no 80% check of the phases here: a hit takes milliseconds, and on a loaded machine
    # the time between the phases is then a large part of it)
    assert sum(v for k, v in t.items() if k != "total") <= t["total"] * 1.0001, t


def test_a_gradient_lowers_only_the_kernels_it_compiles(monkeypatch):
    """Issue 19, item 2: `grad` lowers the fused kernel for codegen (`pipeline.native`) and
    not the pullback's forward and backward halves nor the strong-zero twin; `pullback`
    lowers its two halves when first called, once."""
    from pyad import pipeline
    lowered = []
    real = pipeline.native
    monkeypatch.setattr(pipeline, "native", lambda func, *a, **k: lowered.append(func.name)
                        or real(func, *a, **k))
    f = pyad.jit_grad(weighted, cache=False)
    w, x = np.linspace(-1.0, 1.0, 7), np.linspace(0.5, 2.0, 7)
    f(w, x)
    lowered.clear()
    g = f.grad(w, x)
    assert lowered == ["weighted.vg"], lowered
    _, back = f.pullback(w, x)
    assert sorted(lowered[1:]) == ["weighted.bwd", "weighted.fwd"], lowered
    np.testing.assert_array_equal(back(1.0), g)
    f.pullback(w, x)
    assert len(lowered) == 3
