"""The optimization pipeline (codegen/passes.py): a module without loops takes the short
pipeline, one with a loop the default one; the short pipeline leaves nothing the default one
removes (the kernel inlined into its wrappers, the wrapper's call context gone) and computes
the same bits.

The "default" side of each comparison compiles the same function with `module_has_loop`
forced to True, i.e. through LLVM's default O2 pipeline."""
from __future__ import annotations

import math

import pytest

import pyad
from pyad.codegen import passes


def smooth(x, y):
    return x * math.sin(y) + math.exp(-x * x) / (1.0 + y * y)


def branchy(x, y):
    if x > y:
        return math.log(x - y + 1.0) * y
    return x / (y * y + 1.0) - math.sqrt(abs(y))


def looped(x, n):
    s = 0.0
    for k in range(n):
        s += x * k
    return s


LOOP_FREE = [(smooth, [(0.3, -1.2), (2.0, 0.5)]), (branchy, [(2.5, 1.0), (-0.5, 3.0)])]


def _spy(monkeypatch) -> list[bool]:
    seen: list[bool] = []
    optimize = passes.optimize

    def spy(mod, tm, opt, *, loops):
        seen.append(loops)
        optimize(mod, tm, opt, loops=loops)

    monkeypatch.setattr(passes, "optimize", spy)
    return seen


def _default_pipeline(monkeypatch) -> None:
    monkeypatch.setattr(passes, "module_has_loop", lambda module: True)


def test_the_pipeline_follows_the_loops_of_the_module(monkeypatch):
    warm = pyad.jit_grad(looped, cache=False)  # the shared wrappers of its signatures (no
    warm(0.3, 4), warm.value_and_grad(0.3, 4), warm.pullback(0.3, 4)  # loop): compiled now
    seen = _spy(monkeypatch)
    f = pyad.jit_grad(smooth, cache=False)
    f(0.3, -1.2), f.value_and_grad(0.3, -1.2), f.pullback(0.3, -1.2)
    assert seen == [False, False, False]  # primal, gradient, pullback units
    seen.clear()
    g = pyad.jit_grad(looped, cache=False)
    g(0.3, 4), g.value_and_grad(0.3, 4), g.pullback(0.3, 4)
    assert seen == [True, True, True]


@pytest.mark.parametrize("fn, points", LOOP_FREE, ids=lambda v: getattr(v, "__name__", ""))
def test_short_pipeline_leaves_no_more_than_the_default(fn, points, monkeypatch):
    short = pyad.jit_grad(fn, cache=False)
    texts = {"short": (short.llvm_ir(*points[0]), short.llvm_ir(*points[0], gradient=True))}
    _default_pipeline(monkeypatch)
    full = pyad.jit_grad(fn, cache=False)
    texts["default"] = (full.llvm_ir(*points[0]), full.llvm_ir(*points[0], gradient=True))
    for k in range(2):
        s, d = texts["short"][k], texts["default"][k]
        assert "define internal" not in s  # the kernels are inlined into their callers
        for what in ("alloca", "call void @pyad_ctx_release"):
            assert s.count(what) <= d.count(what), what


@pytest.mark.parametrize("fn, points", LOOP_FREE, ids=lambda v: getattr(v, "__name__", ""))
def test_short_pipeline_computes_the_same_bits(fn, points, monkeypatch):
    short = pyad.jit_grad(fn, cache=False)
    got = [(short(*p), short.value_and_grad(*p), short.pullback(*p)[1](1.0)) for p in points]
    _default_pipeline(monkeypatch)
    full = pyad.jit_grad(fn, cache=False)
    want = [(full(*p), full.value_and_grad(*p), full.pullback(*p)[1](1.0)) for p in points]
    assert repr(got) == repr(want)
