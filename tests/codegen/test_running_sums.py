"""Running float sums keep their sequential order, and stay right where a loop also writes
what it sums. Until LLVM's `-force-ordered-reductions` was dropped (codegen/passes.py says
why), the loop vectorizer computed the terms of `s += math.exp(x[i]) * w[i]` in vector lanes;
in a loop that read an element into the sum and then wrote the element, tail-folded
because its trip count is small, the vector code stored before it loaded: wrong values in
the primal (`s += v[i]; v[i] = 0.0`) and wrong gradients (the reverse sweep reads and clears
a shadow that way: `w[2::-1] = x`). Checked here: those programs, value and gradient; the
result is exactly the sequential sum of the terms for every size 0..70 and a large one; f,
value_and_grad, grad and pullback agree bit for bit; gradients against central differences
and the interpreter (tests/arrays/harness.py, check_function)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..arrays.harness import check_function, compiled

SIZES = list(range(71)) + [10_001]


def exp_weighted(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.exp(x[i]) * w[i]
    return s


def exp_weighted_terms(x, w):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i]) * w[i]
    return out


def log1p_while(x, c):
    s = 0.0
    i = 0
    while i < len(x):
        s += c * math.log1p(x[i] * x[i])
        i += 1
    return s


def log1p_terms(x, c):
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = c * math.log1p(x[i] * x[i])
    return out


def tanh_column(A, j):
    s = 0.0
    for r in range(A.shape[0]):
        s += math.tanh(A[r, j] - 0.5)
    return s


def tanh_column_terms(A, j):
    out = np.empty(A.shape[0])
    for r in range(A.shape[0]):
        out[r] = math.tanh(A[r, j] - 0.5)
    return out


def fused_sum(x, w):
    return np.sum(np.exp(x) * w)


def fused_mean(x):
    return np.mean(np.tanh(x) * x)


def tanh_times_x(x):
    return np.tanh(x) * x


def running(terms: np.ndarray) -> float:
    """The sum of `terms` in order, as CPython's `s += t` computes it."""
    acc = 0.0
    for t in terms:
        acc += float(t)
    return acc


def _data(n: int):
    rng = np.random.default_rng(n)
    return rng.normal(size=n) * 3.0, rng.normal(size=n)


def bits(v) -> list:
    return [np.asarray(a, dtype=np.float64).view(np.int64).tolist()
            for a in (v if isinstance(v, tuple) else (v,))]


def assert_same_bits_everywhere(f, args: tuple, what) -> None:
    """f, value_and_grad and pullback give the same value; grad, value_and_grad and
    back(1.0) the same gradient, bit for bit."""
    v = f(*args)
    value, grad = f.value_and_grad(*args)
    y, back = f.pullback(*args)
    assert bits(value) == bits(v) and bits(y) == bits(v), what
    for got in (f.grad(*args), back(1.0)):
        assert bits(got) == bits(grad), what


def summed_then_cleared(b):
    a = b * 1.0
    v = a[:3]
    s = 0.0
    for i in range(v.shape[0]):
        s += v[i]
        v[i] = 0.0
    return s + np.sum(a)


def reversed_slice_store(x, b):
    w = b * 1.0
    w[2::-1] = x
    return np.sum(w)


def test_a_loop_that_sums_and_then_writes_an_element():
    """The miscompile's primal (pyad gave 0.4) and gradient (0.0 for 3.0) cases."""
    b = np.array([0.1, 0.2, 0.3, 0.4])
    assert pyad.jit_grad(summed_then_cleared)(b) == summed_then_cleared(b)
    check_function(summed_then_cleared, (b,))
    f = pyad.jit_grad(reversed_slice_store)
    assert f.grad(0.5, b) == 3.0
    assert f.value_and_grad(0.5, b)[1] == 3.0
    check_function(reversed_slice_store, (0.5, b))


@pytest.mark.parametrize("n", SIZES)
def test_loop_sums_are_the_sequential_sums_of_their_terms(n):
    """The compiled terms (same kernels, same bits in vector and scalar code) added in order
    by Python give the compiled sum's bits: the vector loop kept the order."""
    x, w = _data(n)
    assert compiled(exp_weighted)(x, w) == running(compiled(exp_weighted_terms)(x, w))
    assert compiled(log1p_while)(x, 0.7) == running(compiled(log1p_terms)(x, 0.7))
    A = np.stack([x, w, x * w], axis=1) if n else np.zeros((0, 3))
    assert compiled(tanh_column)(A, 2) == running(compiled(tanh_column_terms)(A, 2))
    if n:  # a sum pyad generates from an expression: a running sum too
        assert compiled(fused_mean)(x) == running(compiled(tanh_times_x)(x)) / n


@pytest.mark.parametrize("fn", [exp_weighted, log1p_while, fused_sum, fused_mean],
                         ids=lambda f: f.__name__)
def test_the_same_bits_in_f_value_and_grad_grad_and_pullback(fn):
    f = compiled(fn)
    for n in SIZES:
        x, w = _data(n)
        args = {exp_weighted: (x, w), fused_sum: (x, w), log1p_while: (x, 0.7),
                fused_mean: (x,)}[fn]
        assert_same_bits_everywhere(f, args, n)


def test_loop_sums_are_close_to_numpy():
    """Values against NumPy (libm's exp, pairwise sum): the kernels' error (<= 0.73 ulp
    for exp, docs/vecmath.md) plus both summation errors, bounded by n 2^-52 sum|t|."""
    x, w = _data(10_001)
    want = np.sum(np.exp(x) * w)
    bound = 2.0 ** -52 * (len(x) + 2) * np.sum(np.abs(np.exp(x) * w))
    assert abs(compiled(exp_weighted)(x, w) - want) <= bound
    assert abs(compiled(fused_sum)(x, w) - want) <= bound


@pytest.mark.parametrize("fn, args", [
    (exp_weighted, _data(37)),
    (log1p_while, (_data(37)[0], 1.3)),
    (fused_sum, _data(37)),
    (fused_mean, (_data(37)[0],)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_gradients_against_finite_differences_and_the_interpreter(fn, args):
    check_function(fn, args)


def test_a_column_sum_and_its_gradient():
    A = np.random.default_rng(3).normal(size=(29, 4))
    check_function(tanh_column, (A, 2))
    assert math.isclose(compiled(tanh_column)(A, 2), float(np.sum(np.tanh(A[:, 2] - 0.5))),
                        rel_tol=1e-14)
