"""`x ** k` for a whole-number constant k (3..16) is LLVM's powi, products by repeated
squaring (codegen/lower/emit.py `_whole`), in the primal and in the gradient (whose
exponent `k - 1.0` is folded to a constant after AD, pipeline.native): a loop around it
vectorizes instead of calling libm's pow per element. A negative k stays pow (powi's
`1 / x ** -k` gave 0 for subnormal powers: found by a probe). Values against NumPy (within the
roundings of the products; the special values exactly), gradients against central differences, the
interpreter and the pullback; the optimized LLVM IR calls no pow where k is such a constant
and keeps pow where it is not. And `n ** 2` of an int raises OverflowError past 64 bits, as
`n * n` does (it wrapped to 0)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python

EXPONENTS = [3, 4, 5, 7, 8, 16, -1, -2, -3, -6, -16]


@pytest.mark.parametrize("k", EXPONENTS)
def test_values_within_the_documented_roundings_of_numpys(k):
    """|k| - 1 products (and a division for k < 0), each rounding once, against the
    correctly rounded power: relative error below |k| + 1 units of 2^-52."""
    f = pyad.jit_grad(lambda x: x ** k)
    x = np.random.default_rng(k + 20).uniform(0.3, 3.0, 2000) * np.where(
        np.arange(2000) % 2, 1.0, -1.0)
    got, want = f(x), x ** k
    np.testing.assert_allclose(got, want, rtol=(abs(k) + 1) * np.finfo(float).eps, atol=0.0)


@pytest.mark.parametrize("k", EXPONENTS)
def test_special_values_are_numpys(k):
    f = pyad.jit_grad(lambda x: np.power(x, k))
    x = np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 1e200, -1e200, 1e-200])
    with np.errstate(all="ignore"):
        want = np.power(x, float(k))
    got = f(x)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(got, want)


def powers(x, y):
    return np.sum(x ** 3 - 2.0 * x ** 4 + y ** -2) + math.pow(x[0], 5) + x[1] ** -1 \
        + np.sum(np.power(y, 7.0))


def test_gradients():
    rng = np.random.default_rng(3)
    check_against_python(powers, rng.uniform(0.5, 1.5, 6), rng.uniform(-1.5, -0.5, 6))


def lennard_jones(x):
    n = x.shape[0]
    D = x[:, None, :] - x[None, :, :]
    r2 = np.sum(D * D, axis=-1) + np.eye(n)
    inv6 = 1.0 / r2 ** 3
    return np.sum(np.triu(4.0 * (inv6 * inv6 - inv6), 1))


def test_a_lennard_jones_energy():
    check_against_python(lennard_jones, np.random.default_rng(4).normal(size=(5, 3)) * 2.0)


def test_the_llvm_ir_calls_pow_only_where_the_exponent_is_not_such_a_constant():
    def mixed(x, p):
        return np.sum(x ** 3 + x ** -4) + np.sum(x ** p) + np.sum(x ** 2.5) + x[0] ** 17
    f = pyad.jit_grad(mixed, argnums=0)
    args = (np.linspace(0.5, 1.5, 9), 3.0)
    for text in (f.llvm_ir(*args), f.llvm_ir(*args, gradient=True)):
        calls = {c for c in ("llvm.powi.", "llvm.pow.f64", "@pow(")
                 for line in text.splitlines() if "call" in line and c in line}
        assert "llvm.powi." in calls                         # x ** 3 (and d/dx)
        assert calls & {"llvm.pow.f64", "@pow("}             # x ** -4, p, 2.5, 17


def reciprocal_powers(x):
    return x ** -16.0 + x ** -3.0 + x ** -1.0


def test_negative_powers_that_are_subnormal_are_numpys():
    """1 / x ** 16 overflows to 1 / inf = 0 where x ** -16 is a subnormal number."""
    f = pyad.jit_grad(reciprocal_powers)
    for x in (1e20, 3e19, 1e104, 1e155):
        with np.errstate(all="ignore"):
            assert f(x) == reciprocal_powers(x)
    g = pyad.jit_grad(lambda x: x ** -2.0)
    assert g.grad(1e104) == -2.0 * 1e104 ** -3.0


def int_square(n):
    return n ** 2


def test_an_int_square_past_64_bits_raises_overflowerror():
    f = pyad.jit_grad(int_square)
    assert f(3_000_000_000) == 9_000_000_000_000_000_000
    with pytest.raises(OverflowError, match="64 bits"):
        f(2 ** 40)
