"""The shape of a whole-array result is known from its arguments' (the rows' `dims`,
ir/shapes.py): `np.sum(e, axis=1, keepdims=True)` has one column, so `e / s` reads `s` at
column 0 with no broadcasting test left in its loop. Before, the test stayed, loop
versioning's copy for "nothing broadcasts" never ran, and the gradient loop of a softmax
entropy stayed scalar (35 ns an element against 13 now)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import pyad


def softmax_entropy(A):
    e = np.exp(A - np.max(A, axis=1, keepdims=True))
    p = e / np.sum(e, axis=1, keepdims=True)
    return -np.sum(p * np.log(p + 1e-12))


def normalized(x, w):
    s = np.sum(x * x, axis=0, keepdims=True)
    return np.sum(w * x / s)


def test_a_keepdims_sum_is_read_at_its_one_column_without_a_test():
    """No broadcasting check and no index select is left (before: 2 checks, 13 selects)."""
    A = np.random.default_rng(0).standard_normal((6, 5))
    ir = pyad.jit_grad(softmax_entropy).ir(A)
    assert "could not be broadcast" not in ir and " select " not in ir, ir


@pytest.mark.parametrize("shape", [(6, 5), (1, 5), (6, 1), (1, 1)])
def test_values_and_gradients_for_every_broadcasting_shape(shape):
    A = np.random.default_rng(1).standard_normal(shape)
    f = pyad.jit_grad(softmax_entropy)
    assert f(A) == pytest.approx(softmax_entropy(A), rel=1e-12, abs=1e-14)
    pyad.check_grad(f, A)
    g = pyad.jit_grad(normalized, argnums=(0, 1))
    w = np.random.default_rng(2).standard_normal(shape)
    assert g(A, w) == pytest.approx(normalized(A, w), rel=1e-12)
    pyad.check_grad(g, A, w)


def test_the_gradient_loop_of_a_softmax_entropy_vectorizes():
    A = np.random.default_rng(3).standard_normal((8, 64))
    ir = pyad.jit_grad(softmax_entropy).llvm_ir(A, gradient=True)
    assert re.search(r"fdiv <\d+ x double>", ir)
