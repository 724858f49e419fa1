"""The value-and-gradient kernel runs without strong zeros; when a gradient holds a nan it
asks for its version with them ('vg_safe'), which is compiled then and not before
(pyad/ad/gradient.py `fused_parts`, docs/gradients.md). Every entry that runs it (`grad`,
`value_and_grad`, `vmap` of them, the on-disk cache, the interpreter oracle) gives the
strong-zero gradient, and a function that never makes the nan never compiles the second
kernel."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad
from pyad.api.check import interp_value_and_grad
from tests.api.test_cache import Children


def vanishing(g):
    return math.exp(-math.inf / g) + g     # exp(-inf) is 0 for every g > 0: gradient 1


def sqrt_scaled(x, c):
    return np.sum(x * x) + c * np.sqrt(x[1])   # at x[1] = 0 with c = 0: 0 * inf


def smooth(x):
    return np.sum(np.log(x) * x)


def _units(f) -> list[str]:
    (spec,) = f._specs.values()
    (unit,) = spec.grads.values()
    return sorted(unit._units)


def test_a_nan_gradient_compiles_and_runs_the_kernel_with_strong_zeros():
    f = pyad.jit_grad(vanishing)
    assert f.grad(0.5) == 1.0
    assert _units(f) == ["vg", "vg_safe"]
    assert f.value_and_grad(0.5) == (0.5, 1.0)
    assert f.grad(2.0) == 1.0
    y, back = f.pullback(0.5)      # the pullback has strong zeros built in
    assert (y, back(1.0)) == (0.5, 1.0)


def test_a_function_without_the_nan_compiles_one_kernel():
    f = pyad.jit_grad(smooth)
    x = np.array([0.5, 1.5, 3.0])
    np.testing.assert_allclose(f.grad(x), np.log(x) + 1.0, rtol=1e-15)
    assert _units(f) == ["vg"]
    assert "StrongZeros" in f.grad_ir(x)       # it would ask, if a nan came


@pytest.mark.parametrize("c", [0.0, 2.0])
def test_array_gradients_come_from_one_kernel_only(c):
    """The first kernel's shadows hold partial sums when it asks; the answer must be the
    second kernel's alone (new zero shadows), equal to the pullback's."""
    f = pyad.jit_grad(sqrt_scaled, argnums="all")
    x = np.array([3.0, 0.0 if c == 0.0 else 4.0, 1.0])
    gx, gc = f.grad(x, c)
    y, back = f.pullback(x, c)
    bx, bc = back(1.0)
    assert np.array_equal(gx, bx) and gc == bc
    assert np.array_equal(gx, [6.0, 0.0 if c == 0.0 else 8.0 + c / 4.0, 2.0])
    value, (vx, vc) = f.value_and_grad(x, c)
    assert value == y and np.array_equal(vx, gx) and vc == gc
    assert ("vg_safe" in _units(f)) == (c == 0.0)


def test_vmap_runs_the_batch_again_with_strong_zeros():
    X = np.array([[1., 4.], [2., 0.], [3., 9.]])
    c = np.array([1., 0., 2.])
    f = pyad.jit_grad(sqrt_scaled, argnums=0)
    each = np.array([f.grad(X[i], c[i]) for i in range(len(X))])
    assert np.array_equal(pyad.vmap(pyad.grad(sqrt_scaled))(X, c), each)
    total = pyad.vmap(pyad.grad(sqrt_scaled), reduce="sum")(X, c)
    assert np.array_equal(total, each[0] + each[1] + each[2])
    assert np.all(np.isfinite(total))


def test_the_interpreter_oracle_asks_too():
    f = pyad.jit_grad(vanishing)
    assert interp_value_and_grad(f, 0.5) == (0.5, 1.0)


MODEL = '''
import math
import pyad

@pyad.jit_grad
def h(g):
    return math.exp(-math.inf / g) + g

def run():
    return {"grad": h.grad(0.5), "vg": list(h.value_and_grad(0.25))}
'''


def test_a_cached_kernel_asks_in_a_later_process(tmp_path):
    children = Children(tmp_path)
    children.write("model", MODEL)
    cold = children.run("model")
    assert cold["results"] == {"grad": 1.0, "vg": [0.25, 1.0]}
    assert sorted(children.entries()) == ["h.vg", "h.vg_safe"]
    warm = children.run("model")
    assert warm["results"] == cold["results"] and warm["loaded"] == []
    assert warm["stats"]["hits"] == 2 and warm["stats"]["misses"] == 0


def test_the_cffi_call_path_asks_too(monkeypatch):
    from pyad.codegen.python import callables
    monkeypatch.setattr(callables, "NATIVE_ARRAYS", False)   # array signatures through cffi
    f = pyad.jit_grad(sqrt_scaled, argnums="all")
    x = np.array([3.0, 0.0, 1.0])
    gx, gc = f.grad(x, 0.0)
    assert np.array_equal(gx, [6.0, 0.0, 2.0]) and gc == 0.0
    assert _units(f) == ["vg", "vg_safe"]


def test_a_deleted_function_cannot_make_the_second_kernel():
    """The native gradient outlives its jit_grad object (it holds it weakly, as its
    fallback does): a nan found later raises ReferenceError, never a wrong gradient."""
    import gc
    f = pyad.jit_grad(sqrt_scaled, argnums=0)
    x = np.array([3.0, 4.0, 1.0])
    f.grad(x, 2.0)
    g = f.grad                      # the native callable, installed by the first call
    assert g is not type(f).grad and np.array_equal(g(x, 2.0), f.grad(x, 2.0))
    del f
    gc.collect()
    assert np.array_equal(g(x, 2.0), [6.0, 8.5, 2.0])   # no nan: the first kernel answers
    with pytest.raises(ReferenceError, match="jit_grad function was deleted"):
        g(np.array([3.0, 0.0, 1.0]), 0.0)
