"""NumPy's maximum and minimum (`fmaximum`/`fminimum` in the IR) and the reverse of a
running maximum (pyad/ad/plan.py, `_finals`): the reverse trip compares each element with
the loop's result, nothing is taped per element, and the gradient goes to the last element
attaining the maximum. Ties are the point here, so the oracles are exact: NumPy's
positions of the last maximum, the IR interpreter, and finite differences away from ties."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import pyad
from pyad.api.check import interp_value_and_grad


def row_max(A):
    return np.sum(np.max(A, axis=1) * np.arange(1.0, A.shape[0] + 1.0))


def col_min(A):
    return np.sum(np.min(A, axis=0) * np.arange(1.0, A.shape[1] + 1.0))


def whole_max(a):
    return np.max(a) * 3.0


def _last(A, axis, pick):
    """One-hot of the last position of `pick` (np.argmax or np.argmin) along `axis`."""
    rev = np.flip(A, axis=axis)
    idx = A.shape[axis] - 1 - pick(rev, axis=axis)
    out = np.zeros_like(A)
    np.put_along_axis(out, np.expand_dims(idx, axis), 1.0, axis=axis)
    return out


def _ties(shape, seed):
    """Small integers as floats: many ties along every axis."""
    return np.random.default_rng(seed).integers(0, 3, shape).astype(float)


@pytest.mark.parametrize("seed", range(4))
def test_the_gradient_of_a_maximum_goes_to_the_last_element_attaining_it(seed):
    A = _ties((9, 7), seed)
    f, g = pyad.jit_grad(row_max), pyad.jit_grad(col_min)
    rows = np.arange(1.0, 10.0)[:, None] * _last(A, 1, np.argmax)
    cols = np.arange(1.0, 8.0)[None, :] * _last(A, 0, np.argmin)
    for fn, want in ((f, rows), (g, cols)):
        v, grad = fn.value_and_grad(A)
        assert np.array_equal(grad, want)
        assert np.array_equal(fn.grad(A), want)
        y, back = fn.pullback(A)
        assert y == v and np.array_equal(back(1.0), want)
        iv, ig = interp_value_and_grad(fn, A)
        assert iv == v and np.array_equal(ig, want)


def test_away_from_ties_the_gradient_matches_finite_differences():
    A = np.random.default_rng(5).standard_normal((6, 5))
    for fn in (row_max, col_min):
        pyad.check_grad(pyad.jit_grad(fn), A)
    pyad.check_grad(pyad.jit_grad(whole_max), A[0])


def test_a_nan_wins_and_takes_the_gradient():
    """A nan element makes the maximum nan (NumPy) and takes the gradient: the last one."""
    a = np.array([1.0, np.nan, 3.0, np.nan, 2.0])
    f = pyad.jit_grad(whole_max)
    v, grad = f.value_and_grad(a)
    assert np.isnan(v) and np.isnan(np.max(a))
    assert np.array_equal(grad, [0.0, 0.0, 0.0, 3.0, 0.0])


def test_a_row_maximum_tapes_one_value_a_row_not_one_an_element():
    A = np.random.default_rng(1).standard_normal((50, 40))
    f = pyad.jit_grad(row_max)
    assert 0 < f.tape_bytes(A) <= 8 * 50 + 64   # before: 8 bytes an element (16000)


def test_a_running_maximum_read_elsewhere_in_the_trip_is_taped():
    """`s += m` reads each trip's maximum: the final value would be wrong there."""
    def running(a):
        m, s = a[0], 0.0
        for i in range(1, len(a)):
            m = np.maximum(m, a[i])
            s += m * a[i]
        return s
    a = np.array([0.3, -1.0, 2.0, 0.5, 2.5, 1.0])
    f = pyad.jit_grad(running)
    assert "taped: %" in f.grad_ir(a)
    pyad.check_grad(f, a)
    assert f(a) == running(a)


def test_elementwise_ties_split_evenly():
    """A pick outside a running extreme splits a tie's cotangent evenly, as JAX and PyTorch
    do: np.maximum(x, 0.0) has derivative 1/2 at 0, np.clip 1/2 at its bounds, and sums
    and products of max and min have the derivatives of a + b and a * b."""
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    relu = pyad.jit_grad(lambda x: np.sum(np.maximum(x, 0.0)))
    assert np.array_equal(relu.grad(x), [0.0, 0.5, 1.0, 1.0, 1.0])
    clip = pyad.jit_grad(lambda x: np.sum(np.clip(x, 0.0, 1.0)))
    assert np.array_equal(clip.grad(x), [0.0, 0.5, 1.0, 0.5, 0.0])
    both = pyad.jit_grad(lambda a, b: np.sum(np.maximum(a, b) + 2.0 * np.minimum(a, b)),
                         argnums=(0, 1))
    a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 4.0])
    ga, gb = both.grad(a, b)
    assert np.array_equal(ga, [1.5, 1.0, 2.0]) and np.array_equal(gb, [1.5, 2.0, 1.0])


def softplus(z):
    """The stable softplus, smooth everywhere: its derivative at 0 is 1/2."""
    return np.sum(np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z))))


def softplus_scalar(z):
    return max(z, 0.0) + math.log1p(math.exp(-abs(z)))


def max_plus_min(a, b):
    return max(a, b) + min(a, b) + np.maximum(a, b) * np.minimum(a, b)


def logistic_nll(w, b, X, y):
    z = X @ w + b
    return np.sum(np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z))) - y * z)


@pytest.mark.parametrize("fn, args", [
    (softplus, (np.array([0.0, -0.0, 1.5, -2.0]),)), (softplus_scalar, (0.0,)),
    (max_plus_min, (1.25, 1.25)),
    (logistic_nll, (np.zeros(2), 0.0, np.array([[1.0, 2.0], [0.5, -1.0], [-1.0, 0.3]]),
                    np.array([1.0, 0.0, 1.0])))],
    ids=["softplus", "softplus_scalar", "max_plus_min", "logistic_nll"])
def test_smooth_functions_written_with_picks_have_their_derivative_at_ties(fn, args):
    """Central differences see the derivative of the smooth function at the tie (logistic
    regression at its usual start w = 0, b = 0 has every z at 0: with ties sent to one
    side its gradient was [0, -2.3], -2.0 instead of [0.25, -1.65], -0.5)."""
    f = pyad.jit_grad(fn, argnums=(0, 1) if fn is logistic_nll else "all")
    pyad.check_grad(f, *args)
    _, g = f.value_and_grad(*args)
    iv, ig = interp_value_and_grad(f, *args)
    np.testing.assert_array_equal(np.concatenate([np.ravel(v) for v in pyad.tree_leaves(g)]),
                                  np.concatenate([np.ravel(v) for v in pyad.tree_leaves(ig)]))


def test_values_follow_numpy_and_order_zeros():
    """nan if any element is nan; -0.0 counts as below +0.0 (LLVM's maximum/minimum)."""
    f = pyad.jit_grad(lambda a, b: np.maximum(a, b))
    g = pyad.jit_grad(lambda a, b: np.minimum(a, b))
    a = np.array([1.0, np.nan, 2.0, -0.0, 0.0, -np.inf])
    b = np.array([np.nan, 1.0, 3.0, 0.0, -0.0, 5.0])
    hi, lo = f(a, b), g(a, b)
    assert np.array_equal(hi, np.maximum(a, b), equal_nan=True)
    assert np.array_equal(lo, np.minimum(a, b), equal_nan=True)
    assert np.array_equal(np.signbit(hi[3:5]), [False, False])
    assert np.array_equal(np.signbit(lo[3:5]), [True, True])
    assert pyad.jit_grad(lambda a: np.max(a))(np.array([-0.0, 0.0, -0.0])) == 0.0


def test_a_row_maximum_vectorizes():
    """The loop of np.max(A, axis=1) is a reduction of LLVM's maximum on vectors."""
    A = np.random.default_rng(2).standard_normal((8, 64))
    ir = pyad.jit_grad(row_max).llvm_ir(A)
    assert re.search(r"@llvm\.maximum\.v\d+f64", ir)


@pytest.mark.parametrize("axis, keepdims", [((0, 2), False), ((1,), True), (None, False),
                                            ((-1,), False)])
def test_several_axes_route_to_the_last_maximum_in_row_major_order(axis, keepdims):
    A = _ties((4, 3, 5), 7)
    w = np.random.default_rng(3).standard_normal(np.max(A, axis=axis, keepdims=keepdims).shape)
    w = float(w) if w.ndim == 0 else w      # a 0-D global is not a constant pyad takes

    def f(A):
        return np.sum(np.max(A, axis=axis, keepdims=keepdims) * w)
    g = pyad.jit_grad(f)
    v, grad = g.value_and_grad(A)
    assert v == pytest.approx(f(A), rel=1e-14)
    axes = tuple(range(3)) if axis is None else tuple(k % 3 for k in axis)
    kept = [k for k in range(3) if k not in axes]
    moved = np.moveaxis(A, kept + list(axes), range(3))      # kept axes first
    flat = moved.reshape(moved.shape[:len(kept)] + (-1,))
    last = flat.shape[-1] - 1 - np.argmax(flat[..., ::-1], axis=-1)
    want = np.zeros_like(flat)
    np.put_along_axis(want, last[..., None], np.reshape(w, last.shape)[..., None], axis=-1)
    want = np.moveaxis(want.reshape(moved.shape), range(3), kept + list(axes))
    assert np.array_equal(grad, want)


def loop_max(x):
    m = x[0]
    for i in range(1, len(x)):
        m = max(m, x[i])
    return m * 3.0


def loop_min(x):
    m = x[0]
    for v in x:
        m = min(m, v)
    return m * 3.0


@pytest.mark.parametrize("fn, pick", [(loop_max, np.argmax), (loop_min, np.argmin)])
def test_a_loop_with_pythons_max_tapes_nothing_and_routes_like_numpys(fn, pick):
    """`m = max(m, x[i])` written as a loop: a running maximum sends ties to its second
    argument, as np.max does, so the running maximum is read as the loop's result (before:
    8 bytes a trip)."""
    x = _ties((40,), 11)
    f = pyad.jit_grad(fn)
    assert f.tape_bytes(x) == 0 and "the loop's result" in f.grad_ir(x)
    want = 3.0 * _last(x, 0, pick)
    assert np.array_equal(f.grad(x), want)
    iv, ig = interp_value_and_grad(f, x)
    assert iv == fn(x) and np.array_equal(ig, want)
    pyad.check_grad(f, np.random.default_rng(4).standard_normal(40))


TIES_SRC = '''
import numpy as np
def ties(x, y):
    m = x[0]
    for i in range(1, len(x)):
        m = max(m, x[i])
    return m * 2.0 + np.max(x) + np.maximum(y, x[1]) + min(y, x[2]) + max(x[2], x[3])
'''


def test_the_differential_testers_oracle_models_the_same_ties(tmp_path):
    """tests/fuzz/dual.py's dual numbers split a tie's tangent evenly between the two
    arguments of a pick and take np.max's from the last maximum, as pyad does, so generated
    programs with such ties agree. (A running maximum in a loop sends a tie to its second
    argument in pyad, which the dual numbers cannot tell from a pick: the running maximum
    here has no tie.)"""
    import importlib.util
    from ..fuzz import dual
    ns = dual.namespace()
    exec(TIES_SRC, ns)
    x, y = np.array([1.0, 3.0, 2.0, 2.0]), 3.0
    eye = np.eye(5)
    r = ns["ties"](np.array([dual.Dual(v, eye[k]) for k, v in enumerate(x)], dtype=object),
                   dual.Dual(y, eye[4]))
    path = tmp_path / "ties_src.py"
    path.write_text(TIES_SRC)
    spec = importlib.util.spec_from_file_location("ties_src", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    v, (gx, gy) = pyad.jit_grad(mod.ties, argnums=(0, 1)).value_and_grad(x, y)
    assert r.v == v and np.array_equal(gx, [0.0, 3.5, 1.5, 0.5]) and gy == 0.5
    assert np.array_equal(r.t, [*gx, gy])
