"""NumPy functions a probe of ordinary array code found missing, now compiled: `np.select`
(the first true condition's choice, `default` elsewhere), `np.rot90` (every k, other axes,
3-D), `np.concatenate(parts, axis=None)` (the parts flattened); and `np.piecewise`, whose
list of functions pyad cannot hold, refused before that list is read (it was an internal
error) with what to write instead. Each checked by the harness: value against NumPy,
gradient against central differences and the interpreter, and on strided inputs."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from .harness import check_function, relayout


def huber_by_select(x):
    return np.sum(np.select([np.abs(x) < 0.5, x > 0], [0.5 * x * x, x - 0.125],
                            default=-x - 0.125))


def select_first_true_wins(x):
    """Overlapping conditions: the first one that holds picks; numbers broadcast."""
    return np.sum(np.select([x > 0.2, x > -0.1], [np.sin(x), 2.0]) * x)


def select_tuples_default_zero(x, v):
    return np.sum(np.select((x < v, x >= v), (x * v, np.exp(x))) ** 2)


def select_of_named_lists(x):
    conds = [x > 0, x < -0.5]
    cases = [np.log1p(x * x), x ** 3]
    return np.sum(np.select(conds, cases, 1.5) * x)


def rotations(x):
    w = np.arange(x.size + 0.0).reshape(x.shape[1], x.shape[0])
    return np.sum(np.rot90(x) * w) + np.sum(np.rot90(x, 2) * x ** 2) + \
        np.sum(np.rot90(x, k=3) * w ** 0.5) + np.sum(np.rot90(x, -1) * w * w)


def rotation_other_axes(x):
    return np.sum(np.rot90(x, 1, axes=(1, 0)) * np.arange(x.size + 1.0)[1:].reshape(
        x.shape[1], x.shape[0])) + np.sum(np.rot90(x, k=4) * x)


def rotation_of_3d(x):
    t = np.stack([x, x * x])
    return np.sum(np.rot90(t, axes=(0, 2))[:, :, 0] ** 2) + np.sum(np.sin(np.rot90(t, 3, (2, 1))))


def concatenate_flattened(x, v):
    return np.sum(np.concatenate([x, v, x.T], axis=None) * np.arange(2.0 * x.size + v.size))


X = np.sin(np.arange(12.0) * 0.7 + 0.3).reshape(3, 4)
V = np.cos(np.arange(4.0) * 1.3)
CASES = [(huber_by_select, (X,)), (select_first_true_wins, (X,)),
         (select_tuples_default_zero, (X, V)), (select_of_named_lists, (X,)), (rotations, (X,)),
         (rotation_other_axes, (X,)), (rotation_of_3d, (X,)), (concatenate_flattened, (X, V))]
IDS = [fn.__name__ for fn, _ in CASES]


@pytest.mark.parametrize("fn,args", CASES, ids=IDS)
def test_values_and_gradients(fn, args):
    check_function(fn, args)


@pytest.mark.parametrize("fn,args", CASES, ids=IDS)
def test_on_strided_inputs(fn, args):
    check_function(fn, tuple(relayout(a, "strided")[0] for a in args))


def test_rot90_of_one_row_and_one_column():
    check_function(rotations, (X[:1],))
    check_function(rotations, (X[:, :1],))


def piecewise(x):
    return np.sum(np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * v]))


def array_of_functions(x):
    return np.sum(np.array([lambda v: v, lambda v: 2 * v]))


def select_of_unequal_lists(x):
    return np.sum(np.select([x > 0, x < -0.5], [x]))


def rot90_same_axes(x):
    return np.sum(np.rot90(x, axes=(1, 1)))


@pytest.mark.parametrize("fn,needle,hint", [
    (piecewise, "unsupported numpy function `np.piecewise`", "np.select"),
    (array_of_functions, "not numbers or arrays (a function)", "np.where"),
    (select_of_unequal_lists, "same length as", ""),
    (rot90_same_axes, "must be two different axes", ""),
], ids=lambda v: v.__name__ if callable(v) else None)
def test_refusals_say_what_to_write(fn, needle, hint):
    with pytest.raises((pyad.PyadTypeError, pyad.PyadSyntaxError)) as info:
        pyad.jit_grad(fn)(X)
    text = str(info.value)
    assert needle in text and hint in text and "test_select_rot90.py" in text
