"""The W1, W2, W4 and W5 workloads of bench/WORKLOADS.md written in loop style, at their tiny
size: values against CPython, gradients against the interpreter and finite differences, and
values recomputed from re-read loads are not taped."""
from __future__ import annotations

import numpy as np
import pytest

import pyad
import pyad.api.check

from .harness import (
    FD_EPS, FD_RTOL, ORACLE_RTOL, assert_close, assert_identical, assert_unchanged, moved,
    oracle, perturbation, py, snapshot, with_arg)


# =========================================================================== workloads
WORKLOAD_IDS = ["W1", "W2", "W4", "W5"]


def _workloads():
    try:
        from bench.workloads import WORKLOADS
    except ImportError as e:  # pragma: no cover - the module is part of the project
        pytest.fail(f"bench/workloads.py (WORKLOADS) is not importable: {e}")
    return WORKLOADS


@pytest.mark.parametrize("wid", WORKLOAD_IDS)
def test_workload_in_loop_style_at_tiny_size(wid):
    """W1, W2, W4, W5 of bench/WORKLOADS.md, loop style, tiny size: compile, value equals
    CPython's, gradient w.r.t. the workload's `wrt` arguments equals the interpreter's and
    central finite differences (random directions and single coordinates)."""
    w = _workloads()[wid]
    args = tuple(w.args("tiny"))
    wrt = tuple(w.wrt)
    f = pyad.jit_grad(w.loop, argnums=wrt)
    snap = snapshot(args)
    want = py(w.loop(*args))
    assert type(want) is float
    if getattr(w, "array", None) is not None:  # the two spellings agree (NumPy, CPython)
        from bench.xp import NumpyLike
        assert float(w.array(NumpyLike(np), *args)) == pytest.approx(want, rel=1e-10)
    assert_close(f(*args), want, rtol=1e-11, what=f"{wid} value")
    value, grad = f.value_and_grad(*args)
    assert_close(value, want, rtol=1e-11, what=f"{wid} value_and_grad value")
    assert isinstance(grad, tuple) and len(grad) == len(wrt)
    for p, gp in zip(wrt, grad):
        a = args[p]
        if isinstance(a, np.ndarray):
            assert type(gp) is np.ndarray and gp.dtype == np.float64 and gp.shape == a.shape
        else:
            assert type(gp) is float
        assert np.isfinite(gp).all(), f"{wid}: gradient of argument {p} is not finite"
    assert_identical(f.grad(*args), grad, f"{wid} grad vs value_and_grad")
    _, back = f.pullback(*args)
    assert_identical(back(1.0), grad, f"{wid} pullback vs grad")
    ovalue, ograd = oracle(f, args)
    assert_close(py(ovalue), want, rtol=ORACLE_RTOL, what=f"{wid} interpreter value")
    assert_close(grad, tuple(py(g) for g in ograd), rtol=ORACLE_RTOL,
                 what=f"{wid} gradient vs interpreter")
    # finite differences: full gradient for small inputs, otherwise 8 coordinates per
    # argument and 3 random directions
    full = [None] * len(args)
    for p, gp in zip(wrt, grad):
        full[p] = gp
    rng = np.random.default_rng(int(wid[1:]))
    prim = lambda *a: f(*a)  # noqa: E731
    diff_args = set(wrt)
    for p in wrt:
        a = args[p]
        if type(a) is float:
            h = FD_EPS * max(1.0, abs(a))
            fd = (prim(*with_arg(args, p, a + h)) - prim(*with_arg(args, p, a - h))) / (2 * h)
            assert abs(full[p] - fd) <= FD_RTOL * max(1.0, abs(fd), abs(full[p]))
            continue
        picks = range(a.size) if a.size <= 16 else rng.choice(a.size, 8, replace=False)
        for k in picks:
            x0 = np.array(a, dtype=float)
            h = FD_EPS * max(1.0, abs(x0.flat[k]))
            xp, xm = x0.copy(), x0.copy()
            xp.flat[k] += h
            xm.flat[k] -= h
            fd = (prim(*with_arg(args, p, xp)) - prim(*with_arg(args, p, xm))) / (2 * h)
            got = full[p].flat[k]
            assert abs(got - fd) <= FD_RTOL * max(1.0, abs(fd), abs(got)), \
                f"{wid}: d/d arg{p}[{k}]: pyad {got!r}, finite differences {fd!r}"
    for _ in range(3):
        v = {p: d for p, d in perturbation(args, rng).items() if p in diff_args}
        fd = (prim(*moved(args, v, FD_EPS)) - prim(*moved(args, v, -FD_EPS))) / (2 * FD_EPS)
        dd = sum(float(np.sum(np.asarray(full[p]) * v[p])) for p in v)
        mag = sum(float(np.sum(np.abs(np.asarray(full[p]) * v[p]))) for p in v)
        assert abs(dd - fd) <= FD_RTOL * max(1.0, abs(fd), mag), \
            f"{wid}: directional derivative pyad {dd!r}, finite differences {fd!r}"
    assert_unchanged(snap, f"{wid} argument")


def rosen_loop(x):
    s = 0.0
    for i in range(len(x) - 1):
        t = x[i + 1] - x[i] * x[i]
        u = 1.0 - x[i]
        s += 100.0 * t * t + u * u
    return s


def test_values_recomputed_from_reread_loads_are_not_taped():
    """100*t needs three float ops over loads whose index arithmetic is integer: all of it is
    recomputed in the reverse sweep (integer ops never use up the recomputation depth)."""
    f = pyad.jit_grad(rosen_loop)
    x = np.linspace(-1.2, 1.1, 50)
    pyad.check_grad(f, x)
    v, g = f.value_and_grad(x)
    _, ig = pyad.api.check.interp_value_and_grad(f, x)
    np.testing.assert_allclose(g[0], ig[0], rtol=1e-12)
    assert f.tape_bytes(x) == 0
