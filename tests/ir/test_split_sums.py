"""Running sums split from the work of the loops that compute their terms
(pyad/ir/split_sums.py), and indices known to be non-negative (pyad/ir/indices.py): the same
bits as the loops as written, for the loops the pass applies to and the ones it leaves."""
import math

import numpy as np
import pytest

import pyad
from pyad import pipeline
from pyad.ir.split_sums import BLOCK

SIZES = (0, 1, 3, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 5)


def one_term(x, y):
    s = 0.0
    for i in range(len(x)):
        s += math.sqrt(x[i] * x[i] + y[i] * y[i] + 1.0) * math.sqrt(y[i] * y[i] + 2.0)
    return s


def two_terms(x, y):
    s = 1.0
    for i in range(len(x)):
        r = math.sqrt(x[i] * x[i] + 0.5)
        s -= r * y[i]
        s += math.sqrt(r + y[i] * y[i]) * x[i]
    return s


def two_sums(x, y):
    s, t = 0.0, 0.0
    for i in range(len(x)):
        r = math.sqrt(x[i] * x[i] + y[i] * y[i] + 0.25)
        s += r * x[i]
        t += math.sqrt(r) * y[i] - x[i]
    return s - 2.0 * t


def by_three(x, y):
    s = 0.0
    for i in range(1, len(x), 3):
        s += math.sqrt(x[i] * x[i] + 3.0) * math.sqrt(y[i - 1] * y[i - 1] + x[i] * x[i] + 1.0)
    return s


def backwards(x, y):
    s = 0.0
    for i in range(len(x) - 1, -1, -1):
        s += math.sqrt(x[i] * x[i] + 3.0) * math.sqrt(y[i] * y[i] + x[i] * x[i] + 1.0)
    return s


def pairs(x, y):
    e = 0.0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            e -= math.sqrt(dx * dx + dy * dy + 0.01) * math.sqrt(dx * dx + 1.0)
    return e


def dividing(x, y):
    s = 0.0
    for i in range(len(x)):
        s += math.sqrt(x[i] * x[i] + 1.0) / math.sqrt(y[i] * y[i] + 1.0) * x[i]
    return s


def dividing_into_a_copy(x, y):
    s = 0.0
    h = y.copy()
    for i in range(len(x)):
        h[i] = math.sqrt(x[i] * x[i] + 1.0) / y[i]
        s += h[i] * math.sqrt(h[i] * h[i] + 2.0)
    return s


def inverse_distances(x, y):
    """Little work but a square root and a division (the divider's work, not hidden behind
    the sum's chain of adds: split_sums._pays)."""
    s = 0.0
    for i in range(len(x)):
        s += y[i] / math.sqrt(x[i] * x[i] + 0.01)
    return s


def ratios(x, y):
    s = 0.0
    for i in range(len(x)):
        s += x[i] / (1.0 + y[i] * y[i])
    return s


def norms(x, y):
    s = 0.0
    for i in range(len(x)):
        s += math.sqrt(x[i] * x[i] + y[i] * y[i])
    return s


LOOPS = [one_term, two_terms, two_sums, by_three, pairs, dividing, dividing_into_a_copy,
         inverse_distances, ratios, norms]


def _args(n, seed=0):
    rng = np.random.default_rng(seed + n)
    return rng.standard_normal(n), rng.standard_normal(n)


def _split(f, args) -> bool:
    """Whether a loop of the primal or of the gradient kernels of `f` at `args` is split."""
    primal = str(pipeline.native(f.specialization(args, {}).func))
    return "pyad/ir/split_sums.py" in primal + f.grad_ir(*args)


def _compiled(fn, monkeypatch, split: bool):
    with monkeypatch.context() as m:
        if not split:
            m.setattr(pipeline, "split_sums", lambda func, outputs=frozenset(): func)
        f = pyad.jit_grad(fn, argnums=(0, 1), cache=False)
        x, y = _args(5)
        f.value_and_grad(x, y)  # compiles the value-and-gradient kernel here
        f.pullback(x, y)
        f(x, y)
    return f


@pytest.mark.parametrize("fn", LOOPS, ids=lambda f: f.__name__)
def test_split_loops_give_the_bits_of_the_loops_as_written(fn, monkeypatch):
    split, whole = _compiled(fn, monkeypatch, True), _compiled(fn, monkeypatch, False)
    assert _split(split, _args(3))
    for n in SIZES if fn is not pairs else (0, 2, 40, BLOCK + 20):
        x, y = _args(n)
        value = fn(x, y)  # CPython: the same adds in the same order, sqrt correctly rounded
        assert split(x, y) == value and whole(x, y) == value
        v1, g1 = split.value_and_grad(x, y)
        v2, g2 = whole.value_and_grad(x, y)
        assert v1 == v2 == value
        for a, b in zip(g1, g2):
            np.testing.assert_array_equal(a, b)
        out, back = split.pullback(x, y)
        for a, b in zip(back(1.0), g1):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("fn", LOOPS, ids=lambda f: f.__name__)
def test_split_loop_gradients_match_finite_differences(fn):
    f = pyad.jit_grad(fn, argnums=(0, 1))
    x, y = _args(BLOCK + 3 if fn is not pairs else 20)
    gx, gy = f.grad(x, y)
    h = 1e-6
    for g, which in ((gx, 0), (gy, 1)):
        for k in (0, len(x) // 2, len(x) - 1):
            d = np.zeros_like(x)
            d[k] = h
            plus = fn(*(a + d if j == which else a for j, a in enumerate((x, y))))
            minus = fn(*(a - d if j == which else a for j, a in enumerate((x, y))))
            assert g[k] == pytest.approx((plus - minus) / (2 * h), rel=1e-5, abs=1e-6)


def array_style(x, y):
    return np.sum(np.sqrt(x * x + 1.0) * np.tanh(y) + np.sqrt(y * y + x * x + 2.0))


def test_array_sums_of_expressions_split_with_the_same_bits(monkeypatch):
    split = _compiled(array_style, monkeypatch, True)
    whole = _compiled(array_style, monkeypatch, False)
    for n in SIZES:
        x, y = _args(n)
        v1, g1 = split.value_and_grad(x, y)
        v2, g2 = whole.value_and_grad(x, y)
        assert v1 == v2 == split(x, y)
        for a, b in zip(g1, g2):
            np.testing.assert_array_equal(a, b)
    x, y = _args(9)
    gx, _ = split.grad(x, y)
    np.testing.assert_allclose(gx, x / np.sqrt(x * x + 1.0) * np.tanh(y)
                               + x / np.sqrt(y * y + x * x + 2.0), rtol=1e-12, atol=1e-15)


def dot(x, y):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * y[i]
    return s


def dividing_twice(x, y):
    s = 0.0
    for i in range(len(x)):
        s += math.sqrt(x[i] * x[i] + 1.0) / y[i] + x[i] / math.sqrt(y[i] * y[i] + 1.0)
    return s


def branching(x, y):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            s += math.sqrt(x[i] * x[i] + y[i] * y[i] + 1.0) * math.exp(x[i]) * y[i]
    return s


@pytest.mark.parametrize("fn", [inverse_distances, ratios, norms], ids=lambda f: f.__name__)
def test_a_sum_of_divisions_or_square_roots_is_split(fn):
    """Division and square root run on one unit, one at a time when scalar: a loop whose
    little work includes them is split in the primal too (1.4-3.7x faster, measured)."""
    f = pyad.jit_grad(fn, cache=False)
    args = _args(BLOCK + 1)
    assert "pyad/ir/split_sums.py" in str(pipeline.native(f.specialization(args, {}).func))
    assert f(*args) == fn(*args)


@pytest.mark.parametrize("fn", [dot, dividing_twice, branching, backwards],
                         ids=lambda f: f.__name__)
def test_loops_left_alone(fn):
    """A sum with little work per trip (as fast scalar), two checked divisions (which one
    raises first is a matter of trips), a
    branch (does not vectorize) and a loop counting down (its loads of arrays of unknown
    stride become gathers) stay as written."""
    f = pyad.jit_grad(fn)
    x, y = _args(BLOCK + 1)
    assert not _split(f, (x, y))
    assert f(x, y) == pytest.approx(fn(x, y), rel=1e-14)


def reads_past_the_end(x, y):
    s = 0.0
    for i in range(len(x)):
        s += math.sqrt(x[i] * x[i] + 1.0) * math.sqrt(y[i] * y[i] + 2.0) * x[i + 1]
    return s


def test_index_errors_in_split_loops_name_the_line():
    f = pyad.jit_grad(reads_past_the_end)
    x, y = _args(BLOCK + 2)
    assert _split(f, (x, y))
    line = reads_past_the_end.__code__.co_firstlineno + 3
    for call in (f, f.grad, f.value_and_grad):
        with pytest.raises(IndexError, match=f"line {line}"):
            call(x, y)


def wraps(x):
    s = 0.0
    for i in range(len(x)):
        s += math.sqrt(x[i - 1] * x[i - 1] + 1.0) * math.sqrt(x[i] * x[i] + 2.0) * x[i]
    return s


def test_negative_indices_still_wrap():
    """`x[i - 1]` at i = 0 reads x[-1]: the first block runs the loop as written (its index
    may be negative), the others without checks."""
    f = pyad.jit_grad(wraps)
    for n in (1, 5, BLOCK + 1, 3 * BLOCK):
        x = _args(n)[0]
        assert f(x) == wraps(x)
        assert f.value_and_grad(x)[0] == wraps(x)
    assert _split(f, (x,))


def over_y(x, y):
    s = 0.0
    for i in range(len(x)):
        s += math.sqrt(x[i] * x[i] + 1.0) / y[i] * x[i]
    return s


def test_a_zero_divisor_raises_for_its_line():
    """The block checks its division after its trips: the same ZeroDivisionError, naming
    the line, wherever the zero is (first block, a later block, the last trip)."""
    f = pyad.jit_grad(over_y)
    x, y = _args(3 * BLOCK + 5)
    assert _split(f, (x, y))
    assert f(x, y) == over_y(x, y)
    line = over_y.__code__.co_firstlineno + 3
    for at in (0, 5, BLOCK + 7, 3 * BLOCK + 4):
        z = y.copy()
        z[at] = 0.0
        with pytest.raises(ZeroDivisionError):
            over_y(x.tolist(), z.tolist())  # Python floats (NumPy scalars give inf)
        for call in (f, f.grad, f.value_and_grad):
            with pytest.raises(ZeroDivisionError, match=f"line {line}"):
                call(x, z)


def exp_of_reciprocals(x, y):
    s = 0.0
    for i in range(len(x)):
        s += math.exp(-1.0 / x[i]) + y[i] * y[i]
    return s


@pytest.mark.parametrize("fn", [over_y, exp_of_reciprocals], ids=lambda f: f.__name__)
def test_gradient_loops_with_a_division_are_split(fn, monkeypatch):
    """The value-and-gradient loop adds into the gradients (shadows the callers discard when
    the call fails), so its division is checked for the block as in the primal: the loop is
    split (exp_of_reciprocals: value and gradient 5.5x -> 1.5x its primal, measured), with
    the bits of the loop as written, and a zero divisor raises from it as before."""
    x, y = _args(3 * BLOCK + 5)
    x = np.abs(x) + 0.5
    f = pyad.jit_grad(fn, argnums=(0, 1), cache=False)
    fused = f.specialization((x, y), {}).gradient(f.argnums).fused
    assert "pyad/ir/split_sums.py" in str(fused)
    whole = _compiled(fn, monkeypatch, False)
    value, grads = f.value_and_grad(x, y)
    v2, g2 = whole.value_and_grad(x, y)
    assert value == v2
    for a, b in zip(grads, g2):
        np.testing.assert_array_equal(a, b)
    z = x.copy() if fn is exp_of_reciprocals else y.copy()
    z[BLOCK + 7] = 0.0
    args = (z, y) if fn is exp_of_reciprocals else (x, z)
    for call in (f.grad, f.value_and_grad):
        with pytest.raises(ZeroDivisionError, match=f"line {fn.__code__.co_firstlineno + 3}"):
            call(*args)
