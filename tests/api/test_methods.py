"""Methods: `@pyad.jit_grad` on a method used through instances (`self` a pytree of the
instance's numeric attributes, read at every call, never differentiated), and bound methods
passed to `jit_grad` and the transforms."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import pyad
from tests.gradients import assert_same_structure_leaves


class Model:
    def __init__(self, w, bias=0.5):
        self.w = w
        self.bias = bias
        self.name = "model"           # not numeric: invisible to compiled code
        self.history = ["a", "b"]

    @pyad.jit_grad
    def loss(self, x, k=2.0):
        return np.sum((self.w * x + self.bias) ** 2) * k

    def plain(self, x):
        return self.bias * np.sum(self.w * x) ** 2

    @pyad.jit_grad
    def reads_name(self, x):
        return x * self.name

    @pyad.jit_grad
    def calls_method(self, x):
        return self.plain(x)


@dataclasses.dataclass
class Params:
    a: float
    b: np.ndarray

    def energy(self, x):
        return self.a * x * x + np.sum(self.b) * x


def python_loss(w, bias, x, k=2.0):
    return np.sum((w * x + bias) ** 2) * k


def fd(f, x, h=1e-6):
    """Central differences of a function of a 1-D array."""
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def test_method_through_instances_value_and_gradient():
    rng = np.random.default_rng(1)
    m, x = Model(rng.normal(size=3)), rng.normal(size=3)
    assert m.loss(x) == pytest.approx(python_loss(m.w, m.bias, x), rel=1e-13)
    g = m.loss.grad(x)                                   # d/dx: argnums counts after self
    np.testing.assert_allclose(g, fd(lambda v: python_loss(m.w, m.bias, v), x), rtol=1e-6)
    np.testing.assert_allclose(g, 2 * 2.0 * (m.w * x + m.bias) * m.w, rtol=1e-13)
    v, gk = m.loss.value_and_grad(x, k=3.0)
    assert v == pytest.approx(python_loss(m.w, m.bias, x, 3.0), rel=1e-13)
    np.testing.assert_allclose(gk, 1.5 * g, rtol=1e-13)
    y, back = m.loss.pullback(x)
    np.testing.assert_array_equal(back(1.0), g)
    gx, gk = pyad.jit_grad(m.loss, argnums="all").grad(x, 2.0)   # all but self
    np.testing.assert_allclose(gx, g, rtol=1e-13)
    assert gk == pytest.approx(python_loss(m.w, m.bias, x, 1.0), rel=1e-13)


def test_attributes_are_read_at_every_call():
    m = Model(np.array([1.0, 2.0]))
    x = np.array([0.5, -1.0])
    first = m.loss(x)
    m.w = np.array([3.0, 1.0])
    m.bias = -1.0
    assert m.loss(x) == pytest.approx(python_loss(m.w, -1.0, x)) and m.loss(x) != first
    other = Model(np.array([1.0, 2.0]))
    assert other.loss(x) == first
    assert len(Model.loss._specs) == 1                   # one class, one attribute structure
    m.bias = 2                                           # an int now: another signature
    assert m.loss(x) == pytest.approx(python_loss(m.w, 2, x))
    assert len(Model.loss._specs) == 2


def test_bound_methods_passed_to_jit_grad_and_transforms():
    m = Model(np.array([1.0, -2.0]), 0.25)
    x = np.array([0.5, 1.5])
    want = fd(lambda v: m.bias * np.sum(m.w * v) ** 2, x)
    for g in (pyad.jit_grad(m.plain).grad(x), pyad.grad(m.plain)(x),
              pyad.value_and_grad(m.plain)(x)[1]):
        np.testing.assert_allclose(g, want, rtol=1e-6)
    p = Params(1.5, np.array([1.0, 2.0]))
    v, g = pyad.value_and_grad(p.energy)(2.0)
    assert v == p.energy(2.0) and g == pytest.approx(2 * 1.5 * 2.0 + 3.0)
    y, vjp = pyad.vjp(p.energy, 2.0)
    assert_same_structure_leaves(vjp(1.0), (g,))


def test_refusals():
    m = Model(np.ones(2))
    with pytest.raises(pyad.PyadTypeError, match="`name` is not a number, array or container "
                                                 "of them of this Model object"):
        m.reads_name(1.0)
    with pytest.raises(pyad.PyadTypeError, match="a compiled method cannot call methods of "
                                                 "`self`"):
        m.calls_method(np.ones(2))
    with pytest.raises(TypeError, match="nothing to differentiate"):
        pyad.grad(Params(1.0, np.ones(2)).energy)(2)     # self's floats never count
