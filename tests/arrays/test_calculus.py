"""np.gradient, np.trapezoid, np.convolve, np.pad (constant, edge, wrap, reflect, symmetric) and np.diff's prepend/append
(pyad/frontend/calculus.py, numpyfuncs.py): values against NumPy, gradients by the harness
(finite differences, the interpreter, the pullback's dot-product test) on several shapes
including the smallest each allows, int inputs and non-contiguous layouts; refusals
located."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..modules import assert_refused
from .harness import check_function, relayout

rng = np.random.default_rng(71)


def gradients_1d(v):
    return np.gradient(v), np.gradient(v, 0.5), np.gradient(v * v, 2.0, axis=0)


def gradients_nd(a):
    return np.gradient(a), np.gradient(a, axis=1), np.gradient(a, 0.1, axis=(-1,)), \
        np.gradient(a, axis=(0, 1))


def coordinates_1d(v, x):
    return np.gradient(v, x), np.gradient(v * v, x, edge_order=2), \
        np.gradient(v, 0.3, edge_order=2), np.gradient(v, np.arange(len(v)) * 0.5), \
        np.gradient(v, np.arange(len(v)), edge_order=2)


def coordinates_nd(a, x, y):
    gx, gy = np.gradient(a, x, y, edge_order=2)
    return gx, gy, np.gradient(a, 0.5, y), np.gradient(a, x, axis=0), \
        np.gradient(a, y, axis=-1, edge_order=1)


def trapezoids(a, x):
    return np.trapezoid(a), np.trapezoid(a, dx=0.5, axis=0), np.trapezoid(a, x), \
        np.trapezoid(a[0], x=x), np.trapezoid(a, a, axis=0), np.trapezoid(a, a)


def convolutions(a, v):
    return np.convolve(a, v), np.convolve(a, v, "same"), np.convolve(v, a, mode="same"), \
        np.convolve(a, v, mode="valid"), np.convolve(v, a, "valid")


def differences(a, v):
    return np.diff(v, prepend=0.0), np.diff(v, append=v[-1]), \
        np.diff(a, axis=0, prepend=a[:1] * 2.0, append=1.5), np.diff(v, 2, prepend=v[:2])


def pads(a, v):
    return np.pad(v, 1), np.pad(v, (2, 0), constant_values=1.5), np.pad(a, ((1, 0), (0, 2))), \
        np.pad(a, (1, 1), mode="constant", constant_values=-1.0), np.pad(a, 0), \
        np.pad(a, ((2,),)) * a[0, 0], np.pad(v, [1, 2]), np.pad(a, [(1, 0), [2, 1]]), \
        np.pad(a, [[1, 1]], mode="edge"), np.pad(a, [2], constant_values=0.5)


def padded_ints(k):
    return np.pad(k, 2, constant_values=7)


def pad_modes(a, v):
    return np.pad(v, 2, mode="edge"), np.pad(v, (1, 5), mode="wrap"), \
        np.pad(v, 5, mode="reflect"), np.pad(v, (4, 2), "symmetric"), \
        np.pad(a, ((1, 2), (3, 0)), mode="reflect") * a[0, 0], \
        np.pad(a, ((2, 1), (0, 4)), mode="symmetric"), np.pad(a, 3, mode="wrap"), \
        np.pad(a, ((0, 0), (2, 2)), mode="edge")


@pytest.mark.parametrize("shape", [(2, 3), (1, 1), (3, 2)])
def test_pad_modes_read_the_array(shape):
    a = rng.normal(size=shape)
    check_function(pad_modes, (a, rng.normal(size=shape[1])))
    check_function(pad_modes, (relayout(a, "transposed")[0], rng.integers(-3, 3, size=shape[0])))


def test_padding_an_empty_axis_raises_valueerror():
    f = pyad.jit_grad(edge_padded_sum)
    with pytest.raises(ValueError, match="can't extend an empty axis"):
        f(np.ones(0))
    assert f(np.ones(2)) == 4.0


def edge_padded_sum(v):
    return np.sum(np.pad(v, 1, mode="edge"))


@pytest.mark.parametrize("shape", [(2, 3), (1, 1)])
def test_pad_with_a_constant(shape):
    a = rng.normal(size=shape)
    check_function(pads, (a, rng.normal(size=shape[1])))
    check_function(pads, (relayout(a, "transposed")[0], rng.normal(size=shape[1])))
    check_function(padded_ints, (rng.integers(0, 5, size=shape),))


@pytest.mark.parametrize("n", [2, 5])
def test_gradient(n):
    v = rng.normal(size=n)
    check_function(gradients_1d, (v,))
    check_function(gradients_1d, (relayout(v, "negative")[0],))
    check_function(gradients_1d, (rng.integers(-4, 4, size=n),))
    check_function(gradients_nd, (rng.normal(size=(n, 3)),))
    check_function(gradients_nd, (relayout(rng.normal(size=(3, n)), "fortran")[0],))


@pytest.mark.parametrize("n", [3, 4, 6])
def test_gradient_with_coordinates_and_second_order_ends(n):
    """Bit-equal to NumPy (check_function), uneven and evenly spaced coordinates (NumPy
    checks at run time and uses the even formulas); the gradient with respect to evenly
    spaced coordinates is the uneven formula's, which finite differences see."""
    v, x = rng.normal(size=n), np.sort(rng.normal(size=n))
    check_function(coordinates_1d, (v, x))
    check_function(coordinates_1d, (v, np.arange(n) * 0.25))
    check_function(coordinates_1d, (relayout(v, "negative")[0], x))
    a = rng.normal(size=(n, 3))
    check_function(coordinates_nd, (a, x, np.sort(rng.normal(size=3))))
    check_function(coordinates_nd, (a, np.arange(n) * 1.0, np.array([0.0, 0.5, 1.0])))


def test_gradient_of_one_element_raises_valueerror():
    with pytest.raises(ValueError, match="too small to calculate a numerical gradient"):
        pyad.jit_grad(gradients_1d)(np.ones(1))
    with pytest.raises(ValueError, match="too small to calculate a numerical gradient"):
        pyad.jit_grad(coordinates_1d)(np.ones(2), np.arange(2.0))   # edge_order=2: 3
    with pytest.raises(ValueError, match="distances must match the length"):
        pyad.jit_grad(coordinates_1d)(np.ones(4), np.arange(3.0))


@pytest.mark.parametrize("n", [4, 2, 1])
def test_trapezoid(n):
    a = rng.normal(size=(n, n))
    check_function(trapezoids, (a, np.sort(rng.normal(size=n))))
    check_function(trapezoids, (relayout(a, "strided")[0], np.arange(n) * 0.5))


@pytest.mark.parametrize("n, m", [(5, 3), (1, 4), (4, 4), (2, 1)])
def test_convolve(n, m):
    check_function(convolutions, (rng.normal(size=n), rng.normal(size=m)))
    check_function(convolutions, (rng.integers(0, 4, size=n), rng.normal(size=m)))
    check_function(convolutions, (relayout(rng.normal(size=n), "reversed")[0],
                                  rng.integers(-2, 2, size=m)))


@pytest.mark.parametrize("n", [2, 6])
def test_diff_prepend_and_append(n):
    check_function(differences, (rng.normal(size=(n, 3)), rng.normal(size=n)))


@pytest.mark.parametrize("src, message", [
    ("np.gradient(x, x[0])", "one spacing number, or one spacing"),
    ("np.gradient(x, 1.0, 1.0, 1.0)", "one spacing number, or one spacing"),
    ("np.gradient(x, x, x)", "coordinates must be 1-D"),
    ("np.gradient(x, edge_order=3)", "edge_order must be 1 or 2"),
    ("np.convolve(x, x)", "two 1-D arrays"),
    ("np.convolve(x[0], x[0], mode='wrap')", "mode must be"),
    ("np.correlate(x[0], x[0])", r"np.convolve\(a, v\[::-1\], mode\)"),
    ("np.pad(x, 1, mode='mean')", "a mode of constant, edge, wrap, reflect, symmetric"),
    ("np.pad(x, 1, mode='edge', constant_values=2.0)", "only 'constant' takes constant_values"),
    ("np.pad(x, ((1, 1), (1, 1), (1, 1)))", "one \\(before, after\\) pair per axis"),
    ("np.pad(x, (1, (1, 1)))", "one \\(before, after\\) pair per axis"),
])
def test_refusals_are_located(src, message, tmp_path):
    assert_refused(tmp_path, "x", f"np.sum({src})", (np.ones((2, 3)),), message)
