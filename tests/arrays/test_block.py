"""`np.block` (pyad/frontend/creation.py): nested lists of arrays joined as NumPy does, with
leading axes of size 1 added up to the nesting depth. Each checked by the harness: value
against NumPy, gradient against central differences and the interpreter, and on
non-contiguous inputs; the refusals name the construct."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from .harness import check_function, relayout


def vector_blocks_in_a_grid(x):
    """1-D blocks nested two deep: each becomes a row."""
    return np.sum(np.block([[x[:2], x[2:4]], [x[1:3], 2.0 * x[:2]]]) ** 2 * np.arange(8.0).reshape(2, 4))


def matrix_grid(x):
    a = np.outer(x, x)
    return np.sum(np.sin(np.block([[a, 2.0 * a], [a[:1], x[None, :] * x[None, :]]])) * 0.5)


def flat(x):
    return np.sum(np.exp(np.block([x, -x, x[:1]])) * np.linspace(0.0, 1.0, 2 * len(x) + 1))


def three_deep(m):
    return np.sum(np.block([[[m, m * m]], [[np.tanh(m), m]]]) ** 3)


X = np.array([0.3, -1.2, 0.7, 2.0])
M = np.array([[0.5, -0.25], [1.5, 0.75], [-0.3, 0.2]])
CASES = [(vector_blocks_in_a_grid, (X,)), (matrix_grid, (X,)), (matrix_grid, (X[:3],)),
         (flat, (X,)), (three_deep, (M,))]
IDS = [f"{fn.__name__}-{args[0].shape}" for fn, args in CASES]


@pytest.mark.parametrize("fn,args", CASES, ids=IDS)
def test_values_and_gradients(fn, args):
    check_function(fn, args)


@pytest.mark.parametrize("fn,args", CASES, ids=IDS)
def test_on_strided_inputs(fn, args):
    check_function(fn, tuple(relayout(a, "strided")[0] for a in args))


def of_a_tuple(x):
    return np.sum(np.block((x, x)))


def mismatched_depths(x):
    return np.sum(np.block([[x], x]))


def ragged(x):
    return np.sum(np.block([[x, x], [x]]))


def test_refusals_and_errors():
    with pytest.raises(pyad.PyadTypeError, match="with lists, not tuples") as e:
        pyad.jit_grad(of_a_tuple)(X)
    assert "np.block((x, x))" in str(e.value)
    with pytest.raises(pyad.PyadTypeError, match="list depths are mismatched"):
        pyad.jit_grad(mismatched_depths)(X)
    with pytest.raises(ValueError, match="dimensions except for the concatenation axis"):
        ragged(X)
    with pytest.raises(ValueError, match="dimensions except for the concatenation axis"):
        pyad.jit_grad(ragged)(X)
