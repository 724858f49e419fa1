"""pyad's elementwise math kernels (codegen/lower/vecmath.py: exp, expm1, log, log1p, tanh):
special values, the error against NumPy (glibc's libm) over a sweep, loops around them
vectorizing (both spellings, and sigmoids), and the same bits in scalar code, in a loop's
vector body and in its scalar remainder, through `f`, `grad`, `value_and_grad`, `pullback`,
`pyad.vmap` and a C library built by `pyad compile` for a generic x86-64 CPU.

The accuracy against a high-precision reference (mpmath) is measured by bench/accuracy.py
and tabled in docs/vecmath.md; here NumPy is the oracle: two results each within an ulp or
so of the exact value are at most the bound below apart."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import pyad

from ..modules import load_module

NAMES = ("exp", "expm1", "log", "log1p", "tanh")
# Largest distance to NumPy's result, in ulps (pyad's own error is below 0.73, 1.13, 0.85,
# 1.44 and 1.75 ulp, glibc's below 0.51, 0.78, 0.52, 0.76 and 1.17: docs/vecmath.md)
BOUND = {"exp": 1, "expm1": 2, "log": 1, "log1p": 2, "tanh": 2}
# The least share of results equal to NumPy's (most are the correctly rounded double)
SAME = {"exp": 0.75, "expm1": 0.75, "log": 0.75, "log1p": 0.75, "tanh": 0.6}
SIZES = (7, 8, 9, 33)   # remainder only (AVX2: 4 lanes x 2 interleaved), body + remainder

SOURCE = '''\
import math

import numpy as np

''' + "\n".join(f'''
def s_{n}(a):
    return math.{n}(a)


def a_{n}(x):
    return np.{n}(x)


def l_{n}(x):
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = math.{n}(x[i])
    return out


def sum_{n}(x):
    return np.sum(np.{n}(x))
''' for n in NAMES) + '''

def mlp(X, W, b):
    return np.tanh(X @ W + b)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softplus_loop(x):
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = math.log(1.0 + math.exp(x[i]))
    return out


def logsumexp_fast(x):
    s = 0.0
    for i in range(len(x)):
        s += math.exp(x[i])
    return math.log(s)
'''


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return load_module(tmp_path_factory.mktemp("vecmath") / "vecmath_funcs.py", SOURCE)


def bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.int64)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Doubles between a and b (0 for equal values, nan == nan, 0.0 == -0.0 is 1 apart)."""
    def ordered(v):
        i = bits(v)
        return np.where(i < 0, np.int64(-2 ** 63) - i, i)
    d = np.abs(ordered(a) - ordered(b))
    return np.where(np.isnan(a) & np.isnan(b), 0, d)


def domain(name: str, n: int, rng) -> np.ndarray:
    if name == "log":
        return np.exp(rng.uniform(-30.0, 30.0, n))
    if name == "log1p":
        return np.exp(rng.uniform(-30.0, 30.0, n)) - rng.uniform(0.0, 1.0, n)
    return rng.uniform(-3.0, 3.0, n) * 2.0 ** rng.integers(-10, 3, n)


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324,
                    1e-310, -1e-310, 1e-20, -3e-17, 2.2250738585072014e-308, 1e-300, 0.5,
                    20.0, 22.0, 40.0, -40.0, 100.0, -100.0, 709.78, 709.79, 710.0, -708.0,
                    -745.1, -745.2, -746.0, 1e300, -1e300, 1.7976931348623157e308])


@pytest.mark.parametrize("name", NAMES)
def test_special_values_are_numpys(name, m):
    """nan, +-inf, +-0.0 (with its sign), subnormals, overflow to inf, underflow to 0 and
    subnormal results, log of negatives and of 0: NumPy's values, up to the bound."""
    with np.errstate(all="ignore"):
        want = getattr(np, name)(SPECIAL)
    got = pyad.jit_grad(getattr(m, f"l_{name}"))(SPECIAL)
    assert (ulp_distance(got, want) <= BOUND[name]).all(), list(zip(SPECIAL, got, want))
    exact = (~np.isfinite(want) | (want == 0.0) | (np.abs(want) == 1.0)) & ~np.isnan(want)
    if name in ("expm1", "log1p", "tanh"):   # f(x) rounds to x below 2^-54, subnormals too
        exact |= np.abs(SPECIAL) < 2.0 ** -54
    assert np.array_equal(bits(got[exact]), bits(want[exact]))   # signs of 0.0 included
    assert np.array_equal(np.isnan(got), np.isnan(want))


@pytest.mark.parametrize("name", NAMES)
def test_within_bound_of_numpy_on_a_sweep(name, m):
    rng = np.random.default_rng(18)
    lo, hi = {"exp": (-745.0, 709.7), "expm1": (-40.0, 709.7), "log": (1e-6, 1e6),
              "log1p": (-0.999, 1e6), "tanh": (-20.0, 20.0)}[name]
    x = np.concatenate([np.linspace(lo, hi, 50_001), domain(name, 50_000, rng),
                        rng.uniform(-1.0, 1.0, 20_000) if name != "log" else
                        1.0 + rng.uniform(-0.3, 0.3, 20_000)])
    got = pyad.jit_grad(getattr(m, f"a_{name}"))(x)
    dist = ulp_distance(got, getattr(np, name)(x))
    assert dist.max() <= BOUND[name], x[dist.argmax()]
    assert (dist == 0).mean() > SAME[name], (dist == 0).mean()


def _vectorized(ir: str) -> bool:
    return re.search(r"<(2|4|8) x double>", ir) is not None


def _no_libm_call(ir: str) -> bool:
    return re.search(r"call [^\n]*@(exp|expm1|log|tanh|llvm\.exp|llvm\.log)[.(]", ir) is None


@pytest.mark.parametrize("name", NAMES)
def test_element_loops_and_array_expressions_vectorize(name, m):
    x = np.linspace(0.5, 1.5, 9)
    for spelling in ("l", "a"):
        ir = pyad.jit_grad(getattr(m, f"{spelling}_{name}")).llvm_ir(x)
        assert _vectorized(ir) and _no_libm_call(ir), (spelling, name)
    # np.sum of an expression is a running sum under strict IEEE rules, a scalar loop of the
    # inlined kernel (codegen/passes.py: why not an ordered vector reduction); the
    # gradient's elementwise loop vectorizes
    loss = pyad.jit_grad(getattr(m, f"sum_{name}"))
    assert _no_libm_call(loss.llvm_ir(x))
    grad_ir = loss.llvm_ir(x, gradient=True)
    assert _vectorized(grad_ir) and _no_libm_call(grad_ir)


def test_expressions_of_our_own_vectorize(m):
    """Spellings the benchmarks do not use: a sigmoid, a softplus loop, tanh of an affine
    map, and a sum of exps in a reduction loop (a reduction vectorizes with fastmath=True,
    which allows reordering the sum; the kernel itself is never reassociated)."""
    x = np.linspace(-2.0, 2.0, 33)
    X, W, b = np.ones((5, 3)), np.ones((3, 4)), np.ones(4)
    for f, args in ((m.sigmoid, (x,)), (m.softplus_loop, (x,)), (m.mlp, (X, W, b))):
        ir = pyad.jit_grad(f).llvm_ir(*args)
        assert _vectorized(ir) and _no_libm_call(ir), f.__name__
    fast = pyad.jit_grad(m.logsumexp_fast, fastmath=True)
    assert _vectorized(fast.llvm_ir(x)) and _no_libm_call(fast.llvm_ir(x))
    assert fast(x) == pytest.approx(np.log(np.sum(np.exp(x))), rel=1e-14)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(pyad.jit_grad(m.sigmoid)(x), 1.0 / (1.0 + np.exp(-x)))


@pytest.mark.parametrize("name", NAMES)
def test_same_bits_in_scalar_code_vector_body_and_remainder(name, m):
    rng = np.random.default_rng(7)
    scalar = pyad.jit_grad(getattr(m, f"s_{name}"))
    loss = pyad.jit_grad(getattr(m, f"sum_{name}"))
    array, loop = pyad.jit_grad(getattr(m, f"a_{name}")), pyad.jit_grad(getattr(m, f"l_{name}"))
    vmapped = pyad.vmap(scalar)
    vmapped_grad = pyad.vmap(pyad.grad(getattr(m, f"s_{name}")))
    for n in SIZES:
        x = domain(name, n, rng)
        one = np.array([scalar(v) for v in x])
        assert np.array_equal(bits(array(x)), bits(one))
        assert np.array_equal(bits(loop(x)), bits(one))
        # the adjoints (exp: ct * y, log: ct / x, tanh: ct (1 - y^2), expm1: ct (y + 1),
        # log1p: ct / (x + 1))
        # computed per element in a vector loop against the scalar function's gradient
        dg = np.array([scalar.grad(v) for v in x])
        assert np.array_equal(bits(loss.grad(x)), bits(dg))
        value, g = loss.value_and_grad(x)
        assert value == loss(x) and np.array_equal(bits(g), bits(dg))
        y, back = loss.pullback(x)
        assert y == loss(x) and np.array_equal(bits(back(1.0)), bits(dg))
        assert np.array_equal(bits(vmapped(x)), bits(one))
        assert np.array_equal(bits(vmapped_grad(x)), bits(dg))


@pytest.mark.parametrize("name", NAMES)
def test_gradients_against_finite_differences_and_the_interpreter(name, m):
    """The array spelling's gradient: central differences and the IR interpreter (which
    runs libm: it agrees to rounding, not bits)."""
    from pyad.api.check import interp_value_and_grad
    rng = np.random.default_rng(3)
    x = rng.uniform(0.2, 3.0, 9) if name.startswith("log") else rng.uniform(-2.0, 2.0, 9)
    f = pyad.jit_grad(getattr(m, f"sum_{name}"))
    g = f.grad(x)
    _, ig = interp_value_and_grad(f, x)
    np.testing.assert_allclose(g, ig, rtol=1e-13)
    py = getattr(m, f"sum_{name}")
    for i in range(len(x)):
        h = 1e-6
        hi, lo = x.copy(), x.copy()
        hi[i] += h
        lo[i] -= h
        assert g[i] == pytest.approx((py(hi) - py(lo)) / (2 * h), rel=1e-6, abs=1e-9)
