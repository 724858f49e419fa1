"""Strings as arguments of a compiled function are compile-time values, like None: a
signature is compiled for each string (`act="tanh"` or `"relu"`), and `if act == "tanh":`
compiles only the branch taken. They were refused ("must be a float, int, bool, ..."),
even as a default the call left out; found by a probe of array-style code."""
import numpy as np
import pytest

import pyad


def layer(x, w, act="tanh"):
    z = x @ w
    if act == "tanh":
        return np.sum(np.tanh(z))
    if act == "relu":
        return np.sum(np.maximum(z, 0.0))
    return np.sum(z * z)


def config(params, x):
    return params["scale"] * np.sum(x) if params["mode"] == "sum" else params["scale"] * np.max(x)


X = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
W = np.linspace(0.5, -0.7, 6).reshape(3, 2)


@pytest.mark.parametrize("extra", [(), ("tanh",), ("relu",), ("square",)])
def test_each_string_compiles_its_branch(extra):
    f = pyad.jit_grad(layer)
    assert f(X, W, *extra) == pytest.approx(layer(X, W, *extra), rel=1e-14)
    pyad.check_grad(f, X, W, *extra)
    if extra:   # by keyword: the same signature
        assert f(X, W, act=extra[0]) == f(X, W, *extra)


def test_strings_in_containers_and_their_gradients():
    f = pyad.jit_grad(config, argnums="all")
    for mode in ("sum", "max"):
        p = {"scale": 1.5, "mode": mode}
        assert f(p, X) == config(p, X)
        g = f.grad(p, X)
        assert g[0]["scale"] == pytest.approx(config({"scale": 1.0, "mode": mode}, X))
        assert g[0]["mode"] is None


def test_cached_signatures_keep_strings_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("PYAD_CACHE_DIR", str(tmp_path))
    for act in ("tanh", "relu", "tanh"):
        f = pyad.jit_grad(layer, cache=True)
        assert f(X, W, act) == pytest.approx(layer(X, W, act), rel=1e-14)


def scaled(x, k):
    return x * k


def test_a_string_used_as_a_number_is_a_located_error():
    with pytest.raises(pyad.PyadError, match="test_string_arguments.py:55"):
        pyad.jit_grad(scaled)(1.5, "two")
