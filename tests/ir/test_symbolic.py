"""Sizes as functions of one dimension (pyad/ir/symbolic.py) and what shapes.py folds with
them: the checks and broadcast indices of operands whose sizes are equal for every size of
the argument. Oracles: exhaustive evaluation of the sizes, NumPy, central finite differences
and the interpreter, on every size from 0 to 5 (the edge sizes 0, 1 and 2 included)."""
import random

import numpy as np
import pytest

import pyad
from pyad.ir import symbolic
from pyad.ir.nodes import Op, While, walk
from pyad.ir.ops import OPS
from tests.gradients import assert_gradients

N = symbolic.of_dimension("n")


def _random_expr(rng: random.Random, depth: int):
    """(Sym or None, a Python function of n) for a random size expression."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.5:
            return N, lambda n: n
        c = rng.randint(-4, 4)
        return symbolic.of_constant(c), lambda n, c=c: c
    op = rng.choice(["add", "sub", "min", "max", "select", "neg", "mulc"])
    a, fa = _random_expr(rng, depth - 1)
    b, fb = _random_expr(rng, depth - 1)
    if op == "neg":
        return symbolic.combine("neg", [a]), lambda n: -fa(n)
    if op == "mulc":
        k = rng.randint(-3, 3)
        return symbolic.combine("mul", [a, symbolic.of_constant(k)]), lambda n: fa(n) * k
    if op == "select":
        cmp = rng.choice(["eq", "lt", "le"])
        c, fc = _random_expr(rng, depth - 1)
        cond = symbolic.combine(cmp, [a, b])
        py = OPS[cmp].py
        return symbolic.combine("select", [cond, c, a]), \
            lambda n: fc(n) if py(fa(n), fb(n)) else fa(n)
    py = OPS[op].py
    return symbolic.combine(op, [a, b]), lambda n: py(fa(n), fb(n))


def test_equal_means_equal_for_every_size():
    """Pairs of random expressions: `equal` agrees with evaluation on n = 0..2000, and it
    finds the pairs that are equal (a sound test that also decides)."""
    rng = random.Random(7)
    decided = 0
    for _ in range(3000):
        (a, fa), (b, fb) = _random_expr(rng, 3), _random_expr(rng, 3)
        if a is None or b is None or a.symbol is None or b.symbol is None:
            continue
        truth = all(fa(n) == fb(n) for n in range(2001))
        assert symbolic.equal(a, b) == truth
        decided += truth
        for s, f in ((a, fa), (b, fb)):
            c = s.constant()
            if c is not None:
                assert all(f(n) == c for n in range(2001))
    assert decided > 50


def test_slice_lengths_are_equal_functions():
    # len(x[1:]) and len(x[:-1]) as the frontend computes them
    one, zero = symbolic.of_constant(1), symbolic.of_constant(0)
    lo = symbolic.combine("min", [one, N])
    tail = symbolic.combine("sub", [symbolic.combine("max", [N, lo]), lo])
    m = symbolic.combine("max", [symbolic.combine("add", [symbolic.of_constant(-1), N]), zero])
    head = symbolic.combine("max", [symbolic.combine("min", [m, N]), zero])
    assert symbolic.equal(head, tail)
    assert not symbolic.equal(head, N)
    assert symbolic.combine("mul", [N, N]) is None  # not linear
    assert symbolic.combine("add", [N, symbolic.of_dimension("m")]) is None  # two sizes


def _loop_selects(f, *args) -> int:
    spec = f.specialization(args)
    return sum(1 for s in walk(spec.func.block) if isinstance(s, Op) and s.op == "select"
               and any(isinstance(w, While) for w in walk(spec.func.block)))


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def second_difference(x):
    return np.sum((x[2:] - 2.0 * x[1:-1] + x[:-2]) ** 2)


def self_product(x):
    return np.sum(x * np.tanh(x))


def centered(x):
    return np.sum((x - np.mean(x)) ** 2)


def shifted_pairs(x):
    head = x[:-2]
    return np.sum(np.sin(head) * x[2:]) + np.sum(x[1:] * x[1:])


SPELLINGS = {f.__name__: f for f in (rosenbrock, second_difference, self_product, centered,
                                     shifted_pairs)}


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_equal_sizes_index_directly_and_gradients_are_right(name):
    fn = SPELLINGS[name]
    f = pyad.jit_grad(fn)
    x = np.linspace(-1.3, 1.7, 9)
    assert _loop_selects(f, x) == 0, "an index or size select is left in the loop"
    for n in range(6):  # edge sizes: empty results, one element, two
        xs = np.linspace(-1.1, 0.9, n)
        assert f(xs) == pytest.approx(fn(xs), rel=1e-12, abs=1e-12)
        if n:
            assert_gradients(f, xs)


def test_broadcasting_that_depends_on_the_sizes_stays_checked():
    """Sizes that are equal only for some n keep their checks and broadcast indices."""
    def f(x, y):
        return np.sum(x[1:] * y)
    jf = pyad.jit_grad(f)
    for n, m in ((3, 2), (3, 1), (2, 1), (1, 1), (4, 3)):
        x, y = np.arange(1.0, n + 1), np.linspace(0.5, 1.5, m)
        if n - 1 == m or m == 1 or n - 1 == 1:
            assert jf(x, y) == pytest.approx(f(x, y))
            assert_gradients(jf, x, y)
        else:
            with pytest.raises(ValueError, match="could not be broadcast"):
                jf(x, y)
    with pytest.raises(ValueError, match="could not be broadcast"):
        jf(np.ones(5), np.ones(3))
