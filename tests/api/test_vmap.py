"""pyad.vmap: a compiled function or its gradient over a batch axis, in one native call split
over threads. Oracles: the same compiled function called element by element (bit for bit),
NumPy, central finite differences of the summed loss, and the interpreter."""
import math

import numpy as np
import pytest

import pyad
from pyad.api.batch import default_threads
from pyad.api.check import interp_value_and_grad


def mlp_loss(params, x, y):
    h = np.tanh(params["W1"] @ x + params["b1"])
    out = params["W2"] @ h + params["b2"]
    return 0.5 * np.sum((out - y) ** 2)


def _mlp(rng, n=13, d=5, hidden=7, k=3):
    params = {"W1": rng.normal(size=(hidden, d)) / 2, "b1": rng.normal(size=hidden),
              "W2": rng.normal(size=(k, hidden)) / 2, "b2": rng.normal(size=k)}
    return params, rng.normal(size=(n, d)), rng.normal(size=(n, k))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_per_sample_gradients_equal_the_loop_bit_for_bit(threads):
    params, X, Y = _mlp(np.random.default_rng(0))
    g = pyad.grad(mlp_loss)
    batched = pyad.vmap(g, in_axes=(None, 0, 0), num_threads=threads)(params, X, Y)
    assert set(batched) == set(params)
    for i in range(len(X)):
        one = g(params, X[i], Y[i])
        for k in params:
            assert batched[k].shape == (len(X),) + params[k].shape
            assert np.array_equal(batched[k][i], one[k]), (k, i)


def test_summed_gradient_equals_the_sum_and_finite_differences():
    params, X, Y = _mlp(np.random.default_rng(1), n=11)
    g = pyad.grad(mlp_loss)
    per = [g(params, X[i], Y[i]) for i in range(len(X))]
    for threads in (1, 2, 4):
        total = pyad.vmap(g, in_axes=(None, 0, 0), reduce="sum", num_threads=threads)(
            params, X, Y)
        for k in params:
            np.testing.assert_allclose(total[k], sum(p[k] for p in per), rtol=1e-12,
                                       atol=1e-12)

    def full(p):  # the summed loss in NumPy, for finite differences
        return sum(0.5 * np.sum((p["W2"] @ np.tanh(p["W1"] @ x + p["b1"]) + p["b2"] - y) ** 2)
                   for x, y in zip(X, Y))
    eps = 1e-6
    for k in params:
        for ix in [(0,) * params[k].ndim, tuple(s - 1 for s in params[k].shape)]:
            hi = {q: v.copy() for q, v in params.items()}
            lo = {q: v.copy() for q, v in params.items()}
            hi[k][ix] += eps
            lo[k][ix] -= eps
            fd = (full(hi) - full(lo)) / (2 * eps)
            assert abs(total[k][ix] - fd) <= 1e-6 * max(1.0, abs(fd)), (k, ix)


def _sqrt_scaled(x, c):
    return x[0] * x[0] + c * np.sqrt(x[1])


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_sums_add_every_element_in_order(threads, monkeypatch):
    """Each element's gradient is made in a zeroed buffer of its own and added in element
    order: an element whose gradient needs strong zeros (sqrt at 0 times c = 0: the kernel
    zeroes its gradient buffer and runs again) keeps the others, a nan element makes the sum
    nan, and the sum is the same bits on any number of threads and in any chunk size."""
    import pyad.api.batch as batch
    X = np.array([[1., 4.], [2., 9.], [3., 0.], [1., 16.], [0.5, 2.0]])
    c = np.array([1., 1., 0., 1., 3.])
    g = pyad.grad(_sqrt_scaled)
    per = [g(X[i], c[i]) for i in range(len(X))]
    want = np.zeros(2)
    for p in per:
        want = want + p
    total = pyad.vmap(g, reduce="sum", num_threads=threads)(X, c)
    assert np.array_equal(total, want)
    monkeypatch.setattr(batch, "SUM_BYTES", 16)  # chunks of `threads` elements
    assert np.array_equal(pyad.vmap(g, reduce="sum", num_threads=threads)(X, c), want)
    c[1] = np.nan
    assert np.isnan(pyad.vmap(g, reduce="sum", num_threads=threads)(X, c)[1])


def test_value_and_grad_per_sample_and_summed():
    params, X, Y = _mlp(np.random.default_rng(2), n=6)
    vg = pyad.value_and_grad(mlp_loss, argnums=0)
    values, grads = pyad.vmap(vg, in_axes=(None, 0, 0))(params, X, Y)
    assert values.shape == (6,)
    for i in range(6):
        v, gi = vg(params, X[i], Y[i])
        assert values[i] == v
        assert all(np.array_equal(grads[k][i], gi[k]) for k in params)
    value, total = pyad.vmap(vg, in_axes=(None, 0, 0), reduce="sum")(params, X, Y)
    assert isinstance(value, float)
    assert value == float(np.cumsum(values)[-1])  # in element order
    assert np.array_equal(total["W1"], np.add.reduce(grads["W1"], axis=0))


def test_scalar_arguments_and_scalar_gradients():
    @pyad.jit_grad(argnums=(0, 1))
    def f(a, b, n):
        s = 0.0
        for i in range(n):
            s += math.sin(a * (i + 1)) * b
        return s
    a = np.linspace(0.1, 2.0, 9)
    b = np.linspace(-1.0, 1.0, 9)
    n = np.arange(9, dtype=np.int64)
    ga, gb = pyad.vmap(pyad.grad(f, argnums=(0, 1)), in_axes=(0, 0, 0))(a, b, n)
    for i in range(9):
        ra, rb = f.grad(float(a[i]), float(b[i]), int(n[i]))
        assert (ga[i], gb[i]) == (ra, rb)
    # the bound method f.grad is recognised too (its argnums)
    assert np.array_equal(pyad.vmap(f.grad)(a, b, n)[0], ga)
    values = pyad.vmap(f)(a, b, n)
    assert np.array_equal(values, [f(float(x), float(y), int(k)) for x, y, k in zip(a, b, n)])
    total = pyad.vmap(pyad.grad(f, argnums=1), reduce="sum")(a, b, n)
    assert total == pytest.approx(float(np.sum(gb)), rel=1e-13)


def test_primal_results_stack_tuples_and_arrays_with_out_axes():
    def f(x, y, scale=2.0):
        return np.tanh(x) * scale + y, np.sum(x * x), x.shape[0]
    X = np.random.default_rng(3).normal(size=(4, 5))
    a, b, c = pyad.vmap(f, in_axes=(0, None))(X, 1.5)
    assert a.shape == (4, 5) and b.shape == (4,) and c.dtype == np.int64
    jf = pyad.jit_grad(f)
    for i in range(4):
        ai, bi, ci = jf(X[i], 1.5)
        assert np.array_equal(a[i], ai) and b[i] == bi and c[i] == ci
    np.testing.assert_allclose(a, np.tanh(X) * 2.0 + 1.5, rtol=1e-14)
    np.testing.assert_allclose(b, np.sum(X * X, axis=1), rtol=1e-15)
    assert list(c) == [5] * 4
    # mapped over axis 1, stacked along axis 1: the same layout as the input
    a1, _b, _c = pyad.vmap(f, in_axes=(1, None), out_axes=(1, 0, 0))(X, 0.0)
    np.testing.assert_allclose(a1, np.tanh(X) * 2.0, rtol=1e-14)
    with pytest.raises(ValueError, match=r"out_axes 1 is out of range for the result, of 0 dimensions"):
        pyad.vmap(f, in_axes=(1, None), out_axes=1)(X, 0.0)
    with pytest.raises(ValueError, match=r"does not match the structure of the result"):
        pyad.vmap(f, in_axes=(1, None), out_axes=(1, 0))(X, 0.0)
    # keyword arguments are mapped over axis 0; defaults are not mapped
    a2 = pyad.vmap(f, in_axes=(0, None))(X, 1.0, scale=np.arange(4.0))[0]
    np.testing.assert_allclose(a2, np.tanh(X) * np.arange(4.0)[:, None] + 1.0, rtol=1e-14)


def test_strided_converted_and_negative_axes():
    rng = np.random.default_rng(4)
    base = rng.normal(size=(6, 10))

    @pyad.jit_grad
    def f(v, w):
        return np.sum(np.sin(v) * w)
    w = rng.normal(size=6)
    ref = [f.grad(np.ascontiguousarray(base[:, j]), w) for j in range(0, 10, 2)]
    got = pyad.vmap(f.grad, in_axes=(-1, None))(base[:, ::2], w)      # strided columns
    assert all(np.array_equal(got[k], ref[k]) for k in range(5))
    got32 = pyad.vmap(pyad.grad(f), in_axes=(1, None))(base[:, ::2].astype(np.float32), w)
    ref32 = [f.grad(base[:, j].astype(np.float32).astype(np.float64), w) for j in range(0, 10, 2)]
    assert all(np.array_equal(got32[k], ref32[k]) for k in range(5))


def test_in_axes_trees_for_containers():
    def f(p, x):
        return p["a"] * np.sum(x) + np.sum(p["v"])
    p = {"a": np.array([1.0, 2.0, 3.0]), "v": np.ones(4)}
    X = np.arange(12.0).reshape(3, 4)
    out = pyad.vmap(f, in_axes=({"a": 0, "v": None}, 0))(p, X)
    np.testing.assert_array_equal(out, p["a"] * X.sum(axis=1) + 4.0)


def test_matches_the_interpreter():
    def f(x, c):
        t = 0.0
        for i in range(x.shape[0]):
            if x[i] > c:
                t += x[i] ** 3
            else:
                t -= math.exp(x[i]) * c
        return t
    X = np.random.default_rng(5).normal(size=(8, 6))
    jf = pyad.jit_grad(f)
    vals, grads = pyad.vmap(jf.value_and_grad, in_axes=(0, None), num_threads=2)(X, 0.1)
    for i in range(8):
        v, g = interp_value_and_grad(jf, X[i].copy(), 0.1)
        assert vals[i] == pytest.approx(v, rel=1e-14)
        np.testing.assert_allclose(grads[i], g, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_the_first_failing_element_is_reported_by_index(threads):
    def f(x, k):
        return x[k] * 2.0
    X = np.ones((9, 3))
    k = np.array([0, 1, 2, 0, 1, 7, 2, 9, 0])
    with pytest.raises(IndexError, match=r"index 7 is out of bounds.*\(batch element 5\)"):
        pyad.vmap(f, num_threads=threads)(X, k)

    def g(x):
        return 1.0 / x
    with pytest.raises(ZeroDivisionError, match=r"float division by zero \(line \d+ of .*\) "
                                                r"\(batch element 3\)"):
        pyad.vmap(pyad.grad(g), num_threads=threads)(np.array([1.0, 2.0, 3.0, 0.0, 5.0, 0.0]))


def test_results_of_different_shapes_are_refused():
    def f(n):
        return np.ones(n)
    with pytest.raises(ValueError, match=r"differs from the first element's.*batch element 2"):
        pyad.vmap(f)(np.array([2, 2, 3, 2]))


def test_bad_axes_and_arguments():
    def f(x, y):
        return np.sum(x) * y
    X = np.ones((3, 2))
    with pytest.raises(ValueError, match="inconsistent sizes.*'x' has size 3.*'y' has size 4"):
        pyad.vmap(f)(X, np.ones(4))
    with pytest.raises(ValueError, match="along axis 2, but it has 2 dimensions"):
        pyad.vmap(f, in_axes=(2, None))(X, 1.0)
    with pytest.raises(ValueError, match="at least one mapped argument"):
        pyad.vmap(f, in_axes=None)(X, 1.0)
    with pytest.raises(ValueError, match=r"len\(in_axes\)=3 for 2 positional arguments"):
        pyad.vmap(f, in_axes=(0, 0, 0))(X, np.ones(3))
    with pytest.raises(ValueError, match="does not match the argument's structure"):
        pyad.vmap(f, in_axes=({"a": 0}, None))(X, 1.0)
    with pytest.raises(ValueError, match="empty batch"):
        pyad.vmap(f, in_axes=(0, None))(np.ones((0, 2)), 1.0)
    with pytest.raises(TypeError, match="in_axes must hold ints and None"):
        pyad.vmap(f, in_axes=(0.5, None))
    with pytest.raises(ValueError, match="reduce must be None or 'sum'"):
        pyad.vmap(f, reduce="mean")
    with pytest.raises(ValueError, match="num_threads must be a positive int"):
        pyad.vmap(f, num_threads=0)
    with pytest.raises(TypeError, match="does not map value_and_grad with aux"):
        pyad.vmap(pyad.value_and_grad(f, has_aux=True))
    with pytest.raises(TypeError, match="pyad.vmap maps a Python function"):
        pyad.vmap(np.sum)
    with pytest.raises(TypeError, match="requires _pair to return a single float"):
        pyad.vmap(pyad.grad(_pair))(X)
    with pytest.raises(TypeError, match="pyad.vmap of a function pyad.vmap made"):
        pyad.vmap(pyad.vmap(f, in_axes=(0, None)), in_axes=(None, 0))(X, np.ones(4))


def _pair(x):
    return np.sum(x), np.sum(x)


def test_default_threads_from_the_environment(monkeypatch):
    monkeypatch.setenv("PYAD_NUM_THREADS", "3")
    assert default_threads() == 3
    monkeypatch.setenv("PYAD_NUM_THREADS", "zero")
    with pytest.raises(ValueError, match="PYAD_NUM_THREADS='zero'"):
        default_threads()
    monkeypatch.delenv("PYAD_NUM_THREADS")
    assert default_threads() >= 1


def test_the_cffi_call_path_maps_too(monkeypatch):
    """Where numpy's layout cannot be verified, kernels are called through cffi; their
    entries are compiled all the same."""
    from pyad.codegen.python import callables
    monkeypatch.setattr(callables, "NATIVE_ARRAYS", False)
    params, X, Y = _mlp(np.random.default_rng(6), n=5)
    g = pyad.grad(pyad.jit_grad(mlp_loss))
    batched = pyad.vmap(g, in_axes=(None, 0, 0), num_threads=2)(params, X, Y)
    for i in range(5):
        assert all(np.array_equal(batched[k][i], g(params, X[i], Y[i])[k]) for k in params)


def _configured(x, cfg):
    return float(np.sum(x * x)) * cfg["s"] if cfg["mode"] == "sq" else float(np.sum(x))


def _mode_first(mode, x, c):
    return c * float(np.sum(x * x)) if mode == "sq" else c * float(np.sum(x))


def test_strings_in_the_arguments_are_compile_time_values_not_parameters():
    """A string in a container (or before a number) is no kernel parameter, so the mapped
    leaves must skip it: vmap paired the dict's "sq" with the slot of its float and raised
    ValueError (found by a probe, 2026-11-29)."""
    X = np.array([[1.0, -2.0], [0.5, 3.0], [0.25, 1.0]])
    cfg = {"mode": "sq", "s": 2.0}
    f = pyad.jit_grad(_configured)
    want = np.array([f.grad(x, cfg) for x in X])
    np.testing.assert_array_equal(pyad.vmap(f.grad, in_axes=(0, None))(X, cfg), want)
    g = pyad.jit_grad(_mode_first, argnums=(1, 2))
    c = np.array([1.5, -0.5, 2.0])
    got = pyad.vmap(g.grad, in_axes=(None, 0, 0))("sq", X, c)
    for k, x in enumerate(X):
        gx, gc = g.grad("sq", x, c[k])
        np.testing.assert_array_equal(got[0][k], gx)
        assert got[1][k] == gc
