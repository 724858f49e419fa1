"""NumPy arrays (issue 4; the contract is docs/arrays.md).

Differential tests over tests/corpus_arrays.py and a table of single array ops: every
function is compiled with `pyad.jit_grad` and checked against

  * CPython + NumPy running the plain function (values: exact for ints and bools, rtol 1e-12
    for floats; same dtype and shape for arrays; returned arrays are new and C-contiguous),
  * for a single float result: the reference interpreter on the gradient IR
    (`pyad.check.interp_value_and_grad`, rtol 1e-11), central finite differences (every
    element of small arrays, random directions otherwise), `value_and_grad` and `pullback`
    (bit-identical to `grad`),
  * for array or tuple results: the pullback, with a dot-product test <J v, w> == <v, J^T w>
    (J v by central differences), linearity and repeatability of `back`,
  * in every call: the caller's arrays are never modified.

Then targeted tests for each point of the issue: memory layouts (strided, negative strides,
transposed, Fortran order, offset, read-only, empty), dtype conversion and rejection,
indexing with negative indices, shape queries, element assignment, creation functions,
views (reads and writes through them), returned arrays, buffer swaps, broadcasting,
in-place updates differentiated exactly (closed forms), located errors (writes into
arguments at compile time; IndexError / ValueError naming the line at run time, in the
primal, `grad` and `pullback`), `boundscheck=False`, property tests over random shapes and
layouts (derandomized; PYAD_HYPOTHESIS_EXAMPLES=5000 explores more), and the W1, W2, W4 and
W5 workloads of bench/WORKLOADS.md in loop style at their tiny size.
"""
from __future__ import annotations

import gc
import importlib.util
import inspect
import itertools
import math
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyad
import pyad.check

from . import corpus_arrays as C
from .corpus_arrays import BY_NAME, CASES, NO_FINITE_DIFFERENCES, SHAPE_GENERIC

RTOL = 1e-12         # compiled value vs CPython + NumPy
ORACLE_RTOL = 1e-11  # compiled gradient vs the interpreter on the gradient IR
FD_RTOL = 1e-6       # gradient vs central finite differences
FD_EPS = 1e-6        # relative finite-difference step
FULL_FD_LIMIT = 48   # up to this many differentiable scalars: every partial derivative

def _examples(default: int) -> int:
    return int(os.environ.get("PYAD_HYPOTHESIS_EXAMPLES", default))


HYPOTHESIS = dict(max_examples=_examples(20),
                  deadline=None, derandomize=not os.environ.get("PYAD_HYPOTHESIS_EXAMPLES"),
                  suppress_health_check=[HealthCheck.function_scoped_fixture,
                                         HealthCheck.too_slow, HealthCheck.data_too_large])

_COMPILED: dict = {}


def compiled(fn, **options):
    """One pyad.jit_grad object per (function, options): specializations are cached."""
    key = (fn, tuple(sorted(options.items())))
    jf = _COMPILED.get(key)
    if jf is None:
        jf = _COMPILED[key] = pyad.jit_grad(fn, **options)
    return jf


def _line_of(fn, needle: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if needle in s)


# =========================================================================== comparisons
def py(v):
    """CPython + NumPy result in pyad's result types: numpy scalars become Python scalars."""
    if isinstance(v, tuple):
        return tuple(py(x) for x in v)
    if isinstance(v, np.ndarray):
        return v
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    return v


def is_float_array(a) -> bool:
    return isinstance(a, np.ndarray) and a.dtype == np.float64


def is_diff(a) -> bool:
    """Does the default argnums differentiate this argument?"""
    return type(a) is float or is_float_array(a)


def assert_close(got, want, rtol=RTOL, what="value", fresh=False):
    """Structural comparison. Arrays: same type, dtype and shape; ints and bools exactly;
    floats elementwise to `rtol` relative to the larger of the two and to the array's largest
    magnitude (sums computed in a different order differ in the last bits). `fresh`: returned
    arrays must be C-contiguous ndarrays (pyad returns new arrays)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), \
            f"{what}: got {got!r}, want a tuple of {len(want)}"
        for k, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, rtol, f"{what}[{k}]", fresh)
        return
    if want is None:
        assert got is None, f"{what}: got {got!r}, want None"
        return
    if isinstance(want, np.ndarray):
        assert type(got) is np.ndarray, f"{what}: got {type(got).__name__}, want an ndarray"
        assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, want {want.dtype}"
        assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
        if fresh:
            assert got.flags.c_contiguous, f"{what}: the returned array is not C-contiguous"
        if want.dtype.kind in "biu":
            assert np.array_equal(got, want), f"{what}: got {got!r}, want {want!r}"
            return
        g, w = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
        if g.size == 0:
            return
        scale = max(np.max(np.abs(w), initial=0.0), np.max(np.abs(g), initial=0.0))
        same_nan = np.isnan(g) == np.isnan(w)
        assert same_nan.all(), f"{what}: nan mismatch, got {got!r}, want {want!r}"
        ok = np.isnan(w) | (g == w) | \
            (np.abs(g - w) <= rtol * np.maximum(np.abs(g), np.abs(w)) + rtol * scale * 1e-2)
        assert ok.all(), (f"{what}: max abs difference {np.nanmax(np.abs(g - w))} "
                          f"(rtol {rtol})\n got {got!r}\nwant {want!r}")
        return
    if type(want) is bool or type(want) is int:
        assert type(got) is type(want) and got == want, f"{what}: got {got!r}, want {want!r}"
        return
    assert type(want) is float, f"{what}: unexpected expected value {want!r}"
    assert type(got) is float, f"{what}: got {type(got).__name__} {got!r}, want a float"
    if math.isnan(want) or math.isnan(got):
        assert math.isnan(want) and math.isnan(got), f"{what}: got {got!r}, want {want!r}"
        return
    assert got == want or abs(got - want) <= rtol * max(abs(got), abs(want)) + 1e-300, \
        f"{what}: got {got!r}, want {want!r} (rtol {rtol})"


def assert_identical(got, want, what="gradient"):
    """Bit-identical structures (grad vs value_and_grad vs pullback)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{what}: {got!r} vs {want!r}"
        for k, (g, w) in enumerate(zip(got, want)):
            assert_identical(g, w, f"{what}[{k}]")
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype and \
            got.shape == want.shape and np.array_equal(got, want, equal_nan=True), \
            f"{what}: {got!r} is not identical to {want!r}"
    else:
        assert type(got) is type(want) and (got == want or (got != got and want != want)), \
            f"{what}: {got!r} is not identical to {want!r}"


def scaled(g, c):
    if isinstance(g, tuple):
        return tuple(scaled(x, c) for x in g)
    return None if g is None else g * c


def assert_grad_structure(g, args, what="gradient"):
    """One entry per parameter: float64 arrays of the argument's shape for float arrays,
    floats for float scalars, None for everything else."""
    assert isinstance(g, tuple) and len(g) == len(args), f"{what}: {g!r}"
    for k, (gk, a) in enumerate(zip(g, args)):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            assert type(gk) is np.ndarray and gk.dtype == np.float64 and gk.shape == a.shape, \
                f"{what}[{k}]: want a float64 array of shape {a.shape}, got {gk!r}"
            assert np.isfinite(gk).all(), f"{what}[{k}]: not finite: {gk!r}"
            for b in args:
                if isinstance(b, np.ndarray):
                    assert not np.shares_memory(gk, b), f"{what}[{k}] aliases an argument"
        elif type(a) is float:
            assert type(gk) is float and math.isfinite(gk), f"{what}[{k}]: {gk!r}"
        else:
            assert gk is None, f"{what}[{k}]: argument {a!r} has no gradient, got {gk!r}"


# =========================================================================== arguments
def snapshot(args):
    return [(a, a.copy(), a.strides, a.flags.writeable) if isinstance(a, np.ndarray) else None
            for a in args]


def assert_unchanged(snap, what="argument"):
    for k, s in enumerate(snap):
        if s is None:
            continue
        a, saved, strides, writeable = s
        assert a.strides == strides and a.flags.writeable == writeable, f"{what} {k} changed"
        assert np.array_equal(a, saved, equal_nan=True), \
            f"{what} {k} was modified by pyad: {a!r}, was {saved!r}"


def with_arg(args, p, value):
    return args[:p] + (value,) + args[p + 1:]


def flat_floats(y) -> np.ndarray:
    """The float components of a result, flattened (ints and bools are not differentiable)."""
    if isinstance(y, tuple):
        parts = [flat_floats(v) for v in y]
        return np.concatenate(parts) if parts else np.zeros(0)
    if isinstance(y, np.ndarray):
        return y.astype(float).ravel() if y.dtype.kind == "f" else np.zeros(0)
    if isinstance(y, (float, np.floating)) and not isinstance(y, (bool, np.bool_)):
        return np.array([float(y)])
    return np.zeros(0)


def flat_ct(w, y) -> np.ndarray:
    """The entries of a cotangent `w` that belong to float components of the result `y`."""
    if isinstance(y, tuple):
        parts = [flat_ct(a, b) for a, b in zip(w, y)]
        return np.concatenate(parts) if parts else np.zeros(0)
    if isinstance(y, np.ndarray):
        return np.asarray(w, dtype=float).ravel() if y.dtype.kind == "f" else np.zeros(0)
    return np.array([float(w)]) if type(y) is float else np.zeros(0)


def random_like(y, rng):
    """A random cotangent with the structure of `y` (zeros for int and bool parts)."""
    if isinstance(y, tuple):
        return tuple(random_like(v, rng) for v in y)
    if isinstance(y, np.ndarray):
        if y.dtype.kind == "f":
            return rng.normal(size=y.shape)
        return np.zeros(y.shape)
    if type(y) is float:
        return float(rng.normal())
    return 0


def perturbation(args, rng):
    """A random direction over the differentiable arguments, scaled like the arguments."""
    v = {}
    for p, a in enumerate(args):
        if type(a) is float:
            v[p] = float(rng.uniform(-1, 1)) * max(1.0, abs(a))
        elif is_float_array(a):
            v[p] = rng.uniform(-1, 1, size=a.shape) * np.maximum(1.0, np.abs(a))
    return v


def moved(args, v, h):
    return tuple(a + h * v[p] if p in v else a for p, a in enumerate(args))


def fd_partials(fun, args):
    """{position: central-difference partials} for every differentiable scalar argument and
    every element of every float64 array argument. fun returns a float."""
    out = {}
    for p, a in enumerate(args):
        if type(a) is float:
            h = FD_EPS * max(1.0, abs(a))
            out[p] = (fun(*with_arg(args, p, a + h)) - fun(*with_arg(args, p, a - h))) / (2 * h)
        elif is_float_array(a):
            g = np.zeros(a.shape)
            for k in range(a.size):
                x0 = np.array(a, dtype=float)
                h = FD_EPS * max(1.0, abs(x0.flat[k]))
                xp, xm = x0.copy(), x0.copy()
                xp.flat[k] += h
                xm.flat[k] -= h
                g.flat[k] = (fun(*with_arg(args, p, xp)) - fun(*with_arg(args, p, xm))) / (2 * h)
            out[p] = g
    return out


def n_diff_scalars(args) -> int:
    return sum(1 if type(a) is float else a.size for a in args if is_diff(a))


def check_fd_scalar(fun, args, grad, name, rng, directions=3):
    """Compare a gradient tuple of a float-valued `fun` with central differences: every
    partial for small inputs, plus random directional derivatives."""
    if n_diff_scalars(args) <= FULL_FD_LIMIT:
        for p, want in fd_partials(fun, args).items():
            got = grad[p]
            err = np.abs(np.asarray(got) - want)
            tol = FD_RTOL * np.maximum(1.0, np.maximum(np.abs(got), np.abs(want)))
            assert (err <= tol).all(), \
                f"{name}: gradient of argument {p}: pyad {got!r}, finite differences {want!r}"
    for _ in range(directions):
        v = perturbation(args, rng)
        if not v:
            return
        fd = (fun(*moved(args, v, FD_EPS)) - fun(*moved(args, v, -FD_EPS))) / (2 * FD_EPS)
        terms = [np.sum(np.asarray(grad[p]) * v[p]) for p in v]
        mag = sum(float(np.sum(np.abs(np.asarray(grad[p]) * v[p]))) for p in v)
        dd = float(sum(terms))
        assert abs(dd - fd) <= FD_RTOL * max(1.0, abs(fd), mag), \
            f"{name}: directional derivative pyad {dd!r}, finite differences {fd!r}"


def dot_product_test(fun, args, y, back, rng, name, trials=3):
    """<J v, w> == <v, J^T w>, J v by central differences of `fun` (the compiled primal)."""
    for _ in range(trials):
        v = perturbation(args, rng)
        w = random_like(y, rng)
        g = back(w)
        rhs_terms = [np.asarray(g[p]) * v[p] for p in v]
        rhs = float(sum(np.sum(t) for t in rhs_terms))
        jv = (flat_floats(fun(*moved(args, v, FD_EPS)))
              - flat_floats(fun(*moved(args, v, -FD_EPS)))) / (2 * FD_EPS)
        wf = flat_ct(w, y)
        assert jv.shape == wf.shape
        lhs = float(np.dot(jv, wf))
        mag = max(1.0, float(np.sum(np.abs(jv * wf))), sum(float(np.sum(np.abs(t)))
                                                           for t in rhs_terms))
        assert abs(lhs - rhs) <= FD_RTOL * mag, \
            f"{name}: dot-product test: <J v, w> = {lhs!r}, <v, J^T w> = {rhs!r}"


def oracle(f, args):
    """(value, gradient) from pyad's interpreter on the gradient IR (the independent oracle)."""
    return pyad.check.interp_value_and_grad(f, *args)


def has_float_result(v) -> bool:
    return flat_floats(v).size > 0


# =========================================================================== the harness
def check_function(fn, args, *, name=None, fd=True, f=None, rng_seed=0):
    """Compile `fn` (once) and check value, gradients / pullback and argument integrity at
    `args` against CPython + NumPy. Returns (value, gradient or None)."""
    name = name or fn.__name__
    f = f or compiled(fn)
    rng = np.random.default_rng(rng_seed)
    snap = snapshot(args)
    want = py(fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]))
    got = f(*args)
    assert_close(got, want, what=f"{name} value", fresh=True)
    for a in args:
        for r in (got if isinstance(got, tuple) else (got,)):
            if isinstance(r, np.ndarray) and isinstance(a, np.ndarray):
                assert not np.shares_memory(r, a), f"{name}: a returned array aliases an argument"
    assert_close(f(*args), want, what=f"{name} value (second call)")
    assert_unchanged(snap)
    if not any(is_diff(a) for a in args) or not has_float_result(want):
        return got, None
    if type(want) is float:
        value, grad = f.value_and_grad(*args)
        assert_close(value, want, what=f"{name} value_and_grad value")
        assert_grad_structure(grad, args, f"{name} value_and_grad gradient")
        g = f.grad(*args)
        assert_identical(g, grad, f"{name}: grad vs value_and_grad")
        ovalue, ograd = oracle(f, args)
        assert_close(py(ovalue), want, rtol=ORACLE_RTOL, what=f"{name} interpreter value")
        assert_close(g, tuple(py(x) for x in ograd), rtol=ORACLE_RTOL,
                     what=f"{name} gradient vs interpreter")
        y, back = f.pullback(*args)
        assert_close(y, want, what=f"{name} pullback value")
        first = back(1.0)
        assert_identical(first, g, f"{name}: pullback vs grad")
        assert_identical(back(1.0), first, f"{name}: second back(1.0)")
        assert_close(back(2.0), scaled(first, 2.0), rtol=1e-15, what=f"{name} back(2.0)")
        if fd and name not in NO_FINITE_DIFFERENCES:
            check_fd_scalar(lambda *a: f(*a), args, g, name, rng)
        assert_unchanged(snap)
        return got, g
    # array or tuple results: the pullback
    y, back = f.pullback(*args)
    assert_close(y, want, what=f"{name} pullback value", fresh=True)
    w = random_like(want, rng)
    first = back(w)
    assert_grad_structure(first, args, f"{name} back(w)")
    assert_identical(back(w), first, f"{name}: second back(w)")
    assert_close(back(scaled_ct(w, 2.0)), scaled(first, 2.0), rtol=1e-15,
                 what=f"{name} back(2 w)")
    if fd and name not in NO_FINITE_DIFFERENCES:
        dot_product_test(lambda *a: f(*a), args, want, back, rng, name)
    assert_unchanged(snap)
    with pytest.raises((TypeError, ValueError)):
        f.grad(*args)  # grad needs a single float result
    return got, first


def scaled_ct(w, c):
    if isinstance(w, tuple):
        return tuple(scaled_ct(x, c) for x in w)
    if isinstance(w, np.ndarray):
        return w * c
    return w * c if type(w) is float else w


def _id(case) -> str:
    return case[0].__name__


SAMPLES = [(fn, args) for fn, samples in CASES for args in samples]


# =========================================================================== the corpus
def test_corpus_is_well_formed():
    names = [fn.__name__ for fn, _ in CASES]
    assert len(names) == len(set(names)) >= 40
    assert NO_FINITE_DIFFERENCES <= set(names) and set(SHAPE_GENERIC) <= set(names)
    for fn, samples in CASES:
        assert fn.__doc__ and fn.__doc__.strip(), fn.__name__
        assert samples, fn.__name__
        nparams = len(inspect.signature(fn).parameters)
        for args in samples:
            assert len(args) == nparams, (fn.__name__, args)
            assert any(isinstance(a, np.ndarray) for a in args), fn.__name__
            for a in args:
                assert type(a) in (float, int, bool, np.ndarray), (fn.__name__, a)
                if isinstance(a, np.ndarray):
                    assert a.dtype in (np.float64, np.int64, np.bool_) and 1 <= a.ndim <= 3
    # both styles, all dtypes and dimensions, and array results are represented
    arrays = [a for _, args in SAMPLES for a in args if isinstance(a, np.ndarray)]
    assert {a.dtype for a in arrays} == {np.dtype(np.float64), np.dtype(np.int64),
                                          np.dtype(np.bool_)}
    assert {a.ndim for a in arrays} == {1, 2, 3}
    results = [py(fn(*args)) for fn, args in SAMPLES]
    assert sum(isinstance(r, np.ndarray) for r in results) >= 15
    assert sum(isinstance(r, tuple) for r in results) >= 5
    assert sum(any(np.any(a < 0) for a in args if is_float_array(a)) for _, args in SAMPLES) >= 40


def test_corpus_does_not_write_into_arguments_in_cpython():
    for fn, args in SAMPLES:
        snap = snapshot(args)
        fn(*args)
        assert_unchanged(snap, f"{fn.__name__} argument")


def test_corpus_samples_are_away_from_kinks():
    """Finite differences are meaningful at every sample (CPython only, no pyad): central
    differences along random directions with steps 1e-5, 1e-6 and 1e-7 agree. A branch,
    max/min/abs/where or sort decision flipping within a step would make them disagree."""
    rng = np.random.default_rng(12345)
    for fn, args in SAMPLES:
        if fn.__name__ in NO_FINITE_DIFFERENCES or not any(is_diff(a) for a in args):
            continue
        y0 = flat_floats(py(fn(*args)))
        assert np.isfinite(y0).all(), fn.__name__
        for _ in range(3):
            v = perturbation(args, rng)
            d = [(flat_floats(py(fn(*moved(args, v, e)))) - flat_floats(py(fn(*moved(args, v, -e)))))
                 / (2 * e) for e in (1e-5, 1e-6, 1e-7)]
            scale = np.maximum(1.0, np.maximum.reduce([np.abs(x) for x in d]))
            assert (np.abs(d[0] - d[1]) <= 1e-4 * scale).all() and \
                (np.abs(d[2] - d[1]) <= 1e-4 * scale).all(), \
                f"{fn.__name__}: near a kink ({d[0]}, {d[1]}, {d[2]})"


def test_corpus_functions_compute_what_their_names_say():
    """Sanity of the corpus itself (CPython + NumPy only)."""
    g = np.random.default_rng(7)
    x, y = g.normal(size=6), g.normal(size=6)
    assert C.dot_loop(x, y) == pytest.approx(np.dot(x, y), rel=1e-14)
    assert C.kahan_sum(x) == pytest.approx(np.sum(x), rel=1e-14)
    assert np.allclose(C.cumsum_array(x), np.cumsum(x), rtol=1e-14)
    lower, diag, upper, rhs = C.CASES[[f for f, _ in C.CASES].index(C.thomas_solve)][1][0]
    n = len(diag)
    T = np.diag(diag) + np.diag(lower[1:], -1) + np.diag(upper[:-1], 1)
    assert np.allclose(C.thomas_solve(lower, diag, upper, rhs), np.linalg.solve(T, rhs),
                       rtol=1e-12, atol=1e-14)
    assert C.thomas_inplace_energy(lower, diag, upper, rhs) == \
        pytest.approx(np.sum(np.linalg.solve(T, rhs) ** 2), rel=1e-12)
    A = C._spd(3, 4)
    assert np.allclose(C.cholesky_factor(A), np.linalg.cholesky(A), rtol=1e-12)
    assert C.cholesky_logdet(A) == pytest.approx(np.linalg.slogdet(A)[1], rel=1e-12)
    D = C._diag_dominant(4, 4)
    assert C.lu_det(D) == pytest.approx(np.linalg.det(D), rel=1e-12)
    L = np.tril(g.normal(size=(4, 4))) + 3 * np.eye(4)
    assert np.allclose(C.forward_substitution(L, x[:4]), np.linalg.solve(L, x[:4]), rtol=1e-12)
    M = g.normal(size=(5, 3))
    Q = C.gram_schmidt(M)
    assert np.allclose(Q.T @ Q, np.eye(3), atol=1e-12)
    assert np.allclose(np.triu(Q.T @ M), Q.T @ M, atol=1e-12)
    S = C._spd(5, 3)
    assert C.power_iteration(S, np.ones(3), 200) == pytest.approx(np.linalg.eigvalsh(S)[-1],
                                                                  rel=1e-10)
    assert np.allclose(C.jacobi_solve(D, x[:4], 80), np.linalg.solve(D, x[:4]), rtol=1e-10)
    assert np.allclose(C.matmul_loop(M[:2], M.T), M[:2] @ M.T, rtol=1e-14)
    assert np.allclose(C.softmax(x), C.softmax_loop(x), rtol=1e-14)
    assert C.logsumexp(x) == pytest.approx(np.log(np.sum(np.exp(x))), rel=1e-14)
    assert C.horner(x, 0.3) == pytest.approx(np.polyval(x, 0.3), rel=1e-13)
    p, dp = C.horner_with_derivative(x, 0.3)
    assert dp == pytest.approx(np.polyval(np.polyder(x), 0.3), rel=1e-13)
    cheb = np.polynomial.chebyshev.chebval(0.37, x)
    assert C.clenshaw_chebyshev(x, 0.37) == pytest.approx(cheb, rel=1e-13)
    assert np.array_equal(C.insertion_sort(x), np.sort(x))
    assert np.allclose(C.conv1d_valid(x, y[:3]), np.correlate(x, y[:3], "valid"), rtol=1e-14)
    assert np.allclose(C.moving_average(x, 3), np.convolve(x, np.ones(3) / 3, "valid"))
    P = g.normal(size=(4, 3))
    from itertools import combinations
    assert C.pairwise_distance_sum(P) == pytest.approx(
        sum(np.linalg.norm(P[i] - P[j]) for i, j in combinations(range(4), 2)), rel=1e-13)
    assert np.allclose(C.pairwise_sq_dists(P),
                       np.sum((P[:, None, :] - P[None, :, :]) ** 2, axis=2), atol=1e-12)
    assert C.shape_queries(np.zeros((3, 4)), np.zeros((2, 3, 5))) == (3, 4, 12, 2, 3, 30, 5, 12)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_corpus(case):
    """Values, gradients (interpreter + finite differences) or pullbacks (dot-product test),
    and the caller's arrays untouched, for every sample of every corpus function."""
    fn, samples = case
    for k, args in enumerate(samples):
        check_function(fn, args, name=fn.__name__, rng_seed=k)


# =========================================================================== single ops
# Every array op of docs/arrays.md, alone, with its gradient checked (pullback dot-product
# test for array results, interpreter + finite differences for float results).
def op_add(x, y):
    return x + y


def op_add_scalar(x, s):
    return x + s, s + x, x + 2


def op_sub_arrays(x, y):
    return x - y, 1.5 - x, x - 0.5


def op_mul(x, y):
    return x * y, 2.0 * x, y * 3


def op_div(x, y):
    return x / y, 1.0 / y, x / 3.0


def op_pow(x, y):
    return x ** y, x ** 3, 2.0 ** y, x ** 0.5, x ** 2


def op_floordiv(x, y):
    return (x // y) * x, x // 0.75


def op_neg(x):
    return -x


def op_exp(x):
    return np.exp(x)


def op_log(x):
    return np.log(x)


def op_sqrt(x):
    return np.sqrt(x)


def op_sin(x):
    return np.sin(x)


def op_cos(x):
    return np.cos(x)


def op_tanh(x):
    return np.tanh(x)


def op_abs(x):
    return np.abs(x)


def op_maximum(x, y):
    return np.maximum(x, y), np.maximum(x, 0.3), np.maximum(-0.1, y)


def op_minimum(x, y):
    return np.minimum(x, y), np.minimum(x, 0.3), np.minimum(-0.1, y)


def op_where(x, y):
    return np.where(x > y, x * y, y - x), np.where(x < 0.2, 1.0, x), np.where(y >= 0.0, y, 0.5)


def op_compare(x, y):
    return x < y, x <= y, x > y, x >= y, x == y, x != y, x < 0.0


def op_sum(a):
    return np.sum(a)


def op_mean(a):
    return np.mean(a)


def op_max(a):
    return np.max(a)


def op_min(a):
    return np.min(a)


def op_sum_axis0(a):
    return np.sum(a, axis=0)


def op_sum_axis1(a):
    return np.sum(a, axis=1)


def op_sum_axis2(a):
    return np.sum(a, axis=2)


def op_mean_axis0(a):
    return np.mean(a, axis=0)


def op_mean_axis1(a):
    return np.mean(a, axis=1)


def op_max_axis0(a):
    return np.max(a, axis=0)


def op_max_axis1(a):
    return np.max(a, axis=1)


def op_min_axis0(a):
    return np.min(a, axis=0)


def op_min_axis1(a):
    return np.min(a, axis=1)


def op_methods(a):
    return a.sum(), a.mean(axis=0), a.max(axis=1), a.min(), a.sum(axis=1), a.max(), \
        a.min(axis=0), a.mean()


def op_dot_vv(x, y):
    return np.dot(x, y)


def op_matmul_vv(x, y):
    return x @ y


def op_dot_mv(a, x):
    return np.dot(a, x)


def op_matmul_mv(a, x):
    return a @ x


def op_dot_vm(x, a):
    return np.dot(x, a)


def op_matmul_vm(x, a):
    return x @ a


def op_dot_mm(a, b):
    return np.dot(a, b)


def op_matmul_mm(a, b):
    return a @ b


def op_transpose(a):
    return a.T


def op_transpose_arith(a, b):
    return (a.T * b).T + a.T.T


def op_outer(u, v):
    return np.outer(u, v)


def op_norm_vec(x):
    return np.linalg.norm(x)


def op_norm_mat(a):
    return np.linalg.norm(a)


def op_bc_scalar(a, s):
    return a * s + s, s / (2.0 + a * a), a - s


def op_bc_row(a, r):
    return a + r, a * r, r - a, a / (2.0 + r * r)


def op_bc_col(a, c):
    return a - c, c * a


def op_bc_col_row(c, r):
    return c + r, c * r, r - c


def op_bc_col_row2(c, r2):
    return c * r2 + r2, c - r2


def op_bc_3d(t, m, v, c):
    return t + m, t * v, t - c, m * t + v


def op_copy(x):
    return x.copy() * 2.0, np.copy(x) + 1.0


def op_unary_chain(x, y):
    return np.sum(-(np.exp(-x) * np.tanh(y)) + np.sqrt(x * x + 1.0) - np.abs(y) * np.cos(x))


def _g(seed):
    return np.random.default_rng(seed)


def _pos(seed, *shape):
    return _g(seed).uniform(0.3, 2.0, size=shape)


def _apart(seed, n):
    """x, y with |x - y| >= 0.1 everywhere, x away from 0.3 and 0.2, y away from -0.1, 0."""
    g = _g(seed)
    x = C._away(g.uniform(-1.5, 1.5, n), (0.3, 0.2, 0.0))
    y = C._away(g.uniform(-1.5, 1.5, n), (-0.1, 0.0))
    y = np.where(np.abs(x - y) < 0.1, y + 0.35, y)
    return x, y


_x6, _y6 = _apart(300, 6)
_M = _g(301).normal(size=(3, 4))
_T = _g(302).normal(size=(2, 3, 4))

OPS = [
    (op_add, (_g(1).normal(size=5), _g(2).normal(size=5))),
    (op_add, (_g(3).normal(size=(2, 3)), _g(4).normal(size=(2, 3)))),
    (op_add, (_g(5).normal(size=(2, 2, 3)), _g(6).normal(size=(2, 2, 3)))),
    (op_add_scalar, (_g(7).normal(size=4), -0.8)),
    (op_sub_arrays, (_g(8).normal(size=(3, 2)), _g(9).normal(size=(3, 2)))),
    (op_mul, (_g(10).normal(size=5), _g(11).normal(size=5))),
    (op_div, (_g(12).normal(size=4), _pos(13, 4) * np.array([1, -1, 1, -1]))),
    (op_pow, (_pos(14, 4), _g(15).normal(size=4))),
    (op_floordiv, C._floordiv_args(16, 5)),
    (op_neg, (_g(17).normal(size=(2, 3)),)),
    (op_exp, (_g(18).normal(size=5),)),
    (op_log, (_pos(19, 2, 3),)),
    (op_sqrt, (_pos(20, 5),)),
    (op_sin, (_g(21).normal(size=(2, 2, 2)),)),
    (op_cos, (_g(22).normal(size=5),)),
    (op_tanh, (_g(23).normal(size=(3, 2)),)),
    (op_abs, (C._away(_g(24).normal(size=6), (0.0,)),)),
    (op_maximum, (_x6, _y6)),
    (op_minimum, (_x6, _y6)),
    (op_where, (_x6, _y6)),
    (op_compare, (np.array([1.0, 2.0, -3.0, 2.0]), np.array([1.0, -2.0, 3.0, 2.5]))),
    (op_compare, (np.array([1, 2, -3, 2]), np.array([1, -2, 3, 3]))),
    (op_sum, (_g(25).normal(size=5),)),
    (op_sum, (_M,)),
    (op_sum, (_T,)),
    (op_sum, (np.array([3, -4, 5]),)),
    (op_mean, (_g(26).normal(size=5),)),
    (op_mean, (_M,)),
    (op_mean, (_T,)),
    (op_max, (C._distinct(27, 5),)),
    (op_max, (C._distinct(28, 12).reshape(3, 4),)),
    (op_max, (C._distinct(29, 12).reshape(2, 3, 2),)),
    (op_min, (C._distinct(30, 5),)),
    (op_min, (C._distinct(31, 12).reshape(4, 3),)),
    (op_min, (C._distinct(32, 12).reshape(2, 2, 3),)),
    (op_max, (np.array([3, -4, 5]),)),
    (op_sum_axis0, (_M,)),
    (op_sum_axis1, (_M,)),
    (op_sum_axis0, (_T,)),
    (op_sum_axis1, (_T,)),
    (op_sum_axis2, (_T,)),
    (op_sum_axis0, (_g(33).normal(size=4),)),
    (op_mean_axis0, (_g(69).normal(size=4),)),
    (op_max_axis0, (C._distinct(70, 5),)),
    (op_min_axis0, (C._distinct(71, 5),)),
    (op_mean_axis0, (_M,)),
    (op_mean_axis1, (_T,)),
    (op_max_axis0, (C._distinct(34, 12).reshape(3, 4),)),
    (op_max_axis1, (C._distinct(35, 12).reshape(3, 4),)),
    (op_max_axis1, (C._distinct(36, 24).reshape(2, 3, 4),)),
    (op_min_axis0, (C._distinct(37, 12).reshape(3, 4),)),
    (op_min_axis1, (C._distinct(38, 12).reshape(4, 3),)),
    (op_methods, (C._distinct(39, 12).reshape(3, 4),)),
    (op_dot_vv, (_g(40).normal(size=4), _g(41).normal(size=4))),
    (op_matmul_vv, (_g(42).normal(size=4), _g(43).normal(size=4))),
    (op_dot_mv, (_M, _g(44).normal(size=4))),
    (op_matmul_mv, (_M, _g(45).normal(size=4))),
    (op_dot_vm, (_g(46).normal(size=3), _M)),
    (op_matmul_vm, (_g(47).normal(size=3), _M)),
    (op_dot_mm, (_M, _g(48).normal(size=(4, 2)))),
    (op_matmul_mm, (_M, _g(49).normal(size=(4, 2)))),
    (op_matmul_mm, (_g(50).normal(size=(1, 3)), _g(51).normal(size=(3, 1)))),
    (op_transpose, (_M,)),
    (op_transpose_arith, (_M, _g(52).normal(size=3))),
    (op_outer, (_g(53).normal(size=3), _g(54).normal(size=4))),
    (op_norm_vec, (_g(55).normal(size=5),)),
    (op_norm_mat, (_M,)),
    (op_bc_scalar, (_M, 1.7)),
    (op_bc_scalar, (_T, -0.4)),
    (op_bc_row, (_M, _g(56).normal(size=4))),
    (op_bc_col, (_M, _g(57).normal(size=(3, 1)))),
    (op_bc_col_row, (_g(58).normal(size=(3, 1)), _g(59).normal(size=4))),
    (op_bc_col_row2, (_g(60).normal(size=(3, 1)), _g(61).normal(size=(1, 4)))),
    (op_bc_3d, (_T, _g(62).normal(size=(3, 4)), _g(63).normal(size=4),
                _g(64).normal(size=(3, 1)))),
    (op_copy, (_g(65).normal(size=(2, 3)),)),
    (op_unary_chain, (_pos(66, 5), C._away(_g(67).normal(size=5), (0.0,)))),
]


def _op_id(case) -> str:
    fn, args = case
    shapes = "x".join("s" if not isinstance(a, np.ndarray) else
                      f"{a.dtype.char}{'.'.join(map(str, a.shape))}" for a in args)
    return f"{fn.__name__}-{shapes}"


@pytest.mark.parametrize("case", OPS, ids=_op_id)
def test_array_op(case):
    fn, args = case
    check_function(fn, args)


def test_every_documented_op_is_in_the_op_table():
    names = {fn.__name__ for fn, _ in OPS}
    for needed in ["op_add", "op_sub_arrays", "op_mul", "op_div", "op_pow", "op_floordiv",
                   "op_neg", "op_compare", "op_exp", "op_log", "op_sqrt", "op_sin", "op_cos",
                   "op_tanh", "op_abs", "op_maximum", "op_minimum", "op_where", "op_sum",
                   "op_mean", "op_max", "op_min", "op_methods", "op_dot_vv", "op_dot_mv",
                   "op_dot_vm", "op_dot_mm", "op_matmul_vv", "op_matmul_mv", "op_matmul_vm",
                   "op_matmul_mm", "op_transpose", "op_outer", "op_norm_vec", "op_norm_mat",
                   "op_bc_scalar", "op_bc_row", "op_bc_col", "op_bc_col_row", "op_bc_3d"]:
        assert needed in names


# =========================================================================== layouts
def _fill(dtype):
    return {"f": np.nan, "i": 10**12, "b": True}[dtype.kind]


def relayout(a, kind):
    """The same values as `a` in another memory layout. Returns (view, base or None); the
    parts of the base outside the view hold nan (floats) or out-of-range ints, so reading
    the wrong element shows up."""
    if not isinstance(a, np.ndarray):
        return a, None
    if kind == "fortran":
        return np.asfortranarray(a), None
    if kind == "strided":
        base = np.full(tuple(2 * s + 1 for s in a.shape), _fill(a.dtype), dtype=a.dtype)
        view = base[tuple(slice(1, 1 + 2 * s, 2) for s in a.shape)]
    elif kind == "negative":
        base = np.full(tuple(2 * s + 1 for s in a.shape), _fill(a.dtype), dtype=a.dtype)
        view = base[tuple(slice(2 * s - 1, None, -2) if s else slice(0, 0) for s in a.shape)]
    elif kind == "reversed":
        base = a[(slice(None, None, -1),) * a.ndim].copy()
        view = base[(slice(None, None, -1),) * a.ndim]
    elif kind == "transposed":
        perm = tuple(reversed(range(a.ndim))) if a.ndim < 3 else (1, 2, 0)
        base = np.ascontiguousarray(np.transpose(a, perm))
        view = np.transpose(base, np.argsort(perm))
    elif kind == "offset":
        base = np.full(tuple(s + 3 for s in a.shape), _fill(a.dtype), dtype=a.dtype)
        view = base[tuple(slice(2, 2 + s) for s in a.shape)]
    elif kind == "readonly":
        view = a.copy()
        view.flags.writeable = False
        return view, None
    else:
        raise ValueError(kind)
    view[...] = a
    assert view.shape == a.shape and np.array_equal(view, a)
    return view, base


LAYOUTS = ["fortran", "strided", "negative", "reversed", "transposed", "offset", "readonly"]


def _result_grad(f, args, want, rng_seed=0):
    """The gradient at args: grad for a float result, back(w) for a fixed w otherwise."""
    if type(want) is float:
        return f.grad(*args)
    y, back = f.pullback(*args)
    return back(random_like(want, np.random.default_rng(rng_seed)))


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_layouts(case):
    """Every corpus function with its array arguments in every memory layout gives the
    values and gradients it gives for C-contiguous arguments; nothing is written into the
    views or their bases."""
    fn, samples = case
    f = compiled(fn)
    for args in samples:
        want = py(fn(*args))
        differentiable = any(is_diff(a) for a in args) and has_float_result(want) and \
            fn.__name__ not in NO_FINITE_DIFFERENCES
        ref_grad = _result_grad(f, args, want) if differentiable else None
        for kind in LAYOUTS:
            if kind in ("fortran", "transposed") and \
                    all(not isinstance(a, np.ndarray) or a.ndim < 2 for a in args):
                continue
            pairs = [relayout(a, kind) for a in args]
            largs = tuple(v for v, _ in pairs)
            snap = snapshot(largs) + snapshot(tuple(b for _, b in pairs if b is not None))
            got = f(*largs)
            assert_close(got, want, what=f"{fn.__name__} value with {kind} arguments",
                         fresh=True)
            if differentiable:
                g = _result_grad(f, largs, want)
                assert_close(g, ref_grad, what=f"{fn.__name__} gradient with {kind} arguments")
                assert_grad_structure(g, largs, f"{fn.__name__} gradient ({kind})")
            assert_unchanged(snap, f"{fn.__name__} {kind} argument or base")


def masked_int_sum_2d(K, B, X):
    """int64, bool and float64 2-D arguments read element by element."""
    s = 0.0
    t = 0
    for i in range(K.shape[0]):
        for j in range(K.shape[1]):
            if B[i, j]:
                s += K[i, j] * X[i, j]
                t += K[i, -1 - j]
    return s + t


def masked_int_sum_3d(K, B, X):
    """int64, bool and float64 3-D arguments, elementwise and whole-array."""
    s = 0.0
    for i in range(K.shape[0]):
        for j in range(K.shape[1]):
            for k in range(K.shape[2]):
                if B[i, j, k]:
                    s += K[i, j, k] * X[i, j, k]
    return s + np.sum(np.where(B, K * X, -X)) + np.sum(K)


@pytest.mark.parametrize("kind", ["C"] + LAYOUTS)
@pytest.mark.parametrize("fn, shape", [(masked_int_sum_2d, (3, 4)), (masked_int_sum_3d, (2, 3, 4))],
                         ids=["2d", "3d"])
def test_int_and_bool_arrays_in_every_layout(fn, shape, kind):
    g = np.random.default_rng(len(shape))
    K = g.integers(-5, 6, size=shape)
    B = g.uniform(size=shape) < 0.6
    X = g.normal(size=shape)
    args = tuple(relayout(a, kind)[0] if kind != "C" else a for a in (K, B, X))
    assert args[0].dtype == np.int64 and args[1].dtype == np.bool_
    _, grad = check_function(fn, args, name=f"{fn.__name__} ({kind})")
    assert grad[0] is None and grad[1] is None


def test_layout_helper_makes_the_layouts_it_claims():
    a = np.arange(24.0).reshape(2, 3, 4)
    assert relayout(a, "fortran")[0].flags.f_contiguous
    v = relayout(a, "negative")[0]
    assert all(s < 0 for s in v.strides)
    v = relayout(a, "strided")[0]
    assert not v.flags.c_contiguous and not v.flags.f_contiguous
    v = relayout(a, "transposed")[0]
    assert not v.flags.c_contiguous and v.base is not None
    assert not relayout(a, "readonly")[0].flags.writeable


def test_aliased_and_overlapping_arguments():
    """The same array (or overlapping views of one) passed as two arguments: each argument
    gets its own gradient."""
    x = np.array([1.0, 2.0, -3.0, 0.5])
    check_function(C.dot_loop, (x, x))
    assert_close(compiled(C.dot_loop).grad(x, x), (x, x))
    check_function(C.dot_loop, (x[1:], x[:-1]))
    assert_close(compiled(C.dot_loop).grad(x[1:], x[:-1]), (x[:-1], x[1:]))
    A = np.arange(12.0).reshape(3, 4) / 7.0
    check_function(C.bilinear_form, (A[:, 0], A, A[1]))


def test_unaligned_strided_field_views():
    """Fields of a structured array are float64 / int32 arrays with a 12-byte stride (not a
    multiple of the item size for the float64 field, unaligned)."""
    rec = np.zeros(4, dtype=[("a", "f8"), ("b", "i4")])
    rec["a"] = [1.0, 2.0, -3.0, 0.5]
    rec["b"] = [7, 8, 9, 10]
    x = rec["a"]
    assert x.dtype == np.float64 and x.strides == (12,)
    check_function(C.dot_loop, (x, x[::-1]))
    check_function(C.kahan_sum, (x,))
    assert compiled(count_total)(rec["b"], np.ones(4)) == 34


def test_zero_stride_broadcast_view_argument():
    """np.broadcast_to gives a read-only view with stride 0: still a strided array."""
    row = np.array([0.5, -1.25, 2.0])
    A = np.broadcast_to(row, (4, 3))
    assert A.strides[0] == 0
    f = compiled(C.matvec_loop)
    x = np.array([1.0, 2.0, -0.5])
    assert_close(f(A, x), py(C.matvec_loop(A, x)), fresh=True)
    _, back = f.pullback(A, x)
    w = np.array([1.0, -2.0, 0.5, 3.0])
    gA, gx = back(w)
    assert_close(gA, np.outer(w, x))
    assert_close(gx, A.T @ w)


# =========================================================================== empty arrays
def sum_of_squares(x):
    """sum x^2 in a loop (zero trips for an empty array)."""
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s


def whole_array_empty(x, A):
    """Whole-array ops on empty arrays."""
    return np.sum(np.exp(x)) + np.sum(A * 2.0) + np.mean(x * 0.0 + 1.0) * 0.0 + len(x) \
        + A.shape[0] + A.size


def empty_mean(x):
    return np.sum(x) + x.size


EMPTY_CASES = [
    (sum_of_squares, (np.zeros(0),)),
    (C.dot_loop, (np.zeros(0), np.zeros(0))),
    (C.kahan_sum, (np.zeros(0),)),
    (C.cumsum_array, (np.zeros(0),)),
    (C.matvec_loop, (np.zeros((0, 3)), np.ones(3))),
    (C.matvec_loop, (np.zeros((3, 0)), np.zeros(0))),
    (C.matmul_loop, (np.zeros((2, 0)), np.zeros((0, 3)))),
    (C.least_squares_residuals, (np.zeros((0, 2)), np.array([0.5, -1.0]), np.zeros(0))),
    (C.ridge_loss, (np.zeros((0, 3)), np.array([0.5, -1.0, 2.0]), np.zeros(0), 0.25)),
    (C.tensor_contract, (np.zeros((2, 0, 3)), np.ones(2), np.zeros(0), np.ones(3))),
    (op_add, (np.zeros(0), np.zeros(0))),
    (op_add, (np.zeros((0, 3)), np.zeros((0, 3)))),
    (op_dot_mv, (np.zeros((3, 0)), np.zeros(0))),
    (op_matmul_mm, (np.zeros((2, 0)), np.zeros((0, 2)))),
    (op_sum, (np.zeros((0, 4)),)),
    (op_sum_axis0, (np.zeros((0, 4)),)),
    (op_outer, (np.zeros(0), np.ones(3))),
    (empty_mean, (np.zeros((2, 0, 3)),)),
    (C.int_histogram, (np.zeros(0, dtype=np.int64), 3)),
]


@pytest.mark.parametrize("case", EMPTY_CASES, ids=_op_id)
def test_empty_arrays(case):
    fn, args = case
    check_function(fn, args, name=f"{fn.__name__} (empty)")
    for layout in ("strided", "negative", "fortran"):
        largs = tuple(relayout(a, layout)[0] for a in args)
        assert_close(compiled(fn)(*largs), py(fn(*args)))


# =========================================================================== dtypes
def weighted_total(samples, weights):
    """sum samples[i] * weights[i]."""
    s = 0.0
    for i in range(len(samples)):
        s += samples[i] * weights[i]
    return s


def count_total(counts, weights):
    """An int result from an int array (weights unused except for its length)."""
    s = 0
    for i in range(len(weights)):
        s += counts[i]
    return s


def generic_total(samples):
    """s starts as the int 0: int for int and bool arrays, float for float arrays."""
    s = 0
    for i in range(len(samples)):
        s += samples[i]
    return s


def matrix_total(samples, weights):
    return np.sum(samples * weights)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_float_dtypes_are_converted_to_float64(dtype):
    g = np.random.default_rng(5)
    x64 = g.normal(size=5)
    x = x64.astype(dtype)
    w = g.normal(size=5)
    f = compiled(weighted_total)
    snap = snapshot((x, w))
    want = py(weighted_total(x.astype(np.float64), w))
    assert_close(f(x, w), want)
    gx, gw = f.grad(x, w)
    assert type(gx) is np.ndarray and gx.dtype == np.float64 and gx.shape == x.shape
    assert_close(gx, w)
    assert_close(gw, x.astype(np.float64))
    y, back = f.pullback(x, w)
    assert_close(back(1.0), (gx, gw))
    assert_unchanged(snap)
    assert x.dtype == dtype
    # a 2-D float32 array in Fortran order
    A = np.asfortranarray(g.normal(size=(3, 2)).astype(dtype))
    B = g.normal(size=(3, 2))
    f2 = compiled(matrix_total)
    assert_close(f2(A, B), py(matrix_total(A.astype(np.float64), B)))
    gA, gB = f2.grad(A, B)
    assert gA.dtype == np.float64 and gA.shape == (3, 2)
    assert_close(gA, B)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32])
def test_small_int_dtypes_are_converted_to_int64(dtype):
    counts = np.array([3, 1, 4, 1, 5, 9, 2], dtype=dtype)
    w = np.ones(7)
    f = compiled(count_total)
    got = f(counts, w)
    assert type(got) is int and got == 25
    assert_close(compiled(weighted_total)(counts, w), 25.0)
    g = compiled(weighted_total).grad(counts, w)
    assert g[0] is None and type(g[1]) is np.ndarray
    assert_close(g[1], counts.astype(np.float64))
    assert counts.dtype == dtype


def test_int_and_bool_arrays_are_their_own_signatures():
    f = pyad.jit_grad(generic_total)
    xf = np.array([0.5, -1.25, 3.0])
    xi = np.array([2, -7, 11], dtype=np.int64)
    xb = np.array([True, False, True, True])
    assert_close(f(xf), 2.25)
    assert_close(f(xi), 6)
    assert_close(f(xb), py(generic_total(xb)))
    assert type(f(xb)) is int
    assert_close(f(xf), 2.25)  # the first (native fast path) signature still works
    assert_close(f.grad(xf), (np.ones(3),))
    # int64 arrays of 1, 2 and 3 dims are separate signatures too
    assert_close(compiled(op_sum)(np.arange(6).reshape(2, 3)), 15)
    assert_close(compiled(op_sum)(np.arange(8).reshape(2, 2, 2)), 28)
    assert_close(compiled(op_sum)(np.array([True, True, False])),
                 py(np.sum(np.array([True, True, False]))))


def test_int_and_bool_array_arguments_have_no_gradient():
    x = np.array([0.5, 1.5, -2.0, 0.25])
    idx = np.array([3, -1, 0, 2, 2])
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    g = compiled(C.gather_weighted).grad(x, idx, w)
    assert g[1] is None
    want_x = np.zeros(4)
    np.add.at(want_x, idx, w)
    assert_close(g[0], want_x)
    assert_close(g[2], x[idx])
    mask = np.array([True, False, True, True])
    g = compiled(C.masked_mean).grad(x, mask)
    assert g[1] is None
    assert_close(g[0], mask / 3.0)


REJECTED = [
    ("complex", lambda: np.ones(3, dtype=np.complex128)),
    ("object", lambda: np.array([1.0, 2.0, 3.0], dtype=object)),
    ("uint64", lambda: np.ones(3, dtype=np.uint64)),
    ("str", lambda: np.array(["a", "b", "c"])),
    ("bytes", lambda: np.array([b"a", b"b", b"c"])),
    ("datetime", lambda: np.array(["2020-01-01"] * 3, dtype="datetime64[D]")),
    ("0-d", lambda: np.array(1.5)),
    ("4-d", lambda: np.ones((1, 1, 1, 3))),
    ("list", lambda: [1.0, 2.0, 3.0]),
    ("tuple", lambda: (1.0, 2.0, 3.0)),
    ("None", lambda: None),
    ("memoryview", lambda: memoryview(np.ones(3))),
]
if np.dtype(np.longdouble) != np.dtype(np.float64):
    REJECTED.append(("longdouble", lambda: np.ones(3, dtype=np.longdouble)))


@pytest.mark.parametrize("kind, make", REJECTED, ids=[k for k, _ in REJECTED])
def test_unsupported_arguments_raise_type_error_naming_the_argument(kind, make):
    f = compiled(weighted_total)
    good = np.array([1.0, 2.0, 3.0])
    f(good, good)  # a compiled signature exists (the native fast path)
    bad = make()
    for call in (f, f.grad, f.value_and_grad, f.pullback):
        with pytest.raises(TypeError, match="'weights'") as info:
            call(good, bad)
        assert "'samples'" not in str(info.value)
        with pytest.raises(TypeError, match="'samples'"):
            call(bad, good)


def test_non_native_byte_order_is_converted_or_rejected():
    """A big-endian float64 or int64 array is not a native float64/int64 array: pyad must
    either convert it (read the right values) or raise TypeError naming the argument; it must
    never reinterpret the bytes."""
    x = np.array([1.5, -2.0, 0.25], dtype=">f8")
    w = np.array([2.0, 1.0, -3.0])  # x . w = 0.25
    f = compiled(weighted_total)
    try:
        got = f(x, w)
    except TypeError as e:
        assert "'samples'" in str(e)
    else:
        assert_close(got, float(weighted_total(x.astype(np.float64), w)))
        assert_close(f.grad(x, w)[1], x.astype(np.float64))
    k = np.array([3, 1, 4], dtype=">i8")
    try:
        got = compiled(count_total)(k, w)
    except TypeError as e:
        assert "'counts'" in str(e)
    else:
        assert got == 8


# =========================================================================== argnums
def test_argnums_with_arrays():
    g = np.random.default_rng(9)
    A, x, b = g.normal(size=(4, 3)), g.normal(size=3), g.normal(size=4)
    full = compiled(C.ridge_loss).grad(A, x, b, 0.5)
    one = pyad.jit_grad(C.ridge_loss, argnums=1).grad(A, x, b, 0.5)
    assert type(one) is np.ndarray
    assert_identical(one, full[1])
    two = pyad.jit_grad(C.ridge_loss, argnums=(0, 3)).grad(A, x, b, 0.5)
    assert_identical(two, (full[0], full[3]))
    val, gx = pyad.jit_grad(C.ridge_loss, argnums=1).value_and_grad(A, x, b, 0.5)
    assert_identical(gx, full[1])
    idx = np.array([0, 1])
    with pytest.raises(TypeError):
        pyad.jit_grad(C.gather_weighted, argnums=1).grad(x, idx, np.ones(2))


# =========================================================================== indexing
def negative_reads(x, A, T, i):
    """x[-1], A[-1, -2], T[-1, 0, -1] and an index from an int argument."""
    return x[-1] + 2.0 * x[-len(x)] + A[-1, -2] * A[0, -1] + T[-1, 0, -1] - T[1, -2, 2] \
        + x[i] * A[i, i] + T[i, i, i]


def shape_of(x, A, T):
    """a.shape returned as tuples."""
    return x.shape, A.shape, T.shape, len(T), T.shape[-1]


def local_assignments(x, s):
    """Element assignment and every augmented element assignment into local 1-D, 2-D and
    3-D arrays, with negative indices."""
    a = np.zeros(4)
    a[0] = x[0]
    a[-1] = s
    a[1] += x[1] * s
    a[2] -= x[2]
    a[-2] *= 3.0
    a[3] /= 2.0 + x[-1] * x[-1]
    a[1] **= 2
    B = np.ones((2, 3))
    B[0, -1] = x[0] * s
    B[-1, 0] += s
    B[1, 1] *= x[1]
    B[0, 0] -= B[0, -1]
    T = np.zeros((2, 2, 2))
    T[1, -1, 0] = s * s
    T[-1, 1, 0] += x[2]
    T[0, 0, -1] -= 1.5
    T[0, 1, 1] = T[1, 1, 0] * 2.0
    return np.sum(a * a) + np.sum(B) * T[1, 1, 0] + T[0, 0, 1] + T[0, 1, 1]


def int_local_assignments(k):
    """Element assignment into int and bool local arrays."""
    c = np.zeros(len(k), dtype=np.int64)
    m = np.zeros(len(k), dtype=bool)
    for i in range(len(k)):
        c[i] = k[i] * 2
        c[i] += k[-1 - i]
        c[i] //= 3
        m[i] = c[i] > 0
    return c, m


def test_negative_indices():
    g = np.random.default_rng(11)
    args = (g.normal(size=5), g.normal(size=(3, 4)), g.normal(size=(2, 3, 4)), -2)
    check_function(negative_reads, args)
    args = (g.normal(size=5), g.normal(size=(3, 4)), g.normal(size=(2, 3, 4)), 1)
    check_function(negative_reads, args)


def test_shape_queries():
    x, A, T = np.zeros(5), np.zeros((3, 4)), np.zeros((2, 3, 4))
    check_function(shape_of, (x, A, T))
    assert compiled(shape_of)(x, A, T) == ((5,), (3, 4), (2, 3, 4), 2, 4)
    check_function(C.shape_queries, (np.zeros((2, 7)), np.zeros((1, 1, 6))))
    # strided and transposed arguments report the logical shape
    assert compiled(shape_of)(np.zeros(10)[::2], A.T, np.zeros((4, 3, 2)).T) == \
        ((5,), (4, 3), (2, 3, 4), 2, 4)


def test_element_assignment_into_local_arrays():
    check_function(local_assignments, (np.array([0.7, -1.3, 0.4, 2.1]), -0.6))
    check_function(int_local_assignments, (np.array([4, -5, 0, 7, 2]),))


# =========================================================================== creation
def make_arrays(n, v):
    """Creation functions returned directly: dtypes follow NumPy."""
    return (np.zeros(n), np.ones((2, n)), np.full((n, 2), v), np.full(n, 7), np.full(n, 2.5),
            np.zeros(n, dtype=int), np.ones((n,), dtype=np.int64), np.zeros(n, dtype=bool),
            np.ones(n, dtype=np.bool_), np.full(n, True, dtype=bool), np.zeros(n, dtype=float),
            np.ones((2, 2, n), dtype=np.float64), np.full((1, n), 3, dtype=float))


def make_like(x, k, b):
    """The *_like functions keep the dtype and shape of their argument."""
    z, o = np.zeros_like(x), np.ones_like(x)
    zk, ok = np.zeros_like(k), np.ones_like(k)
    zb = np.zeros_like(b)
    e = np.empty_like(x)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            e[i, j] = x[i, j] * 2.0
    return z, o, zk, ok, zb, e


def fill_empty(n, v):
    """np.empty (int and tuple shapes) filled before reading."""
    a = np.empty(n)
    B = np.empty((n, 2))
    for i in range(n):
        a[i] = v * i
        B[i, 0] = v
        B[i, 1] = -v * a[i]
    return np.sum(a) + np.sum(B * B)


def full_with_gradient(v, n):
    """d/dv of sum(np.full(n, v) ** 2) = 2 n v."""
    return np.sum(np.full(n, v) ** 2) + np.sum(np.full((2, n), v))


def copies(x):
    """a.copy() and np.copy(a) are independent of their source."""
    a = x.copy()
    b = np.copy(x)
    a[0] = 5.0
    b[1] = -5.0
    c = a.copy()
    c[2] = 0.0
    return a, b, c, x * 1.0


def test_creation_functions():
    check_function(make_arrays, (4, -0.75))
    check_function(make_arrays, (0, 1.5))
    g = np.random.default_rng(13)
    check_function(make_like, (g.normal(size=(2, 3)), np.array([[1, 2, 3], [4, 5, 6]]),
                               np.array([True, False])))
    check_function(fill_empty, (5, 0.8))
    check_function(full_with_gradient, (1.25, 3))
    assert compiled(full_with_gradient).grad(1.25, 3) == (2 * 3 * 1.25 + 6.0, None)
    check_function(copies, (g.normal(size=4),))


# =========================================================================== views
def write_through_views(x, A):
    """Writes through views of local arrays land in the base: a[:, j], a[i] of 2-D, a.T,
    a[lo:hi] of 1-D and of 2-D."""
    B = A.copy()
    c = B[:, 1]
    c[0] = x[0]
    c[-1] *= x[1]
    r = B[-1]
    r[0] += x[1]
    t = B.T
    t[2, 0] = x[2] * 2.0
    top = B[:2]
    top[1, -1] -= x[0] * x[1]
    y = x.copy()
    s = y[1:3]
    s[1] = -1.0
    s[0] += y[0]
    return B, y, c * 1.0, r * 1.0


def view_of_view(A):
    """Views of views share the base: (B[1:])[0] is B[1], (B.T)[:, 0] is B[0]."""
    B = A.copy()
    v = B[1:]
    row = v[0]
    row[0] = 100.0 + row[1]
    col = B.T[:, 0]
    col[1] = -7.0 * col[0]
    return B


def slice_bounds(x, lo, hi):
    """a[lo:hi] with int arguments: negative and out-of-range bounds clamp like Python."""
    v = x[lo:hi]
    s = 0.0
    for i in range(len(v)):
        s += v[i] * (i + 1)
    return s + len(v) + np.sum(x[lo:]) * 0.5 + np.sum(x[:hi]) * 0.25


def test_writes_through_views_are_visible_in_the_base():
    g = np.random.default_rng(17)
    check_function(write_through_views, (g.normal(size=4), g.normal(size=(3, 4))))
    check_function(view_of_view, (g.normal(size=(3, 4)),))


@pytest.mark.parametrize("lo, hi", [(1, 4), (-3, -1), (0, 100), (-100, 2), (4, 2), (-1, 10),
                                    (6, 6), (0, 0), (-6, 6), (2, -2)])
def test_slice_bounds(lo, hi):
    x = np.array([0.5, -1.0, 2.0, 0.25, -0.75, 1.5])
    check_function(slice_bounds, (x, lo, hi))


def test_views_of_arguments_read_correctly():
    """Views of arguments: a[i] of 3-D, a[:, j], a.T, a[lo:hi], also of strided arguments."""
    g = np.random.default_rng(19)
    T = g.normal(size=(3, 4, 2))
    w = g.normal(size=2)
    for Tl in (T, relayout(T, "negative")[0], relayout(T, "transposed")[0]):
        check_function(C.slices_of_3d, (Tl, w))
    A = g.normal(size=(4, 3))
    for Al in (A, relayout(A, "strided")[0], relayout(A, "fortran")[0]):
        check_function(C.transpose_gram_trace, (Al,))
        check_function(op_transpose, (Al,))


# =========================================================================== results
def identity(x):
    """Returns its argument: pyad returns a new array."""
    return x


def return_views(x, A):
    """Views returned (a slice, a row, a column, a transpose) are new C-contiguous arrays."""
    return x[1:3], A[1], A[:, 0], A.T, (x, A.T)


def test_returned_arrays_are_new_c_contiguous_arrays():
    g = np.random.default_rng(23)
    x = g.normal(size=5)
    y, back = compiled(identity).pullback(x)
    assert y is not x and not np.shares_memory(y, x) and np.array_equal(y, x)
    w = g.normal(size=5)
    assert_close(back(w), (w,))
    check_function(identity, (x,))
    check_function(identity, (relayout(g.normal(size=(3, 2)), "negative")[0],))
    check_function(identity, (np.array([3, 1, 2]),))
    A = g.normal(size=(3, 4))
    check_function(return_views, (x, A))
    check_function(return_views, (relayout(x, "strided")[0], relayout(A, "transposed")[0]))
    r = compiled(identity)(x)
    r[0] = 99.0  # the result is the caller's to modify
    assert x[0] != 99.0 and compiled(identity)(x)[0] == x[0]


def test_pullback_outlives_its_arguments():
    """back keeps whatever it needs: the argument arrays may be dropped (and their memory
    reused) before back is called."""
    g = np.random.default_rng(29)
    A, x = g.normal(size=(4, 3)), g.normal(size=3)
    f = compiled(C.rnn_final_state)
    args = C.CASES[[fn for fn, _ in C.CASES].index(C.rnn_final_state)][1][0]
    want_y, want_back = f.pullback(*args)
    w = g.normal(size=want_y.shape)
    want = want_back(w)
    copies_ = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    y, back = f.pullback(*copies_)
    del copies_
    gc.collect()
    junk = [np.full(a.shape, np.nan) for a in args if isinstance(a, np.ndarray) for _ in range(3)]
    assert_identical(back(w), want, "back after the arguments were dropped")
    del junk
    fm = compiled(C.matvec_loop)
    _, back = fm.pullback(A.copy(), x.copy())
    gc.collect()
    v = g.normal(size=4)
    assert_close(back(v), (np.outer(v, x), A.T @ v))


def test_pullback_is_not_affected_by_later_changes_to_the_arguments():
    """back(w) is the transposed Jacobian at the point where pullback was called, even if
    the caller modifies its arrays afterwards (as a closure over the evaluation would be)."""
    g = np.random.default_rng(31)
    A, x = g.normal(size=(4, 3)), g.normal(size=3)
    A0, x0 = A.copy(), x.copy()
    f = compiled(C.matvec_loop)
    _, back = f.pullback(A, x)
    A[...] = 0.0
    x[...] = 0.0
    v = g.normal(size=4)
    assert_close(back(v), (np.outer(v, x0), A0.T @ v))


def test_pullback_rejects_a_cotangent_of_the_wrong_shape():
    f = compiled(C.matvec_loop)
    A, x = np.ones((3, 2)), np.ones(2)
    _, back = f.pullback(A, x)
    for bad in (np.ones(4), np.ones((3, 1)), 1.0, (np.ones(3), 1.0)):
        with pytest.raises((TypeError, ValueError)):
            back(bad)
    assert_close(back(np.ones(3)), (np.ones((3, 2)), np.full(2, 3.0)))


# =========================================================================== exact in-place
def test_repeated_in_place_square_is_differentiated_exactly():
    x = np.array([0.9, -0.8, 1.05, 0.7, -1.1])
    f = compiled(C.repeated_square)
    for reps in (1, 2, 3, 4):
        k = 2 ** reps
        (g, _) = f.grad(x, reps)
        assert_close(g, k * x ** (k - 1), rtol=1e-13, what=f"reps={reps}")
        assert_close(f(x, reps), float(np.sum(x ** k)), rtol=1e-13)


def test_in_place_prefix_sums_are_differentiated_exactly():
    g = np.random.default_rng(37)
    x, w = g.normal(size=7), g.normal(size=7)
    gx, gw = compiled(C.weighted_prefix_sums).grad(x, w)
    assert_close(gx, np.cumsum(w[::-1])[::-1], rtol=1e-13)
    assert_close(gw, np.cumsum(x), rtol=1e-13)
    y, back = compiled(C.cumsum_array).pullback(x)
    assert_close(back(w), (np.cumsum(w[::-1])[::-1],), rtol=1e-13)


def _heat_matrix(n, alpha):
    M = np.eye(n)
    for i in range(1, n - 1):
        M[i, i - 1] += alpha
        M[i, i] -= 2 * alpha
        M[i, i + 1] += alpha
    return M


@pytest.mark.parametrize("steps", [0, 1, 2, 5, 8])
def test_stencil_with_swapped_buffers_is_differentiated_exactly(steps):
    """The heat stencil is linear in u0: y = M^steps u0, so back(w) = (M^T)^steps w; the
    alpha derivative is checked by finite differences."""
    g = np.random.default_rng(41)
    u0, alpha, w = g.normal(size=7), 0.3, g.normal(size=7)
    P = np.linalg.matrix_power(_heat_matrix(7, alpha), steps)
    f = compiled(C.heat_stencil)
    y, back = f.pullback(u0, alpha, steps)
    assert_close(y, P @ u0, rtol=1e-12)
    gu, ga, gs = back(w)
    assert gs is None
    assert_close(gu, P.T @ w, rtol=1e-12)
    h = 1e-6
    fd = (np.dot(f(u0, alpha + h, steps), w) - np.dot(f(u0, alpha - h, steps), w)) / (2 * h)
    assert abs(ga - fd) <= 1e-6 * max(1.0, abs(fd))
    # the energy variant: grad of sum(u^2)
    e = compiled(C.heat_energy)
    gu, _, _ = e.grad(u0, alpha, steps)
    P2 = np.linalg.matrix_power(_heat_matrix(7, alpha), steps)
    assert_close(gu, 2 * P2.T @ (P2 @ u0), rtol=1e-12)


def test_sort_by_swaps_is_differentiated_exactly():
    x = C._distinct(43, 8)
    w = np.random.default_rng(44).normal(size=8)
    gx, gw = compiled(C.bubble_sort_weighted).grad(x, w)
    order = np.argsort(x)
    want = np.zeros(8)
    want[order] = w
    assert_close(gx, want, rtol=1e-15)
    assert_close(gw, np.sort(x), rtol=1e-15)
    y, back = compiled(C.insertion_sort).pullback(x)
    assert_close(y, np.sort(x))
    assert_close(back(w), (want,), rtol=1e-15)


def test_scatter_add_with_repeated_and_negative_indices_is_exact():
    x = np.array([0.5, -1.5, 2.0, 0.25, 1.0])
    idx = np.array([1, -1, 1, 0, 3])
    w = np.array([2.0, -3.0, 0.5, 4.0])
    y, back = compiled(C.scatter_add).pullback(x, idx, 4)
    want_y = np.zeros(4)
    np.add.at(want_y, idx, x * x)
    assert_close(y, want_y)
    gx, gi, gn = back(w)
    assert gi is None and gn is None
    assert_close(gx, 2 * x * w[idx], rtol=1e-15)


def overwrite_several_times(x, n):
    """Each element of a local array overwritten n times by a nonlinear function of itself and
    of its right neighbour's current value (read before it is overwritten)."""
    a = x.copy()
    m = len(a)
    for t in range(n):
        for i in range(m):
            a[i] = math.sin(a[i]) * a[(i + 1) % m] + 0.5 * a[i]
    return np.sum(a * a)


def test_elements_overwritten_many_times():
    x = np.array([0.3, -0.7, 1.1, 0.45, -0.2, 0.9])
    for n in (0, 1, 3, 10):
        check_function(overwrite_several_times, (x, n))
    # the tape grows with the number of overwrites, not more than a few words per write
    f = compiled(overwrite_several_times)
    b1, b2 = f.tape_bytes(x, 10), f.tape_bytes(x, 20)
    assert 0 < b1 < b2 <= 2 * b1 + 4096
    assert b2 - b1 <= 10 * 6 * 64


def test_argument_arrays_are_reread_not_saved():
    """docs/arrays.md: values read from arrays that are never written (arguments) are re-read
    in the reverse sweep, not saved: the tape of a loop that only reads arguments does not
    grow with the number of elements read."""
    f = compiled(C.dot_loop)
    small = f.tape_bytes(np.ones(10), np.ones(10))
    big = f.tape_bytes(np.ones(10000), np.ones(10000))
    assert big <= small + 1024, (small, big)


def _reads_after_the_last_write(x):
    """`a` is filled first and only read afterwards, inside a loop that runs many trips (and
    carries `s` through a product, so that it is reversed with the tape: fused_loops.py)."""
    a = np.zeros(len(x))
    for i in range(len(x)):
        a[i] = x[i] * x[i]
    s = 0.0
    for i in range(len(x)):
        s = 0.5 * s + a[i] * a[i] * x[i]
    return s


def _reads_then_a_later_write(x):
    """The same, but `a` is written again after the loop that reads it: the values the
    reverse sweep needs are no longer in memory and must be saved."""
    a = np.zeros(len(x))
    for i in range(len(x)):
        a[i] = x[i] * x[i]
    s = 0.0
    for i in range(len(x)):
        s = 0.5 * s + a[i] * a[i] * x[i]
    for i in range(len(x)):
        a[i] = 3.0 * a[i]
    return s + a[0]


def _reads_inside_the_loop_that_writes(x):
    """`a` is read in the loop that also writes it (the next trip overwrites what was read)."""
    a = np.zeros(2)
    s = 0.0
    for i in range(len(x)):
        a[i % 2] = x[i] * x[i]
        s += a[0] * np.sin(a[1])
    return s


@pytest.mark.parametrize("fn", [_reads_after_the_last_write, _reads_then_a_later_write,
                                _reads_inside_the_loop_that_writes])
def test_reads_of_arrays_written_earlier(fn):
    """docs/arrays.md: a read of a local array that nothing writes afterwards is re-read in the
    reverse sweep; any later write (after it, or in a loop around it) makes pyad save it."""
    x = np.linspace(0.3, 1.7, 9)
    check_function(fn, (x,))


def test_reads_after_the_last_write_are_not_saved():
    f, g = compiled(_reads_after_the_last_write), compiled(_reads_then_a_later_write)
    small, big = np.ones(10), np.ones(10000)
    assert f.tape_bytes(big) <= f.tape_bytes(small) + 1024
    # the control: with a later write the tape grows with every element read
    assert g.tape_bytes(big) >= g.tape_bytes(small) + 8 * 9990


# =========================================================================== aliasing
def overlapping_inplace(x):
    """`v += w` where v = a[1:] and w = a[:-1] overlap: NumPy computes it as if w were copied
    first (a[i] += old a[i - 1]), not as a running prefix sum."""
    a = x.copy()
    v = a[1:]
    w = a[:-1]
    v += w
    v *= w
    return a


def inplace_through_views(x, y):
    """Whole-array augmented assignment on views (a row, a column, a slice) of local arrays
    modifies the base, as in NumPy."""
    A = np.outer(x, y)
    r = A[1]
    r += y
    c = A[:, 0]
    c *= x
    s = A[0][1:]
    s -= 0.5 * y[1:]
    t = A.T
    t /= 2.0
    return A


def local_aliases(x):
    """`b = a` makes b another name for the same local array; rebinding a afterwards does not
    move the views taken before."""
    a = np.zeros(len(x))
    b = a
    b[0] = x[0] * x[1]
    v = a[1:]
    a = np.ones(len(x))
    v[0] = x[2] * 3.0
    a[-1] = x[-1]
    return a, b, v * 1.0


def read_then_overwrite(x):
    """Whole-array reads of an array that is overwritten later (element writes and whole-array
    in-place updates): the reverse sweep must see the values that were read."""
    a = x.copy()
    s = np.sum(a * a)
    for i in range(len(a)):
        a[i] = 0.5 * a[i] + np.sin(a[i])
    t = np.sum(np.sin(a) * a)
    a *= a
    a[0] = s
    u = np.dot(a, x)
    a += 1.0
    return t + np.sum(a * a) + u


def conditional_swap(u0, c, n):
    """Buffers swapped only on some iterations (the alias of u is data dependent)."""
    u = u0.copy()
    v = np.zeros(len(u0))
    for k in range(n):
        for i in range(len(u)):
            v[i] = math.tanh(c * u[i] + u[i - 1])
        if k % 3 != 1:
            u, v = v, u
    return np.sum(u * u) + 0.5 * np.sum(v)


def same_array_twice(x):
    """The same array returned twice in a tuple (two new arrays), and a view of it."""
    a = np.exp(x)
    return a, a, a[1:]


def allocate_in_loop(x, n):
    """A new local array allocated in every iteration (and carried)."""
    acc = np.zeros(len(x))
    for k in range(n):
        t = np.zeros(len(x))
        for i in range(len(x)):
            t[i] = math.sin(x[i] * (k + 1)) + acc[i] * 0.5
        acc = t
    return np.sum(acc * x)


def mixed_dtypes(k, b, x):
    """Mixed int64 / bool / float64 array arithmetic follows NumPy's promotion: int + float is
    float, int / int is float, int // int and int ** int are ints, bool * float is float."""
    return k + x, k / (k * k + 1), k // 3, k ** 2, b * x, np.where(b, k, -k), k * 0.5 + b, \
        np.sum(k) + np.sum(x), k > x, np.maximum(k, x)


def test_overlapping_in_place_update_matches_numpy():
    x = np.array([1.0, 2.0, 3.0, 4.0, -0.5])
    check_function(overlapping_inplace, (x,))


def test_in_place_updates_through_views():
    g = np.random.default_rng(47)
    check_function(inplace_through_views, (g.normal(size=3), g.normal(size=4)))


def test_local_aliases_and_rebinding():
    check_function(local_aliases, (np.array([0.5, -1.5, 2.0, 0.75]),))


def test_whole_array_reads_of_arrays_written_later():
    g = np.random.default_rng(53)
    check_function(read_then_overwrite, (g.normal(size=5),))


def test_data_dependent_buffer_swaps():
    g = np.random.default_rng(59)
    for n in (0, 1, 2, 5, 7):
        check_function(conditional_swap, (g.normal(size=5), 0.7, n))


def test_same_array_returned_twice():
    x = np.array([0.5, -1.0, 0.25])
    y, back = compiled(same_array_twice).pullback(x)
    assert not np.shares_memory(y[0], y[1])
    w = (np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 2.0]), np.array([10.0, 20.0]))
    (g,) = back(w)
    assert_close(g, np.exp(x) * (w[0] + w[1] + np.array([0.0, 10.0, 20.0])), rtol=1e-15)
    check_function(same_array_twice, (x,))


def test_allocation_inside_a_loop():
    g = np.random.default_rng(61)
    for n in (0, 1, 4, 30):
        check_function(allocate_in_loop, (g.normal(size=4), n))


def test_mixed_dtype_arithmetic_follows_numpy():
    k = np.array([3, -7, 0, 12, 5])
    b = np.array([True, False, True, True, False])
    x = np.array([0.5, -1.25, 2.0, 0.125, 3.0])
    check_function(mixed_dtypes, (k, b, x))


def _divide_arrays(x, y):
    q = x / y
    return q[0], q[1], q[2], np.sum(1.0 / y[:2])


def test_array_division_by_zero_follows_numpy_not_python():
    # Whole-array `/` is NumPy's (inf and nan, no exception); scalar `/` stays Python's.
    f = pyad.jit_grad(_divide_arrays)
    x, y = np.array([1.0, -2.0, 0.0]), np.array([0.0, 0.0, 0.0])
    with np.errstate(all="ignore"):
        want = _divide_arrays(x, y)
    got = f(x, y)
    assert got[:2] == (math.inf, -math.inf) and math.isnan(got[2]) and want[:2] == got[:2]
    assert got[3] == want[3] == math.inf
    y2 = np.array([2.0, -4.0, 0.5])
    y0, back = f.pullback(x, y2)
    gx, gy = back((1.0, 1.0, 1.0, 1.0))
    np.testing.assert_allclose(gx, 1.0 / y2)
    np.testing.assert_allclose(gy, -x / y2 ** 2 - np.array([1 / 4, 1 / 16, 0.0]))
    with pytest.raises(ZeroDivisionError, match="line"):
        pyad.jit_grad(_scalar_division)(np.zeros(2))


def _scalar_division(y):
    return 1.0 / y[0]


def _rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads /proc/self/statm")
def test_repeated_array_calls_do_not_grow_the_process():
    """Results, gradients, shadow arrays, local arrays and pullbacks are freed."""
    g = np.random.default_rng(67)
    x, W = g.normal(size=300), g.normal(size=(300, 300))
    f = compiled(C.rnn_final_state)
    args = (W * 0.05, W * 0.05, x, np.tile(x, (3, 1)), x * 0.1)
    fm, fl = compiled(C.mlp_loss), compiled(allocate_in_loop)
    margs = (np.tile(x[:40], (20, 1)).reshape(20, 40), W[:40, :30] * 0.1, x[:30] * 0.1,
             x[:30], 0.3, x[:20])

    def work():
        y, back = f.pullback(*args)
        back(y)
        fm.value_and_grad(*margs)
        fm(*margs)
        fl.grad(x, 3)

    for _ in range(20):
        work()
    gc.collect()
    before = _rss_bytes()
    for _ in range(150):
        work()
    gc.collect()
    grown = _rss_bytes() - before
    assert grown < 8 * 2**20, f"RSS grew by {grown / 2**20:.1f} MB over 150 rounds"


def test_two_threads_share_an_array_gradient():
    import threading
    f = compiled(C.thomas_inplace_energy)
    g = np.random.default_rng(71)
    sets = [C._tridiag(72, 50), C._tridiag(73, 40)]
    expected = [f.value_and_grad(*a) for a in sets]
    errors = []
    barrier = threading.Barrier(2)

    def work(t):
        try:
            barrier.wait()
            for _ in range(200):
                assert_identical(f.value_and_grad(*sets[t]), expected[t])
                y, back = f.pullback(*sets[t])
                assert_identical(back(1.0), expected[t][1])
        except BaseException as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


# =========================================================================== located errors
def write_param(data, i):
    data[i] = 0.0
    return data[0]


def augwrite_param(data):
    data[0] += 1.0
    return data[0]


def write_param_unreached(data, flag):
    if flag:
        data[0] = 1.0
    return data[0] * 2.0


def write_param_slice_view(data):
    v = data[1:]
    v[0] = 2.0
    return np.sum(data)


def write_param_row_view(data):
    r = data[0]
    r[1] = 2.0
    return np.sum(data)


def write_param_column_view(data):
    c = data[:, 1]
    c[0] += 2.0
    return np.sum(data)


def write_param_transpose(data):
    t = data.T
    t[0, 1] = 2.0
    return np.sum(data)


def write_param_alias(data):
    b = data
    b[0] = 2.0
    return b[0]


def write_param_in_loop(data, n):
    for i in range(n):
        data[i % len(data)] *= 0.5
    return np.sum(data)


def write_param_swapped_alias(data, n):
    u = data.copy()
    v = data
    for i in range(n):
        u, v = v, u
    u[0] = 1.0
    return np.sum(u)


def write_param_3d(data):
    m = data[1]
    m[0, 0] = 1.0
    return np.sum(data)


WRITE_INTO_ARGUMENT = [
    (write_param, "data[i] = 0.0", (np.ones(3), 1)),
    (augwrite_param, "data[0] += 1.0", (np.ones(3),)),
    (write_param_unreached, "data[0] = 1.0", (np.ones(3), False)),
    (write_param_slice_view, "v[0] = 2.0", (np.ones(3),)),
    (write_param_row_view, "r[1] = 2.0", (np.ones((2, 3)),)),
    (write_param_column_view, "c[0] += 2.0", (np.ones((2, 3)),)),
    (write_param_transpose, "t[0, 1] = 2.0", (np.ones((2, 3)),)),
    (write_param_alias, "b[0] = 2.0", (np.ones(3),)),
    (write_param_in_loop, "*= 0.5", (np.ones(3), 4)),
    (write_param_swapped_alias, "u[0] = 1.0", (np.ones(3), 1)),
    (write_param_3d, "m[0, 0] = 1.0", (np.ones((2, 2, 2)),)),
]


@pytest.mark.parametrize("fn, needle, args", WRITE_INTO_ARGUMENT,
                         ids=[c[0].__name__ for c in WRITE_INTO_ARGUMENT])
def test_element_write_into_an_argument_is_refused_at_compile_time(fn, needle, args):
    f = pyad.jit_grad(fn)
    line = _line_of(fn, needle)
    snap = snapshot(args)
    for call in (f, f.grad, f.pullback):
        with pytest.raises(pyad.PyadSyntaxError) as info:
            call(*args)
        err = info.value
        assert "data" in err.bare_message, err.bare_message
        assert err.filename == __file__ and err.line == line, (err.filename, err.line, line)
        assert str(err).startswith(f"{__file__}:{line}:"), str(err)
    assert_unchanged(snap)


def copy_then_write(data):
    data = data.copy()
    data[0] = 5.0
    return np.sum(data * data)


def arith_then_write(data):
    d = data * 1.0
    d[0] = 5.0
    e = -data
    e[1] += 1.0
    return np.sum(d + e)


def test_writes_after_a_copy_are_accepted():
    x = np.array([1.0, 2.0, 3.0])
    check_function(copy_then_write, (x,))
    assert_close(compiled(copy_then_write).grad(x), (np.array([0.0, 4.0, 6.0]),))
    check_function(arith_then_write, (x,))


def read_at(data, i):
    return data[i] * 2.0


def read_2d(data, i, j):
    s = 0.0
    for k in range(3):
        s += data[i, j] * k
    return s


def read_3d(data, i, j, k):
    return data[i, j, k] + 1.0


def write_local_at(data, i):
    out = np.zeros(len(data))
    out[i] = data[0]
    return np.sum(out)


def augwrite_local_2d(data, i, j):
    out = np.zeros((2, 3))
    out[i, j] += data[0]
    return np.sum(out * data[1])


def read_in_loop(data, n):
    s = 0.0
    for i in range(n):
        s += data[i] * data[i]
    return s


def read_view(data, i):
    v = data[1:4]
    return v[i] * 3.0


INDEX_ERRORS = [
    # fn, needle, good args, bad args, message
    (read_at, "data[i] * 2.0", (np.ones(10), 9), (np.ones(10), 10),
     "index 10 is out of bounds for axis 0 with size 10"),
    (read_at, "data[i] * 2.0", (np.ones(10), -10), (np.ones(10), -11),
     "index -11 is out of bounds for axis 0 with size 10"),
    (read_2d, "data[i, j] * k", (np.ones((3, 4)), -3, 3), (np.ones((3, 4)), 1, 4),
     "index 4 is out of bounds for axis 1 with size 4"),
    (read_2d, "data[i, j] * k", (np.ones((3, 4)), 2, -4), (np.ones((3, 4)), -4, 0),
     "index -4 is out of bounds for axis 0 with size 3"),
    (read_3d, "data[i, j, k] + 1.0", (np.ones((2, 3, 4)), 1, 2, 3), (np.ones((2, 3, 4)), 1, 2, -5),
     "index -5 is out of bounds for axis 2 with size 4"),
    (write_local_at, "out[i] = data[0]", (np.ones(4), -4), (np.ones(4), 4),
     "index 4 is out of bounds for axis 0 with size 4"),
    (augwrite_local_2d, "out[i, j] += data[0]", (np.ones(4), 1, 2), (np.ones(4), 2, 0),
     "index 2 is out of bounds for axis 0 with size 2"),
    (read_in_loop, "s += data[i] * data[i]", (np.ones(50), 50), (np.ones(50), 51),
     "index 50 is out of bounds for axis 0 with size 50"),
    (read_view, "v[i] * 3.0", (np.ones(6), 2), (np.ones(6), 3),
     "index 3 is out of bounds for axis 0 with size 3"),
]


@pytest.mark.parametrize("fn, needle, good, bad, message", INDEX_ERRORS,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(INDEX_ERRORS)])
def test_out_of_bounds_index_raises_index_error_naming_the_line(fn, needle, good, bad, message):
    with pytest.raises(IndexError):
        fn(*bad)  # CPython agrees
    f = compiled(fn)
    line = _line_of(fn, needle)
    want = py(fn(*good))
    assert_close(f(*good), want)
    for call in (f, f.grad, f.value_and_grad, f.pullback):
        with pytest.raises(IndexError) as info:
            call(*bad)
        text = str(info.value)
        assert message in text, text
        assert f"line {line} " in text + " " and "test_arrays.py" in text, text
    # still usable afterwards
    assert_close(f(*good), want)
    assert_close(f.grad(*good), compiled(fn).grad(*good))


@pytest.mark.parametrize("case", [c for c in CASES if c[0].__name__ in {
    "thomas_solve", "cholesky_logdet", "diffusion_2d", "lorenz96", "gram_schmidt",
    "scatter_add", "slices_of_3d", "attention"}],
    ids=_id)
def test_boundscheck_false_gives_the_same_values(case):
    fn, samples = case
    f, fast = compiled(fn), compiled(fn, boundscheck=False)
    for args in samples:
        want = py(fn(*args))
        assert_identical(fast(*args), f(*args), f"{fn.__name__} value")
        if type(want) is float:
            assert_identical(fast.grad(*args), f.grad(*args), f"{fn.__name__} grad")
            assert_identical(fast.value_and_grad(*args), f.value_and_grad(*args))
        elif has_float_result(want):
            w = random_like(want, np.random.default_rng(0))
            assert_identical(fast.pullback(*args)[1](w), f.pullback(*args)[1](w),
                             f"{fn.__name__} pullback")
        check_function(fn, args, f=fast, name=f"{fn.__name__} (boundscheck=False)")


def boundscheck_in_bounds_negative(x, i):
    return x[i] + x[-1] * x[-len(x)]


def _axpy(a, x, y):
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = a * x[i] + y[i]
    return out


def _dot_loop(x, y):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * y[i]
    return s


_VECTOR = re.compile(r"<\d+ x double>")


def test_element_loops_vectorize_with_bounds_checks_on():
    """docs/arrays.md (Performance): an element loop over array arguments and a local array
    is vectorized by LLVM with bounds checks on (noalias holds; the checks are hoisted)."""
    x, y = np.ones(64), np.ones(64)
    ir = pyad.jit_grad(_axpy).llvm_ir(2.0, x, y)
    assert _VECTOR.search(ir), "the element loop was not vectorized"


def test_fastmath_vectorizes_reductions_and_strict_ieee_does_not():
    x, y = np.linspace(0.0, 1.0, 64), np.linspace(1.0, 2.0, 64)
    strict, fast = pyad.jit_grad(_dot_loop), pyad.jit_grad(fastmath=True)(_dot_loop)
    assert not _VECTOR.search(strict.llvm_ir(x, y))     # the sum keeps its order
    assert _VECTOR.search(fast.llvm_ir(x, y))
    assert fast(x, y) == pytest.approx(_dot_loop(x, y), rel=1e-12)
    g = fast.grad(x, y)
    np.testing.assert_allclose(g[0], y, rtol=1e-12)
    np.testing.assert_allclose(g[1], x, rtol=1e-12)


def test_boundscheck_false_keeps_negative_indices():
    f = compiled(boundscheck_in_bounds_negative, boundscheck=False)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    for i in range(-4, 4):
        assert_close(f(x, i), py(boundscheck_in_bounds_negative(x, i)))
        check_function(boundscheck_in_bounds_negative, (x, i), f=f, name="boundscheck=False")


def add_mismatch(x, y):
    z = x * 2.0 + y
    return np.sum(z)


def add_mismatch_2d(A, r):
    B = A - r
    return np.sum(B * B)


def matvec_mismatch(A, x):
    y = A @ x
    return np.sum(y)


def dot_mismatch(x, y):
    return np.dot(x, y) * 2.0


def matmul_mismatch(A, B):
    C_ = np.dot(A, B)
    return np.sum(C_)


def where_mismatch(x, y):
    z = np.where(x > 0.0, x, y)
    return np.sum(z)


def maximum_mismatch(x, y):
    z = np.maximum(x, y)
    return np.sum(z)


def array_result_mismatch(x, y):
    return x * y


SHAPE_ERRORS = [
    # fn, needle, good args, bad args, "broadcast" in the message?
    (add_mismatch, "z = x * 2.0 + y", (np.ones(3), np.ones(1)), (np.ones(3), np.ones(4)), True),
    (add_mismatch_2d, "B = A - r", (np.ones((2, 3)), np.ones(3)), (np.ones((2, 3)), np.ones(2)),
     True),
    (where_mismatch, "np.where(x > 0.0, x, y)", (np.ones(3), np.ones(3)),
     (np.ones(3), np.ones(2)), True),
    (maximum_mismatch, "np.maximum(x, y)", (np.arange(6.0).reshape(2, 3), np.array([[0.5], [3.5]])),
     (np.ones((2, 3)), np.ones((3, 1))), True),
    (array_result_mismatch, "return x * y", (np.ones(3), np.ones(3)), (np.ones(3), np.ones(5)),
     True),
    (matvec_mismatch, "y = A @ x", (np.ones((2, 3)), np.ones(3)), (np.ones((2, 3)), np.ones(2)),
     False),
    (dot_mismatch, "np.dot(x, y) * 2.0", (np.ones(3), np.ones(3)), (np.ones(3), np.ones(4)),
     False),
    (matmul_mismatch, "np.dot(A, B)", (np.ones((2, 3)), np.ones((3, 2))),
     (np.ones((2, 3)), np.ones((2, 3))), False),
]


@pytest.mark.parametrize("fn, needle, good, bad, broadcast", SHAPE_ERRORS,
                         ids=[c[0].__name__ for c in SHAPE_ERRORS])
def test_shape_mismatch_raises_value_error_naming_the_line(fn, needle, good, bad, broadcast):
    with pytest.raises(ValueError):
        fn(*bad)  # CPython agrees
    f = compiled(fn)
    line = _line_of(fn, needle)
    check_function(fn, good)
    calls = {"primal": f, "grad": f.grad, "value_and_grad": f.value_and_grad,
             "pullback": f.pullback}
    for which, call in calls.items():
        if which in ("grad", "value_and_grad") and fn is array_result_mismatch:
            continue  # an array result: only the primal and the pullback
        with pytest.raises(ValueError) as info:
            call(*bad)
        text = str(info.value)
        assert f"line {line} " in text + " " and "test_arrays.py" in text, text
        if broadcast:
            assert "broadcast" in text, text
    assert_close(f(*good), py(fn(*good)))


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
    body = f"    z = {e} + x * y\n    return {draw(st.sampled_from(reductions))}\n"
    return body, sx, sy


_counter = itertools.count()


def _load(body: str, tmp_path_factory):
    path = tmp_path_factory.mktemp("arrprog") / f"arrprog{next(_counter)}.py"
    path.write_text("import math\n\nimport numpy as np\n\n\ndef prog(x, y, s):\n" + body)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.prog


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


@settings(**HYPOTHESIS)
@given(prog=array_programs(), seed=st.integers(0, 2**32 - 1),
       layout=st.sampled_from(["C"] + LAYOUTS), s=st.floats(-2.0, 2.0))
def test_random_array_program(prog, seed, layout, s, tmp_path_factory):
    """Random whole-array programs over random broadcastable shapes (1 to 3 dims) and
    layouts: value vs CPython + NumPy, gradient vs the interpreter and finite differences."""
    body, sx, sy = prog
    fn = _load(body, tmp_path_factory)
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-1.5, 1.5, sx), rng.uniform(-1.5, 1.5, sy)
    if layout != "C":
        x = relayout(x, layout)[0]
    args = (x, y, s)
    want = py(fn(*args))
    assert math.isfinite(want)
    f = pyad.jit_grad(fn)
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
    path.write_text("import math\n\nimport numpy as np\n\n\ndef prog(x, y, c0, s):\n" + body)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.prog


@settings(**{**HYPOTHESIS, "max_examples": _examples(12)})
@given(body=inplace_programs(), n=st.integers(3, 6), r=st.integers(1, 3), m=st.integers(1, 4),
       seed=st.integers(0, 2**32 - 1), s=st.floats(-1.5, 1.5))
def test_random_in_place_program(body, n, r, m, seed, s, tmp_path_factory):
    """Random loop-style programs over random sizes that overwrite elements of local arrays
    many times, update views in place and swap buffers: values vs CPython, gradients vs the
    interpreter and every partial derivative by central differences."""
    fn = _load_inplace(body, tmp_path_factory)
    rng = np.random.default_rng(seed)
    args = (rng.uniform(-1, 1, n), rng.uniform(-1, 1, m), rng.uniform(-1, 1, (r, m)), s)
    check_function(fn, args, f=pyad.jit_grad(fn), name=body, rng_seed=seed)


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
    _, ig = pyad.check.interp_value_and_grad(f, x)
    np.testing.assert_allclose(g[0], ig[0], rtol=1e-12)
    assert f.tape_bytes(x) == 0
