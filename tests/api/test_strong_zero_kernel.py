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


# ------------------------------------------- sums whose contributions are scaled afterwards
# An accumulating loop (and the sums pyad lowers to one: np.sum, np.mean, np.var, np.dot,
# @, np.einsum) adds its partials with cotangent 1 and is scaled by the sum's cotangent
# afterwards (pyad/ad/fused.py). That product is guarded too: 0 where the cotangent is 0
# (a partial may be inf) and where the summed partial is 0 (the cotangent may be inf).

def sum_on_a_path_not_taken(x):
    s = 0.0
    for i in range(len(x)):
        s += math.sqrt(x[i])
    if s > 100.0:
        return s
    return x[1]


def sum_under_max(x):
    return max(np.sum(np.sqrt(x)), 10.0)


def sum_times_zero(x, w):
    s = 0.0
    for v in x:
        s += v ** 0.5
    return w * s + x[1]


def norm_by_hand(x):
    return np.sqrt(np.sum(x * x))


def norm_by_dot(x):
    return np.dot(x, x) ** 0.5


def norm_by_einsum(x):
    return math.sqrt(np.einsum("i,i->", x, x))


def rms(x):
    return np.sqrt(np.mean(x ** 2))


def distance(x, y):
    return np.sqrt(np.sum((x - y) ** 2))


def std_by_var(x):
    return np.sqrt(np.var(x))


def loop_norm(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return math.sqrt(s)


SCALED_SUMS = [  # (function, arguments where the sum's cotangent or a partial is 0 or inf,
                 #  the gradient of argument 0 worked out by hand, a regular point)
    (sum_on_a_path_not_taken, ([0.0, 1.0],), [0.0, 1.0], ([0.5, 2.0],)),
    (sum_under_max, ([0.0, 1.0],), [0.0, 0.0], ([50.0, 80.0],)),
    (sum_times_zero, ([0.0, 4.0], 0.0), [0.0, 1.0], ([1.0, 4.0], 0.5)),
    (norm_by_hand, ([0.0, 0.0],), [0.0, 0.0], ([3.0, 4.0],)),
    (norm_by_dot, ([0.0, 0.0],), [0.0, 0.0], ([3.0, 4.0],)),
    (norm_by_einsum, ([0.0, 0.0],), [0.0, 0.0], ([3.0, 4.0],)),
    (rms, ([0.0, 0.0, 0.0],), [0.0, 0.0, 0.0], ([1.0, -2.0, 3.0],)),
    (distance, ([1.0, 2.0], [1.0, 2.0]), [0.0, 0.0], ([1.0, 2.0], [0.5, 4.0])),
    (std_by_var, ([2.0, 2.0, 2.0],), [0.0, 0.0, 0.0], ([1.0, 2.0, 4.0],)),
    (loop_norm, ([0.0, 0.0],), [0.0, 0.0], ([3.0, 4.0],)),
]


def _arrays(args):
    return tuple(np.array(a) if isinstance(a, list) else a for a in args)


@pytest.mark.parametrize("fn, args, want, regular", SCALED_SUMS,
                         ids=[c[0].__name__ for c in SCALED_SUMS])
def test_a_sum_scaled_by_its_cotangent_afterwards_keeps_strong_zeros(fn, args, want, regular):
    f = pyad.jit_grad(fn)
    args = _arrays(args)
    assert f(*args) == fn(*args)
    g = f.grad(*args)
    assert np.array_equal(g, want), g
    value, vg = f.value_and_grad(*args)
    y, back = f.pullback(*args)
    assert value == y == fn(*args)
    assert np.array_equal(vg, want) and np.array_equal(back(1.0), want)
    assert np.array_equal(back(0.0), np.zeros(len(want)))   # a zero cotangent: zeros
    assert np.array_equal(interp_value_and_grad(f, *args)[1], want)
    pyad.check_grad(f, *_arrays(regular))   # elsewhere: finite differences, dot-product test


def two_results(x):
    return np.sum(np.sqrt(x)), 2.0 * x[1]


def test_a_zero_cotangent_of_one_result_gives_zero_through_its_sum():
    f = pyad.jit_grad(two_results)
    _, back = f.pullback(np.array([0.0, 4.0]))
    assert np.array_equal(back((0.0, 1.0)), [0.0, 2.0])
    assert np.array_equal(back((1.0, 0.0))[1], 0.25)


# ------------------------------------------------------------------------------ custom rules
# A custom rule's backward function is the user's code: it can turn the nan of the kernel
# without strong zeros into a number, so that nan would not ask for the kernel with them.

@pyad.custom_vjp
def clipped(x):
    return x


def _clipped_fwd(x):
    return x, 0.0


def _clipped_bwd(res, ct):
    return (max(-1.0, min(1.0, ct)),)


clipped.defvjp(_clipped_fwd, _clipped_bwd)


def through_a_clipping_rule(x):
    y = clipped(x)
    return max(math.sqrt(y), 1.0) + x      # at 0: the sqrt is not taken, d/dx = 1


def recursive_clipping(x, n):
    if n == 0:
        return clipped(x)
    return recursive_clipping(x, n - 1)


def through_a_recursive_clipping_rule(x):
    y = recursive_clipping(x, 2)
    return max(math.sqrt(y), 1.0) + x


@pytest.mark.parametrize("fn", [through_a_clipping_rule, through_a_recursive_clipping_rule])
def test_a_custom_rule_runs_with_strong_zeros_from_the_start(fn):
    f = pyad.jit_grad(fn)
    assert f.grad(0.0) == 1.0
    assert f.value_and_grad(0.0) == (1.0, 1.0)
    assert pyad.grad(fn)(0.0) == 1.0
    _, back = f.pullback(0.0)
    assert back(1.0) == 1.0
    assert f.grad(4.0) == pytest.approx(1.25, rel=1e-15)   # d/dx (sqrt(x) + x) at 4


def product(phi, y0):
    return phi * y0


def log_base(x, b):
    return math.log(x, b) + x * b


@pytest.mark.parametrize("fn,args", [(product, (0.0, -0.0)), (product, (-0.0, 0.0)),
                                     (log_base, (1.0, 2.5)), (vanishing, (0.5,))],
                         ids=["product", "product_swapped", "log_base", "vanishing"])
def test_the_guards_keep_the_sign_of_a_zero_gradient(fn, args):
    """A contribution that is 0 keeps its sign under the guards (strongzero changes only a
    nan), so pullback (always guarded), grad and value_and_grad (guarded only after a nan)
    give the same bits, the sign of zero included (x * y at y = -0.0: -0.0)."""
    f = pyad.jit_grad(fn, argnums="all")
    _, g = f.value_and_grad(*args)
    back = f.pullback(*args)[1](1.0)
    assert [np.float64(v).tobytes() for v in back] == [np.float64(v).tobytes() for v in g]
    assert [np.float64(v).tobytes() for v in f.grad(*args)] == \
        [np.float64(v).tobytes() for v in g]
