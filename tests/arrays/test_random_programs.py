"""Property tests over arrays (hypothesis, derandomized; PYAD_HYPOTHESIS_EXAMPLES=5000 explores
more): random whole-array programs with broadcasting in every layout, shape-generic corpus
functions at random sizes and layouts, and random loop-style programs with element writes,
in-place updates, views and buffer swaps, all through the differential harness."""
from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyad


from ..modules import load_module
from ..corpus_arrays import BY_NAME, SHAPE_GENERIC
from .harness import (
    HYPOTHESIS, LAYOUTS, ORACLE_RTOL, assert_close, assert_grad_structure, assert_identical,
    assert_unchanged, check_fd_scalar, check_function, hypothesis_examples, moved, oracle,
    perturbation, py, relayout, snapshot)


# =========================================================================== random programs
UNARY_A = ["np.sin({})", "np.cos({})", "np.tanh({})", "np.exp(np.tanh({}))",
           "np.log(1.0 + {0} * {0})", "np.sqrt(2.0 + np.sin({}))", "(-{})", "({} * 0.5)",
           "({} ** 2)", "np.abs({})"]
BINARY_A = ["({} + {})", "({} - {})", "({} * {})", "({} / (1.5 + np.cos({})))",
            "np.maximum({}, {})", "np.minimum({}, {})", "np.where({} > {}, x, y)",
            "({} * s + {})"]


@st.composite
def array_expressions(draw, depth=3):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(["x", "y", "s", "1.25", "x", "y"]))
    if draw(st.booleans()):
        return draw(st.sampled_from(UNARY_A)).format(draw(array_expressions(depth - 1)))
    return draw(st.sampled_from(BINARY_A)).format(draw(array_expressions(depth - 1)),
                                                  draw(array_expressions(depth - 1)))


@st.composite
def broadcast_pair(draw):
    """Two shapes that broadcast: suffixes of a common shape with some dimensions set to 1."""
    ndim = draw(st.integers(1, 3))
    full = [draw(st.integers(1, 4)) for _ in range(ndim)]

    def one():
        k = draw(st.integers(1, ndim))
        return tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in full[ndim - k:])
    return one(), one()


@st.composite
def array_programs(draw):
    sx, sy = draw(broadcast_pair())
    out_ndim = len(np.broadcast_shapes(sx, sy))
    e = draw(array_expressions())
    axis = draw(st.integers(0, out_ndim - 1))
    reductions = ["np.sum(z)", "np.mean(z)", "np.max(z)", "np.min(z)", "z.sum()"]
    if out_ndim >= 2:  # (axis reductions of 1-D arrays, giving numbers: see test_array_op)
        reductions += [f"np.sum(np.sum(z, axis={axis}) ** 2)", f"np.sum(np.max(z, axis={axis}))",
                       f"np.sum(np.mean(z, axis={axis}) * 3.0)", f"z.min(axis={axis}).sum()"]
    if out_ndim <= 2:
        reductions.append("np.linalg.norm(z)")
    # whole-array primitives, views with steps, keepdims, scans, gathers (issue 15)
    reductions += [f"np.sum(z * np.sum(z, axis={axis}, keepdims=True))",
                   f"np.sum(np.max(z, axis={axis}, keepdims=True) - z)",
                   "np.sum(z[::-1] * 2.0)", "np.var(z)", "np.sum(np.cumsum(z, axis=0) ** 2)",
                   "np.sum(z[np.array([0, 0, -1])] ** 2)"]
    if out_ndim == 1:
        reductions += ["z @ z", "np.sum(np.outer(z, z[::2]))"]
    if out_ndim == 2:
        reductions += ["np.sum(z.T @ z)", "np.sum((z @ z.T) * 0.5)", "np.sum(z[:, ::-2] ** 2)",
                       "np.sum(z[::2, None] * 1.5)", "np.sum(np.sum(z, axis=(0, 1)) * z)"]
    body = f"    z = {e} + x * y\n    return {draw(st.sampled_from(reductions))}\n"
    return body, sx, sy


WRITES = ["w[0] = 2.0 * w[-1]", "w += 0.25", "w *= 1.5", "w[...] = w[::-1] + 1.0", "pass"]


@st.composite
def deferred_programs(draw):
    """Elementwise values bound to names read once later (pyad/frontend/deferral.py), with
    a write into an array they read in between: the values are the ones bound."""
    body, sx, sy = draw(array_programs())
    reduction = body.split("return ")[1]
    a = re.sub(r"\bx\b", "w", draw(array_expressions()))
    b = re.sub(r"\bx\b", "w", draw(array_expressions()))
    body = (f"    w = x * 1.0\n    a = {a} + w * y\n    b = {b}\n"
            f"    {draw(st.sampled_from(WRITES))}\n    z = a + b * 0.5\n"
            f"    return np.sum(w) + {reduction}")
    return body, sx, sy


_counter = itertools.count()


def _load(body: str, tmp_path_factory):
    path = tmp_path_factory.mktemp("arrprog") / f"arrprog{next(_counter)}.py"
    return load_module(path, "import math\n\nimport numpy as np\n\n\ndef prog(x, y, s):\n"
                       + body).prog


def _away_from_kinks(fn, args, rng, eps=1e-6):
    """One-sided directional slopes agree (no max/min/where/abs decision flips nearby)."""
    f0 = float(fn(*args))
    for _ in range(2):
        v = perturbation(args, rng)
        left = (f0 - float(fn(*moved(args, v, -eps)))) / eps
        right = (float(fn(*moved(args, v, eps))) - f0) / eps
        if abs(left - right) > 1e-4 * (1 + abs(left)):
            return False
    return True


@pytest.mark.heavy
@settings(**HYPOTHESIS)
@given(prog=array_programs(), seed=st.integers(0, 2**32 - 1),
       layout=st.sampled_from(["C"] + LAYOUTS), s=st.floats(-2.0, 2.0))
def test_random_array_program(prog, seed, layout, s, tmp_path_factory):
    """Random whole-array programs over random broadcastable shapes (1 to 3 dims) and
    layouts: value vs CPython + NumPy, gradient vs the interpreter and finite differences."""
    _check_program(prog, seed, layout, s, tmp_path_factory)


@settings(**HYPOTHESIS)
@given(prog=deferred_programs(), seed=st.integers(0, 2**32 - 1),
       layout=st.sampled_from(["C"] + LAYOUTS), s=st.floats(-2.0, 2.0))
def test_random_deferred_program(prog, seed, layout, s, tmp_path_factory):
    """The same over several statements whose names are read once, across writes."""
    _check_program(prog, seed, layout, s, tmp_path_factory)


def _check_program(prog, seed, layout, s, tmp_path_factory):
    body, sx, sy = prog
    fn = _load(body, tmp_path_factory)
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-1.5, 1.5, sx), rng.uniform(-1.5, 1.5, sy)
    if layout != "C":
        x = relayout(x, layout)[0]
    args = (x, y, s)
    want = py(fn(*args))
    assert math.isfinite(want)
    f = pyad.jit_grad(fn, argnums="all")
    snap = snapshot(args)
    assert_close(f(*args), want, rtol=1e-11)
    value, grad = f.value_and_grad(*args)
    assert_close(value, want, rtol=1e-11)
    assert_grad_structure(grad, args)
    ovalue, ograd = oracle(f, args)
    assert_close(grad, tuple(py(g) for g in ograd), rtol=ORACLE_RTOL)
    _, back = f.pullback(*args)
    assert_identical(back(1.0), grad)
    if _away_from_kinks(fn, args, np.random.default_rng(seed + 1)):
        check_fd_scalar(lambda *a: f(*a), args, grad, body, rng, directions=2)
    assert_unchanged(snap)


@settings(**HYPOTHESIS)
@given(name=st.sampled_from(sorted(SHAPE_GENERIC)), n=st.integers(0, 6),
       seed=st.integers(0, 2**32 - 1), layouts=st.lists(st.sampled_from(["C"] + LAYOUTS),
                                                         min_size=4, max_size=4))
def test_random_shapes_of_corpus_functions(name, n, seed, layouts):
    """Shape-generic corpus functions at random sizes (including empty) and random layouts
    of each array argument."""
    fn = BY_NAME[name]
    rng = np.random.default_rng(seed)
    args = SHAPE_GENERIC[name](rng, n)
    args = tuple(relayout(a, layouts[k % 4])[0] if layouts[k % 4] != "C" else a
                 for k, a in enumerate(args))
    check_function(fn, args, name=f"{name} n={n} {layouts}", rng_seed=seed)


IDX_1D = ["i", "(i + {d}) % n", "i - {d}", "-1 - i", "{d0}"]


@st.composite
def inplace_programs(draw):
    """Random loop-style programs with element writes, augmented element writes, whole-array
    in-place updates, views and buffer swaps over local arrays a, b (1-D, length n) and c (2-D,
    R x M); values stay bounded (tanh, sin, cos, contractions)."""
    def idx():
        return draw(st.sampled_from(IDX_1D)).format(d=draw(st.integers(1, 2)),
                                                     d0=draw(st.integers(-3, 2)))

    def leaf():
        return draw(st.sampled_from([
            f"a[{idx()}]", f"b[{idx()}]", f"x[{idx()}]", "s", "1.5",
            f"c[i % R, (i + {draw(st.integers(0, 2))}) % M]", f"y[(i + {draw(st.integers(0, 2))}) % M]"]))

    def expr():
        e = leaf()
        for _ in range(draw(st.integers(0, 2))):
            e = draw(st.sampled_from(["({} * {})", "({} + {})", "({} - 0.5 * {})"])).format(e, leaf())
        return e

    inner = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 4))
        e = expr()
        if kind == 0:
            inner.append(f"a[{idx()}] = math.tanh({e})")
        elif kind == 1:
            inner.append(f"a[{idx()}] += 0.25 * math.sin({e})")
        elif kind == 2:
            j = idx()
            inner.append(f"b[{j}] = 0.5 * b[{j}] + 0.5 * math.cos({e})")
        elif kind == 3:
            inner.append(f"b[{idx()}] *= 0.9 + 0.05 * math.tanh({e})")
        else:
            inner.append(f"c[i % R, (i + {draw(st.integers(0, 2))}) % M] -= 0.125 * math.tanh({e})")
    outer = draw(st.lists(st.sampled_from([
        "a, b = b, a", "a = np.tanh(a + 0.5 * b)", "a *= 0.75", "b += np.sin(a) * 0.25",
        "v = a[1:]\n        v += 0.1 * b[:-1]", "r = c[k % R]\n        r += 0.2 * np.tanh(y)",
        "w = c[:, (k + 1) % M]\n        w *= 0.5", "c = np.tanh(c) * 1.1"]), max_size=3))
    lines = ["    n = len(x)", "    R = c0.shape[0]", "    M = c0.shape[1]", "    a = x.copy()",
             "    b = np.zeros(n)", "    c = c0.copy()",
             f"    for k in range({draw(st.integers(0, 3))}):", "        for i in range(n):"]
    lines += ["            " + t for t in inner]
    lines += ["        " + t for t in outer]
    lines.append("    return np.sum(a * a) + np.sum(b) * s + np.sum(np.sin(c))")
    return "\n".join(lines) + "\n"


def _load_inplace(body: str, tmp_path_factory):
    path = tmp_path_factory.mktemp("inplace") / f"inplace{next(_counter)}.py"
    return load_module(path, "import math\n\nimport numpy as np\n\n\n"
                       "def prog(x, y, c0, s):\n" + body).prog


@pytest.mark.heavy
@settings(**{**HYPOTHESIS, "max_examples": hypothesis_examples(12)})
@given(body=inplace_programs(), n=st.integers(3, 6), r=st.integers(1, 3), m=st.integers(1, 4),
       seed=st.integers(0, 2**32 - 1), s=st.floats(-1.5, 1.5))
def test_random_in_place_program(body, n, r, m, seed, s, tmp_path_factory):
    """Random loop-style programs over random sizes that overwrite elements of local arrays
    many times, update views in place and swap buffers: values vs CPython, gradients vs the
    interpreter and every partial derivative by central differences."""
    fn = _load_inplace(body, tmp_path_factory)
    rng = np.random.default_rng(seed)
    args = (rng.uniform(-1, 1, n), rng.uniform(-1, 1, m), rng.uniform(-1, 1, (r, m)), s)
    check_function(fn, args, f=pyad.jit_grad(fn, argnums="all"), name=body, rng_seed=seed)
