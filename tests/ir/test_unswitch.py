"""Loops versioned for operands that do not broadcast (pyad/ir/unswitch.py): the copy for
sizes other than 1 reads its operands without broadcast selects, and both versions compute
what NumPy does, values and gradients (finite differences, the interpreter, the pullback),
for sizes that broadcast and sizes that do not."""
import numpy as np
import pytest

import pyad
from pyad.ir.nodes import If, Op, While, walk
from tests.gradients import assert_gradients


def outer_weighted(m, w):
    return np.sum(np.tanh(m[:, None] * m[None, :]) * w)


def affine(X, W, b):
    return np.sum(np.tanh(X @ W + b) ** 2)


def pairwise(p, q):
    d = p[:, None, :] - q[None, :, :]
    return np.sum(np.sqrt(np.sum(d * d, axis=2) + 0.5))


def scaled_rows(A, s):
    return np.sum((A * s[:, None] - A.mean(axis=0)) ** 2)


CASES = {
    "outer_weighted": (outer_weighted, [((4,), (4, 4)), ((1,), (3, 3)), ((3,), (1, 3)),
                                        ((3,), (3, 1)), ((1,), (1, 1))]),
    "affine": (affine, [((5, 3), (3, 2), (2,)), ((5, 3), (3, 2), (1,)), ((1, 3), (3, 1), (1,)),
                        ((4, 1), (1, 3), (3,))]),
    "pairwise": (pairwise, [((4, 3), (5, 3)), ((1, 3), (5, 3)), ((4, 3), (1, 3)),
                            ((4, 1), (2, 1)), ((3, 2), (3, 1))]),
    "scaled_rows": (scaled_rows, [((4, 3), (4,)), ((4, 3), (1,)), ((1, 3), (1,)),
                                  ((1, 1), (1,))]),
}


def _versions(f, *args) -> list[If]:
    """The Ifs of the primal IR whose branches are a loop nest each (the versions)."""
    spec = f.specialization(args)
    return [s for s in walk(spec.func.block) if isinstance(s, If)
            and any(isinstance(t, While) for t in s.then.body)
            and any(isinstance(t, While) for t in s.orelse.body)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_versions_agree_with_numpy_for_broadcasting_and_plain_sizes(name):
    fn, shapes = CASES[name]
    f = pyad.jit_grad(fn, argnums="all")
    rng = np.random.default_rng(len(name))
    for shape in shapes:
        args = [rng.normal(size=s) * 0.7 for s in shape]
        assert f(*args) == pytest.approx(fn(*args), rel=1e-12), shape
        assert_gradients(f, *args)
    versions = _versions(f, *[rng.normal(size=s) for s in shapes[0]])
    assert versions, "no loop was versioned"
    for v in versions:  # the copy for sizes other than 1 has no broadcast index left
        plain = [s for s in walk(v.orelse) if isinstance(s, Op) and s.op == "select"
                 and s.outs[0].type == "i64"]
        assert not plain, plain


def test_mismatched_sizes_still_raise():
    f = pyad.jit_grad(outer_weighted)
    with pytest.raises(ValueError, match="could not be broadcast"):
        f(np.ones(3), np.ones((2, 3)))


def test_a_loop_without_broadcasting_is_left_alone():
    def f(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i] * x[i]
        return s
    jf = pyad.jit_grad(f)
    assert not _versions(jf, np.ones(3))
