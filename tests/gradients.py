"""The three-way gradient check the call, recursion and loop tests share. Of the three, the
finite differences and the dot-product test check the AD; the IR interpreter runs the IR the
AD pass made, so it checks the backend only (tests/fuzz is the independent AD oracle).
Gradients are compared leaf by leaf, so they may be numbers, arrays or containers."""
from __future__ import annotations

import numpy as np
import pytest

import pyad
from pyad.api.check import interp_value_and_grad


def assert_same_structure_leaves(got, want, exact: bool = False) -> None:
    """`got` and `want` have one structure and equal leaves (None where the other is None)."""
    assert pyad.tree_structure(got) == pyad.tree_structure(want), (got, want)
    for a, b in zip(pyad.tree_leaves(got), pyad.tree_leaves(want)):
        if exact:
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def assert_gradients(f, *args, **kwargs) -> None:
    """`f`'s gradient passes central finite differences and the dot-product test
    (pyad.check_grad, every float leaf of every parameter); for a single float result, it
    equals the IR interpreter's on the fused gradient IR (for `f.argnums`), and the pullback
    (forward and backward apart) gives value_and_grad's gradient bit for bit."""
    pyad.check_grad(f, *args, kwargs=kwargs)
    if not isinstance(f(*args, **kwargs), float):
        return  # several results: the dot-product test of check_grad checks the pullback
    v, g = f.value_and_grad(*args, **kwargs)
    iv, ig = interp_value_and_grad(f, *args, **kwargs)
    assert v == pytest.approx(iv, rel=1e-12)
    assert_same_structure_leaves(g, ig)
    _, back = f.pullback(*args, **kwargs)
    assert_same_structure_leaves(back(1.0), g, exact=True)


def check_against_python(fn, *args, rtol: float = 1e-10, kwargs: dict | None = None):
    """Compile `fn` (differentiating every parameter: argnums="all"): its value equals
    CPython's; if it has float arguments, its gradient passes `assert_gradients`. Returns the
    compiled function."""
    kwargs = kwargs or {}
    f = pyad.jit_grad(fn, argnums="all")
    copy = lambda a: a.copy() if isinstance(a, np.ndarray) else a  # noqa: E731
    want = fn(*pyad.tree_map(copy, args), **pyad.tree_map(copy, kwargs))
    got = f(*args, **kwargs)
    assert isinstance(got, int) == isinstance(want, (int, np.integer))
    assert pyad.tree_structure(got) == pyad.tree_structure(want), (got, want)
    for a, b in zip(pyad.tree_leaves(got), pyad.tree_leaves(want)):
        np.testing.assert_allclose(a, b, rtol=rtol)
    if any(isinstance(a, (float, np.ndarray)) for a in pyad.tree_leaves((args, kwargs))):
        assert_gradients(f, *args, **kwargs)
    return f
