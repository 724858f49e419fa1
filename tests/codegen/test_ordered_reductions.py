"""Running float sums vectorize in their sequential order: with LLVM's
`-force-ordered-reductions` (codegen/jit.py, LLVM_OPTIONS) the loop vectorizer computes the
terms of `s += math.exp(x[i]) * w[i]` in vector lanes and adds them to `s` one after the
other (`llvm.vector.reduce.fadd` with the running sum as its start value, no `reassoc`), so
the result keeps CPython's bits. Checked here: the vector path is taken on user loops of
several shapes, fused `np.sum`/`np.mean` of expressions and their gradients; the result is
exactly the sequential sum of the terms for every size 0..70 and a large one; f,
value_and_grad, grad and pullback agree bit for bit; gradients against central differences
and the interpreter (tests/arrays/harness.py, check_function)."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

from pyad.codegen import jit

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


def _vector_reductions(ir: str) -> int:
    return len(re.findall(r"call [^\n]*@llvm\.vector\.reduce\.fadd\.v\d+f64\(double", ir))


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


def test_the_option_is_set_once_where_llvm_is_initialised():
    assert "-force-ordered-reductions" in jit.LLVM_OPTIONS


@pytest.mark.parametrize("fn, args, gradients", [
    (exp_weighted, _data(40), (False, True)),
    (log1p_while, (_data(40)[0], 1.5), (False, True)),
    (tanh_column, (np.ones((40, 3)), 1), (False, True)),
    (fused_sum, _data(40), (False,)),
    (fused_mean, (_data(40)[0],), (False, True)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_running_sums_take_the_ordered_vector_path(fn, args, gradients):
    """Primal and gradient: the terms in vector lanes (the exp/log1p/tanh kernels on
    `<N x double>`), the adds in order (vector.reduce.fadd, strict: no reassoc flag). Not
    the gradient of a fused sum of two arrays that may broadcast (fused_sum): its forward
    loop accumulates the adjoints at `select(dim == 1, 0, i)`, which LLVM does not
    vectorize, with or without the ordered sum."""
    f = compiled(fn)
    for gradient in gradients:
        ir = f.llvm_ir(*args, gradient=gradient)
        assert _vector_reductions(ir) >= 1, (fn.__name__, gradient)
        assert not re.search(r"call (reassoc|fast)[^\n]*vector\.reduce\.fadd", ir)
        assert re.search(r"fmul <\d+ x double>", ir)


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
