"""The differential harness the array tests share. `check_function` compiles a function
with `pyad.jit_grad` and checks it against

  * CPython + NumPy running the plain function (values: exact for ints and bools, rtol 1e-12
    for floats; same dtype and shape for arrays; returned arrays are new and C-contiguous),
  * for a single float result: the reference interpreter on the gradient IR
    (`pyad.api.check.interp_value_and_grad`, rtol 1e-11), central finite differences (every
    element of small arrays, random directions otherwise), `value_and_grad` and `pullback`
    (bit-identical to `grad`),
  * for array or tuple results: the pullback, with a dot-product test <J v, w> == <v, J^T w>
    (J v by central differences), linearity and repeatability of `back`,
  * in every call: the caller's arrays are never modified.

The interpreter runs the gradient IR pyad's AD pass made: it checks the backend, not the AD
(a wrong adjoint gives the same wrong number in both); finite differences and the dot-product
test check the AD, and so does the differential tester (tests/fuzz), whose dual-number
oracle shares no code with pyad.

Also here: the comparisons, argument snapshots, finite differences, and `relayout`, which
gives an array in another memory layout. The contract checked is docs/arrays.md."""
from __future__ import annotations

import inspect
import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck

import pyad
import pyad.api.check

from ..corpus_arrays import NO_FINITE_DIFFERENCES


RTOL = 1e-12         # compiled value vs CPython + NumPy
ORACLE_RTOL = 1e-11  # compiled gradient vs the interpreter on the gradient IR
FD_RTOL = 1e-6       # gradient vs central finite differences
FD_EPS = 1e-6        # relative finite-difference step
FULL_FD_LIMIT = 48   # up to this many differentiable scalars: every partial derivative

def hypothesis_examples(default: int) -> int:
    return int(os.environ.get("PYAD_HYPOTHESIS_EXAMPLES", default))


HYPOTHESIS = dict(max_examples=hypothesis_examples(20),
                  deadline=None, derandomize=not os.environ.get("PYAD_HYPOTHESIS_EXAMPLES"),
                  suppress_health_check=[HealthCheck.function_scoped_fixture,
                                         HealthCheck.too_slow, HealthCheck.data_too_large])

_COMPILED: dict = {}


def compiled(fn, **options):
    """One pyad.jit_grad object per (function, options): specializations are cached. The
    harness differentiates every parameter (argnums="all") unless told otherwise."""
    options = {"argnums": "all", **options}
    key = (fn, tuple(sorted(options.items())))
    jf = _COMPILED.get(key)
    if jf is None:
        jf = _COMPILED[key] = pyad.jit_grad(fn, **options)
    return jf


def line_of(fn, needle: str) -> int:
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
    return pyad.api.check.interp_value_and_grad(f, *args)


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


def case_id(case) -> str:
    return case[0].__name__


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
